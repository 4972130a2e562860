"""A text dump's parts told apart from its features by what the page showed: lines it
centered, the entries of its contents list, items hanging their text under their names, lines
a mail numbers or bullets as its parts. Without them every lone line reads alike."""

from __future__ import annotations

import itertools
import textwrap
import unicodedata

from newsletter import lazy_re
from newsletter.text.outline import Block, Heading, ListBlock
from newsletter.text.plain_lines import (
    BULLET,
    SENTENCE_ENDS,
    columns,
    heading_candidate,
    indent_of,
    is_code_group,
    is_list_group,
    looks_like_code,
    plain_block,
)

# lynx centers a page's title and its parts in its 72-80 columns; a body's indent is 2-5.
_CENTERED_INDENT = 12


def centered_lines(groups: list[list[str]]) -> list[int]:
    """The indexes of the lone lines a dump centered, when it centered two or more. Lines
    of different lengths centered start at different columns: lines that all start at one
    column are indented (a block of code, a quote), not centered."""
    found = [index for index, group in enumerate(groups)
             if len(group) == 1 and indent_of(group[0]) >= _CENTERED_INDENT and heading_candidate(group)]
    columns = {indent_of(groups[index][0]) for index in found}
    return found if len(found) >= 2 and len(columns) >= 2 else []


# A page's title stands among a dump's first few runs of lines, under the site's menus.
_TITLE_GROUPS = 10


def centered_title(groups: list[list[str]]) -> int | None:
    """The index of the one lone line a dump centered near its top, when it centered no
    other: the page's title, whatever menus stand over it. (A title may end in "!" as a
    sentence does: "Lumen 3 released!")"""
    return next((index for index, group in enumerate(groups[:_TITLE_GROUPS])
                 if len(group) == 1 and indent_of(group[0]) >= _CENTERED_INDENT
                 and heading_candidate([group[0].rstrip().removesuffix("!")])), None)


def centered_blocks(groups: list[list[str]], centered: list[int]) -> list[Block]:
    """A dump that centers its title and its parts: above the first centered line stands
    the site's chrome; a lone line at the margin, over text or another line, is a feature
    of the part above it."""
    blocks: list[Block] = []
    title, parts = centered[0], set(centered)
    for index, group in enumerate(groups):
        following = groups[index + 1] if index + 1 < len(groups) else None
        if index == title:
            # The page's title, marked by the layout as surely as markup would: no guess.
            blocks.append(Heading(1, group[0].strip()))
        elif index in parts:
            blocks.append(Heading(2, group[0].strip(), guessed=True))
        elif (index > title and following is not None and heading_candidate(group)
              and not group[0][:1].isspace() and not is_list_group(following) and not is_code_group(following)):
            blocks.append(Heading(3, group[0].strip(), guessed=True))
        else:
            blocks.append(plain_block(group))
    return blocks


def contents_levels(blocks: list[Block]) -> list[Block]:
    """A dump whose contents list names its parts, each right over a line of its own: the
    lines it names are the parts, and the lines a scrape made headings between them are
    what those parts hold. (Where runs of bare lines stand, layout alone cannot tell a part
    from its first feature.) A contents list naming headings over text names features."""
    named = _contents_entries(blocks)
    over_a_line = {_key(block.text) for block, following in itertools.pairwise(blocks)
                   if isinstance(block, Heading) and isinstance(following, Heading) and following.guessed}
    if not named or not named <= over_a_line:
        return blocks
    first = next(index for index, block in enumerate(blocks)
                 if isinstance(block, Heading) and _key(block.text) in named)
    return [*blocks[:first], *(
        Heading(1 if _key(block.text) in named else 2, block.text, block.urls, guessed=True)
        if isinstance(block, Heading) and block.guessed else block
        for block in blocks[first:])]


def _contents_entries(blocks: list[Block]) -> set[str]:
    """The keys of the first list of two or more items whose every item names a heading
    below it; an empty set when no list does."""
    later: set[str] = set()
    entries: set[str] = set()
    # From the end: the headings below each list are known when it is met.
    for block in reversed(blocks):
        if isinstance(block, Heading) and block.guessed:
            later.add(_key(block.text))
        elif isinstance(block, ListBlock) and len(block.items) >= 2 and all(
                not item.children and _key(item.text) in later for item in block.items):
            entries = {_key(item.text) for item in block.items}
    return entries


def _key(text: str) -> str:
    return " ".join(text.casefold().split())


# A dump wraps its lines at 72-80 columns; a copy of a page from a browser never does.
_UNWRAPPED_LINE = 100
# A wrapped paragraph's lines run near the column width; a heading's or a button's are short.
_WRAPPED_LINE = 50
# A longer line is a heading still when it carries a word in brackets, as a feature's label
# is ("Legacy flags (deprecated) in the gateway"): a wrapped sentence seldom breaks after one.
_BRACKETED_WORD_WITHIN = lazy_re.compile(r"\s[\[(][^\W\d_]+[\])](?:\s|$)")


def first_of_a_group(blocks: list[Block], following: list[str]) -> bool:
    """Whether a heading line right under a group's line (after a part's text) and over a
    labeled feature is the group's first feature ("Go 1.24 required", named and said no more
    of), not a group of its own: a label marks a feature among its peers."""
    return (len(blocks) > 1 and isinstance(blocks[-1], Heading) and blocks[-1].level == 1 and blocks[-1].guessed
            and not isinstance(blocks[-2], Heading) and _BRACKETED_WORD_WITHIN.search(following[0]) is not None)


def unwrapped_copy(groups: list[list[str]]) -> bool:
    """Whether a text is a browser's copy of a page: a paragraph is one long line, so no
    line runs on to the next, and blank lines no longer part a heading from its text."""
    lines = [line for group in groups if not is_code_group(group) for line in group]
    unwrapped = any(len(line) > _UNWRAPPED_LINE and line.rstrip().endswith(SENTENCE_ENDS) for line in lines) or sum(
        _heading_under_its_paragraph(group) or _heading_over_its_paragraph(group)
        for group in groups if not is_code_group(group)) >= _GLUED_HEADINGS
    return unwrapped and not any(
        len(line.strip()) >= _WRAPPED_LINE and not line.rstrip().endswith(SENTENCE_ENDS) and not is_list_group([line])
        # A line opening with a mark ("# comment", "$ cmd") is code the copy left unfenced.
        and not opens_with_a_mark(line)
        # A wrapped line goes on at its own indent; a line over indented ones is a page's row.
        and indent_of(line) == indent_of(following)
        for group in groups if not is_code_group(group) and not _markerless_list(group)
        for line, following in itertools.pairwise(group))


# A copy of short paragraphs shows no long line; headings glued under the paragraph
# before them, twice or more, tell it.
_GLUED_HEADINGS = 2
_TAGGED = lazy_re.compile(r"\[[^\W\d_]+\]\s+\S")


def _heading_under_its_paragraph(group: list[str]) -> bool:
    """A run whose last line is short and ends no sentence right under a line that ends
    one: a heading the copy glued to the paragraph above ("...below." over "New features").
    A wrapped paragraph's last line ends its sentence."""
    return (len(group) >= 2 and group[-2].rstrip().endswith(SENTENCE_ENDS) and not group[-2][:1].isspace()
            and not group[-1][:1].isspace() and len(group[-1].strip()) < _WRAPPED_LINE
            and not group[-1].rstrip().endswith(SENTENCE_ENDS))


def _heading_over_its_paragraph(group: list[str]) -> bool:
    """A short line that ends no sentence over a paragraph line whose first word would
    have fit after it: the break is the page's, a heading glued to its text ("Faster
    builds" over "Builds reuse their cache."). A wrapped paragraph fills each line."""
    if len(group) != 2 or any(line[:1].isspace() for line in group) or not group[1].split():
        return False
    head, body = group[0].rstrip(), group[1].rstrip()
    return (len(head) < _WRAPPED_LINE and not head.endswith(SENTENCE_ENDS) and body.endswith(SENTENCE_ENDS)
            and _first_word_fits(head, body, len(body)))


def glued_headings_apart(groups: list[list[str]]) -> tuple[list[list[str]], set[str]]:
    """A dump that wraps its paragraphs but glues each heading to the paragraph under it (w3m
    does, for a page that sets no margin below its headings): a short line at the margin
    whose break no wrap made, over a paragraph, is a heading of its own. Two or more runs
    must open so: one alone may be a line the author broke by hand. Also returns the
    headings cut from a run's end: each ends the part above it, whatever follows."""
    width = max((len(line.rstrip()) for group in groups if not is_code_group(group) for line in group), default=0)
    trailing = [_trailing_heading(group, following, width)
                for group, following in itertools.zip_longest(groups, groups[1:])]
    cuts = [[*_glued_headings(group, width), *at_end] for group, at_end in zip(groups, trailing, strict=True)]
    # A line opening with a tag in brackets ("[Beta] Sync") is a name, not a sentence the
    # author broke by hand: alone, it is a heading still.
    glued = sum(map(len, cuts)) >= _GLUED_HEADINGS
    cuts = [at if glued and at else [0] if _tagged_over_text(group) else []
            for group, at in zip(groups, cuts, strict=True)]
    if not any(cuts):
        return groups, set()
    return ([part for group, at in zip(groups, cuts, strict=True) for part in (_cut(group, at) if at else [group])],
            {group[-1] for group, at_end in zip(groups, trailing, strict=True) if at_end})


def _tagged_over_text(group: list[str]) -> bool:
    """A run opening with a short tagged name at the margin over a paragraph ending a sentence."""
    return (len(group) > 1 and _TAGGED.match(group[0]) is not None
            and heading_candidate(group[:1]) and not any(line[:1].isspace() for line in group)
            and group[-1].rstrip().endswith(SENTENCE_ENDS))


def _cut(group: list[str], at: list[int]) -> list[list[str]]:
    """The run cut into its lines' blocks: each heading found a block of its own."""
    edges = sorted({0, len(group), *at, *(index + 1 for index in at)})
    return [group[start:end] for start, end in itertools.pairwise(edges)]


def _glued_headings(group: list[str], width: int) -> list[int]:
    """Where a run's headings stand: its first line, and lines inside it. A run that glues
    headings inside it glued its first line too, whatever the width of its text."""
    inner = _inner_headings(group, width)
    first = _glued_heading(group, width) or bool(inner) and _glued_line(group[0], width) and not group[1][:1].isspace()
    return [0] * first + inner


def _trailing_heading(group: list[str], following: list[str] | None, width: int) -> list[int]:
    """A run's last line, when the dump glued a heading with no text of its own under the
    block above it (a sentence or code) and a heading line stands next: a feature the post
    named and said no more of, right before the next part. Code may end in a line of its
    own kind (a flag, a path) under one that shows it is code."""
    last = len(group) - 1
    above = group[last - 1].rstrip() if last else ""
    return [last] if (last and following is not None and heading_candidate(following)
                      and (above.endswith(SENTENCE_ENDS) or any(map(looks_like_code, group[max(last - 2, 0):last])))
                      and _glued_line(group[last], width) and not above[:1].isspace()) else []


def _inner_headings(group: list[str], width: int) -> list[int]:
    """The lines inside a run that a dump glued between blocks, no blank line around them
    (w3m does, for a page that sets no margins): a short line at the margin that reads as a
    heading, under a line that ended its block (a sentence, code, a heading, or a line of
    text the next word would have fit after: the page broke it, not the wrap), over its text
    or over a heading or two over its text. A run of short lines (a page's menus, a table's cells)
    is no text."""
    found: list[int] = []
    for index in range(1, len(group) - 1):
        above = group[index - 1].rstrip()
        after_heading = bool(found) and found[-1] == index - 1 or index == 1 and _glued_line(above, width)
        ends_a_block = (above.endswith(SENTENCE_ENDS) or looks_like_code(above) or after_heading
                        or _WRAPPED_LINE <= len(above) and _first_word_fits(above, group[index], width))
        if ends_a_block and _glued_line(group[index], width) and _heads_a_body(group, index, width):
            found.append(index)
    return found


# Heading lines a dump may glue one over the other: a feature with no text of its own, the
# next part's name, that part's first feature.
_STACKED_HEADINGS = 3


def _heads_a_body(group: list[str], index: int, width: int) -> bool:
    """Whether a body opens under a run's line, past at most two more heading lines."""
    for below in range(index + 1, min(index + _STACKED_HEADINGS, len(group)) + 1):
        if _opens_a_body(group, below):
            return True
        if below >= len(group) or not _glued_line(group[below], width):
            return False
    return False


def _opens_a_body(group: list[str], index: int) -> bool:
    """Whether a run's line opens what a heading may stand over: text, or code (a part may
    show only its configuration)."""
    return _opens_text(group, index) or index < len(group) and looks_like_code(group[index])


def _opens_text(group: list[str], index: int) -> bool:
    """Whether a run's line opens a paragraph: at the margin, a sentence or a wrapped line."""
    line = group[index].rstrip() if index < len(group) else ""
    return (bool(line) and not line[:1].isspace() and not looks_like_code(line) and not BULLET.match(line)
            and "://" not in line and (line.endswith(SENTENCE_ENDS) or len(line) >= _WRAPPED_LINE))


def _glued_line(line: str, width: int) -> bool:
    # With no layout left to mark it, a heading must at least open as one does: not with a
    # lower-case word (a tag, a button: "release", "select all").
    return (len(line.rstrip()) < _WRAPPED_LINE and not line[:1].isspace() and not line[:1].islower()
            and heading_candidate([line])
            and width >= _WRAPPED_LINE)


def _glued_heading(group: list[str], page_width: int) -> bool:
    """A run opening with a short line that reads as a heading, over a paragraph at the
    margin that ends a sentence, when the paragraph's first word would have fit after that
    line in the paragraph's own width (a paragraph of one line has none: the page's): the
    break is the page's, not the wrap's."""
    # The paragraph may end in the code it shows, which a dump set flush with it.
    body = list(itertools.takewhile(lambda line: not looks_like_code(line), group[1:]))
    if not body or any(line[:1].isspace() for line in group) or is_list_group(body) or is_code_group(body):
        return False
    head, body = group[0].rstrip(), [line.rstrip() for line in body]
    width = max(len(line) for line in body) if len(body) > 1 else page_width
    # A longer head may carry a label, or open with an emoji as a page may lead every
    # feature's name: a sentence seldom does.
    return ((len(head) < _WRAPPED_LINE or _BRACKETED_WORD_WITHIN.search(head) is not None
             or unicodedata.category(head[0]) == "So") and heading_candidate([head])
            and body[-1].endswith(SENTENCE_ENDS) and _first_word_fits(head, body[0], width))


def _first_word_fits(line: str, following: str, width: int) -> bool:
    """Whether the first word of `following` would have fit after `line` in lines of
    `width`: a wrap would have put it there, so the break is the page's."""
    return len(line) + 1 + len(following.split()[0]) <= width


def _markerless_list(group: list[str]) -> bool:
    """A run of indented lines, as a copy keeps a list whose markers it dropped: each line
    an item, none a wrapped paragraph's."""
    return len(group) > 1 and all(line[:1].isspace() for line in group)


def opens_with_a_mark(line: str) -> bool:
    first = line.strip()[:1]
    # A bracket opens a label ("(Beta) X", "[New] X") as often as code.
    return bool(first) and not first.isalnum() and first not in "@-(["


# Items of a release page's list that head their own text, as headings do, two or more.
HEADING_ITEMS = 2


def items_over_their_text(groups: list[list[str]]) -> list[list[str]]:
    """A copied release page lists its changes as items, each a short name on the bullet's
    line over its indented text ("* Faster joins" over "  Joins use hashes."), a blank line
    apart: each such item is a heading over its text. A wrapped item runs its first line
    near the column's width; two or more items must stand so, right under their part's name."""
    # The list stands right under its part's name ("Added"), not under a sentence.
    found = [hanging_items(group) if index and heading_candidate(groups[index - 1]) else None
             for index, group in enumerate(groups)]
    if sum(len(item or ()) for item in found) < HEADING_ITEMS:
        return groups
    return [part for group, items in zip(groups, found, strict=True)
            for part in ([part for head, body in items for part in ([head], *body)] if items else [group])]


def hanging_items(group: list[str]) -> list[tuple[str, list[list[str]]]] | None:
    """A list whose every item is a short name over its indented text, each item as its
    name and its text (and the code that may follow it), dedented: None for other lists."""
    starts = [index for index, line in enumerate(group) if BULLET.match(line)]
    if not starts or starts[0] != 0:
        return None
    items: list[tuple[str, list[list[str]]]] = []
    for start, end in itertools.pairwise([*starts, len(group)]):
        found = BULLET.match(group[start])
        head, body = found.group(2).strip() if found else "", group[start + 1:end]
        if (not body or columns(head) >= _WRAPPED_LINE or not heading_candidate([head])
                or not all(indent_of(line) > indent_of(group[start]) + 1 for line in body) or looks_like_code(body[0])
                or not any(line.rstrip().endswith(SENTENCE_ENDS) for line in body)):
            return None
        # Code may follow the item's text, as a part's does: it stays code.
        text = list(itertools.takewhile(lambda line: not looks_like_code(line), body))
        code = body[len(text):]
        items.append((head, [textwrap.dedent("\n".join(lines)).split("\n") for lines in (text, code) if lines]))
    return items


# A line a number opens: "1. Faster planner".
NUMBERED_LINE = lazy_re.compile(r"(\d{1,2})[.)]\s+(\S.*)")


def numbered_parts_of(groups: list[list[str]]) -> set[int]:
    """The indexes of lines that number a mail's parts ("1. Faster planner" alone at the
    margin, between texts), when two or more stand so, each with its own number: one such
    line is a one-item list, and a list's last item stands over text too."""
    found: dict[str, int] = {}
    for index, (group, following) in enumerate(itertools.pairwise(groups)):
        line = NUMBERED_LINE.fullmatch(group[0]) if len(group) == 1 else None
        # (A list indented under a sentence ends where a line at the margin starts; a list
        # bulleted with other marks ends where the numbers start.)
        after_list = index and is_list_group(groups[index - 1]) and not groups[index - 1][0][:1].isspace() \
            and NUMBERED_LINE.match(groups[index - 1][-1]) is not None
        if line and not is_list_group(following) and not after_list and heading_candidate([line.group(2)]):
            found.setdefault(line.group(1), index)
    return set(found.values()) if len(found) >= 2 else set()


def bulleted_parts_of(groups: list[list[str]]) -> set[int]:
    """The indexes of lines that mark a mail's parts with a bullet ("* --jobs" alone at
    the margin, over its text, between texts), when two or more stand so: a list's items
    stand together, or under a line introducing them. An item whose text hangs under its
    name, a blank line apart, is a part wherever it stands: one-line items are its peers."""
    found = {index for index, (group, following) in enumerate(itertools.pairwise(groups))
             if len(group) == 1 and is_list_group(group) and not NUMBERED_LINE.match(group[0])
             and not is_list_group(following) and not is_code_group(following)
             and heading_candidate([BULLET.sub(r"\2", group[0])])
             and (_hangs_under(group[0], following) or not group[0][:1].isspace()
                  and not (index and is_list_group(groups[index - 1]))
                  and not (index and groups[index - 1][-1].rstrip().endswith((":", "："))))}
    return found if len(found) >= 2 else set()


def hanging_last_items_apart(groups: list[list[str]]) -> list[list[str]]:
    """A list's last item over a text hanging under it, a blank line apart, set apart from
    the items over it: that text is the item's own, as the part's it is."""
    parts: list[list[str]] = []
    for group, following in itertools.zip_longest(groups, groups[1:]):
        last = len(group) - 1
        if (following and last and all(BULLET.match(line) for line in group)
                and not is_list_group(following) and _hangs_under(group[last], following)):
            parts.extend([group[:last], group[last:]])
        else:
            parts.append(group)
    return parts


def _hangs_under(item: str, text: list[str]) -> bool:
    """Whether a text stands at a bulleted item's text's indent, under its bullet."""
    found = BULLET.match(item)
    column = len(item) - len(found.group(2)) if found else 0
    return column > 0 and all(indent_of(line) == column for line in text)


# A dump that indents its body may indent a feature's name too, its text hanging deeper
# ("  Faster joins" over "    Joins use..."), as lynx shows a definition list and mails and
# forum posts indent a part's names; a paragraph's lines stand at one indent, and a wrapped
# item's hang a mark's width under it: an item opens with its mark ("*) Fixed: ...").
_HANGING_DEPTH = 1


def hanging_head_indent(head: list[str]) -> int:
    """How deep a heading's text must stand under it: any deeper than a heading at the margin,
    two columns deeper than an indented one (not an item's: its text hangs under it)."""
    indents = {indent_of(line) for line in head}
    if indents == {0}:
        return 0
    if len(indents) > 1 or BULLET.match(head[0]) or not head[0].lstrip()[:1].isalnum():
        return len(head[0])
    return indents.pop() + _HANGING_DEPTH
