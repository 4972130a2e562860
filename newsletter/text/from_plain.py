"""Plain text: reST-style underlined headings, or scrapes that lost their markup."""

from __future__ import annotations

import dataclasses
import itertools
import re
import textwrap
from collections import Counter
from collections.abc import Iterator

from newsletter import lazy_re
from newsletter.text.code_parts import captions_code, opens_a_shown_part
from newsletter.text.copied_runs import copied_lines, heads_indented_text, over_indented_paragraph
from newsletter.text.dump_links import page_text, without_page_controls
from newsletter.text.dump_parts import (
    HEADING_ITEMS,
    NUMBERED_LINE,
    bulleted_parts_of,
    centered_blocks,
    centered_lines,
    centered_title,
    contents_levels,
    first_of_a_group,
    glued_headings_apart,
    hanging_head_indent,
    hanging_items,
    hanging_last_items_apart,
    items_over_their_text,
    numbered_parts_of,
    unwrapped_copy,
)
from newsletter.text.dump_title import header_blocks, title_group, underlined_title_only
from newsletter.text.from_html import bare_urls, squash_space
from newsletter.text.heading_runs import groups_in_heading_runs, subgroups_under_parts
from newsletter.text.org_outline import starred_outline
from newsletter.text.outline import (
    Block,
    Heading,
    ListBlock,
    Paragraph,
    block_text,
)
from newsletter.text.outline_numbers import without_outline_numbers
from newsletter.text.plain_lines import (
    BULLET,
    CODE_INDENT,
    MAX_HEADING_CHARS,
    MAX_TITLE_CHARS,
    PART_MARK,
    SENTENCE_ENDS,
    UNDERLINE,
    columns,
    has_underlined_heading,
    heading_candidate,
    in_capitals,
    indent_of,
    is_code_group,
    is_list_group,
    is_underline,
    line_runs,
    looks_like_code,
    peer_lines,
    plain_block,
    with_o_items_marked,
)
from newsletter.text.rest_inline import ROLE_NAME, rest_inline, with_roles_joined
from newsletter.text.starred_lines import starred_as_underlined
from newsletter.text.unmarked_items import unmarked_lists

# One word in brackets opening or ending a line: "[Beta] Zones", "Zones (deprecated)".
_BRACKETED_WORD_AT_AN_END = lazy_re.compile(r"^[\[(][^\W\d_]+[\])]\s|\s[\[(][^\W\d_]+[\])]$")


# A row of links set apart by bars ("© Ada | Privacy | Contact"), as a page's footer is.
_LINK_ROW = lazy_re.compile(r"\S\s+\|\s+\S.*\s\|\s+\S")
# A line framed by one run of marks on both sides: "== Changes ==", "*** Fixes ***".
_FRAMED = lazy_re.compile(r"\s*([=*#~-]{2,})\s+(\S.*?)\s+\1\s*")
_BARRED = lazy_re.compile(r"\S\s+\|\s+\S")
_SHORTCODE = lazy_re.compile(r"\s*(?:\{\{.*\}\}|\{%.*%\})\s*$")
# A linked picture as w3m shows it, its link's number before its alt text: "[20][Release banner]".
_LINKED_PICTURE = lazy_re.compile(r"\s*\[\d{1,4}\]\[[^\[\]]{1,120}\]\s*$")


def text_blocks(text: str) -> tuple[Block, ...]:
    text = with_o_items_marked(text)
    outlined = starred_outline(text, text_blocks)
    if outlined is not None:
        return outlined
    groups = line_runs(starred_as_underlined(text))
    groups = without_page_controls(groups)
    title = None
    if has_underlined_heading(groups):
        marked_up = _is_rest(groups)
        title = None if marked_up else underlined_title_only(groups)
        if title is None:
            underlined = tuple(_underlined_blocks(groups, marked_up=marked_up))
            return underlined if marked_up else without_outline_numbers(underlined)
        groups = [group for group in [groups[0][2:], *groups[1:]] if group]
    # A raw post read as text shows what its site would have rendered: shortcodes, heading
    # attributes.
    groups = [[page_text(line, alone=len(group) == 1) for line in group]
              for group in groups if not all(_SHORTCODE.match(line) or _LINKED_PICTURE.match(line) for line in group)]
    copy = unwrapped_copy(groups)
    if copy:
        groups = copied_lines(groups)
    # A dump that indents its paragraphs (lynx does) leaves only its headings at the margin:
    # an indented line standing alone there is a link, a caption or a button.
    indented = _indents_its_body(groups)
    margin_only = indented and _parts_at_margin(groups)
    indented_parts = indented and not margin_only
    if not indented and not copy:
        groups = unmarked_lists(groups)
    # lynx indents a sub-heading less than the body ("  Faster joins" over "   Joins are..."):
    # under a part at the margin, a lone line there is one level down, not a link. The layout
    # marks it as surely as markup would: it is no guess.
    body_indent = _body_indent(groups) if margin_only else 0
    parts_at_margin = 0
    sub_parts = 0

    def sub_heading(group: list[str]) -> bool:
        return parts_at_margin > 0 and 0 < indent_of(group[0]) < body_indent and not _LINK_ROW.search(group[0])

    # And one level further down it indents a heading more than the body ("    GC compaction"
    # under "  Runtime"): a lone line there, with text at the body's indent or a heading next,
    # under a sub-heading. Code stands deeper too, but in runs of lines or after a colon.
    def deep_line(group: list[str]) -> bool:
        return sub_parts > 0 and len(group) == 1 and indent_of(group[0]) > body_indent and heading_candidate(group)

    def deep_heading(group: list[str], following: list[str] | None) -> bool:
        return deep_line(group) and following is not None and (
            indent_of(following[0]) <= body_indent or deep_line(following))

    # A dump that names its parts at the body's indent shows its links there too: a row of
    # them set apart by bars ("Previous: X | Next: Y") is no part.
    def heads(group: list[str], limit: int = MAX_HEADING_CHARS) -> bool:
        return heading_candidate(group, limit) and not (margin_only and group[0][:1].isspace()
                                                         and not sub_heading(group)) and not (
            indented_parts and _BARRED.search(group[0]))

    blocks: list[Block] = [Heading(1, title)] if title else []
    opening = title_group(groups, heads) if not blocks else None
    if opening is not None:
        # A scrape may open with its title and a line or two of byline and date, unspaced,
        # maybe under the site's header.
        start, end = opening
        blocks.extend(block for group in groups[:start] for block in header_blocks(group))
        (title, *details), groups = [line for group in groups[start:end] for line in group], groups[end:]
        blocks.append(Heading(1, title.strip(), guessed=True))
        blocks.extend(Paragraph(line.strip()) for line in details)
    groups, part_ends = glued_headings_apart(
        [part for group in groups for part in _heading_over_indented_text(_unwrapped(group))])
    groups = hanging_last_items_apart(items_over_their_text(groups))
    centered = centered_lines(groups)
    if centered and not blocks:
        return tuple(centered_blocks(groups, centered))
    # A dump that indents its body and centers only its title marks the title by layout.
    title_line = centered_title(groups) if margin_only and not blocks else None
    numbered = sum(1 for group in groups if (_numbered_heading(group) or (1,))[0] >= 2) >= 2
    numbered_parts = numbered_parts_of(groups) | bulleted_parts_of(groups)
    capital_groups = any(len(group) == 1 and in_capitals(group[0]) for group in groups)
    headed = bool(blocks)  # the opening title above
    for index, group in enumerate(groups):
        following = groups[index + 1] if index + 1 < len(groups) else None
        headed = headed or bool(blocks) and isinstance(blocks[-1], Heading)
        if numbered:
            # A dump that numbers its headings ("2.1 Packed structs") keeps its outline in
            # the numbers; past the title, a line without one is the page's (a "Support
            # table", "Downloads"), not a part of the post.
            found = _numbered_heading(group)
            if found:
                blocks.append(Heading(*found))
                continue
            if headed:
                blocks.append(plain_block(group))
                continue
        framed = _FRAMED.fullmatch(group[0]) if len(group) == 1 else None
        if framed and heading_candidate([framed.group(2)]):
            # A mail frames its parts' names in marks ("== Changes =="), as surely as markup.
            blocks.append(Heading(1, framed.group(2)))
            continue
        if index in numbered_parts:
            line = group[0].strip()
            # A part's number is list numbering, as a bullet is layout: neither is its name.
            # Numbers running through the parts mark them as surely as markup would.
            numbered_line = NUMBERED_LINE.match(line) is not None
            blocks.append(Heading(2, BULLET.sub(r"\2", line), guessed=not numbered_line))
            continue
        if index == title_line:
            blocks.append(Heading(1, group[0].strip()))
            continue
        if margin_only and deep_heading(group, following):
            blocks.append(Heading(4, group[0].strip()))
            continue
        # A post's title, its first line, runs longer than its headings. A version's name
        # over code captions it.
        limit = MAX_TITLE_CHARS if index == 0 and not blocks else MAX_HEADING_CHARS
        if heads(group, limit) and following is not None and not captions_code(group, following):
            if sub_heading(group):
                sub_parts += 1
                blocks.append(Heading(3, group[0].strip()))
                continue
            parts_at_margin += index > 0 and not group[0][:1].isspace()
            # Except one carrying a label in brackets ("Zones [beta]") after a feature's text:
            # one more feature, not a group. A line over one indented deeper groups it still,
            # whatever it brackets ("Major features (relay)").
            labeled_after_text = bool(blocks) and not isinstance(blocks[-1], Heading) \
                and _BRACKETED_WORD_AT_AN_END.search(group[0].strip()) is not None \
                and indent_of(following[0]) <= indent_of(group[0])
            below = groups[index + 2] if index + 2 < len(groups) else None
            if (heads(following) and not sub_heading(following) and group[0] not in part_ends
                    and not captions_code(following, below)
                    and not labeled_after_text and not first_of_a_group(blocks, following)
                    and not peer_lines(group[0], following[0], capital_groups=capital_groups,
                                       after_text=bool(blocks) and not isinstance(blocks[-1], Heading))
                    or index + 1 in numbered_parts):
                # A heading right above another heading groups the ones below it.
                blocks.append(Heading(1, group[0].strip(), guessed=True))
                continue
            # A copied page's heading lost its markup, but not its place: a line at the margin
            # with no colon over a list heads it (a sentence introducing a list ends in one).
            # Its text may end in code indented deeper.
            # Under a part's name, a line over code names a feature shown by its code alone;
            # so does one carrying a label in brackets anywhere.
            # So does one after a part's text, over its code and the text telling it.
            over_code = is_code_group(_text_lines(following)) and not _BRACKETED_WORD_AT_AN_END.search(group[0].strip())
            if (not over_code or blocks and isinstance(blocks[-1], Heading) or opens_a_shown_part(groups, index)) and (
                    not is_list_group(following) or copy and not group[0][:1].isspace()):
                blocks.append(Heading(2, group[0].strip(), guessed=not heads_indented_text(group, following, copy),
                                      at_margin=margin_only and over_indented_paragraph(group, following)))
                continue
        blocks.append(plain_block(group))
    blocks = contents_levels(_raise_introducing_headings(list(groups_in_heading_runs(blocks))))
    return tuple(subgroups_under_parts(blocks))


_SECTION_NUMBER = lazy_re.compile(r"([1-9]\d?(?:\.[1-9]\d?)*)\.?\s+(\S.*)")


def _numbered_heading(group: list[str]) -> tuple[int, str] | None:
    """A lone line that a section number opens, as (level, text): "1.2 Faster joins" is
    (2, "Faster joins"). Section numbers start at 1: "0.13.0 Release Notes" is a title."""
    found = _SECTION_NUMBER.fullmatch(group[0].strip()) if len(group) == 1 else None
    if found is None or not heading_candidate([found.group(2)]):
        return None
    return found.group(1).count(".") + 1, found.group(2)


# Lines long enough to be a paragraph's, not a heading's or a link's, in columns.
_PROSE_LINE = 40
_MIN_PROSE_LINES = 5
# The share of them a dump must indent to be read as indenting its body.
_INDENTED_SHARE = 0.8


def _is_prose_line(line: str) -> bool:
    """Whether a line is long enough to be a paragraph's. A dump wraps its lines at a number
    of columns, and a Chinese, Japanese or Korean character takes two: such a line holds
    half as many characters."""
    text = line.strip()
    if len(text) >= _PROSE_LINE or len(text) < _PROSE_LINE // 2:
        return len(text) >= _PROSE_LINE
    return columns(text) >= _PROSE_LINE


def _indents_its_body(groups: list[list[str]]) -> bool:
    # A long line at the margin may name a part ("feature: added x()"): no paragraph of the body.
    return _mostly_indented(groups) or _mostly_indented(
        [group for group in groups if group[0][:1].isspace() or not heading_candidate(group[:1])])


def _mostly_indented(groups: list[list[str]]) -> bool:
    prose = [line for group in groups if not is_list_group(group) for line in group
             if _is_prose_line(line) and not looks_like_code(line)]
    indented = sum(1 for line in prose if line[:1].isspace())
    return len(prose) >= _MIN_PROSE_LINES and indented >= len(prose) * _INDENTED_SHARE


def _parts_at_margin(groups: list[list[str]]) -> bool:
    """Whether a dump sets any part's name at the margin, over text; lynx's list of the
    links it numbered ("References" over URLs) is its own. A dump whose every line is
    indented names its parts at the body's indent."""
    return any(heading_candidate(group) and not group[0][:1].isspace() and not all(
        "://" in line for line in following) for group, following in itertools.pairwise(groups))


def _body_indent(groups: list[list[str]]) -> int:
    """How far a dump indents its paragraphs: the indentation most of its prose lines share."""
    indents = Counter(indent_of(line) for group in groups if not is_list_group(group) for line in group
                      if _is_prose_line(line) and not looks_like_code(line))
    return indents.most_common(1)[0][0] if indents else 0


def _heading_over_indented_text(group: list[str]) -> list[list[str]]:
    """A heading at the margin right over its indented text, no blank line between, as
    mail announcements and plain-text changelogs write them ("XP-12: Faster joins" over
    "  Joins are faster now."), is a heading and a paragraph, maybe with code indented
    deeper under it. A long heading may wrap at the margin onto a second line."""
    for cut in (1, 2):
        head, body = group[:cut], group[cut:]
        if not body or not all(indent_of(line) > hanging_head_indent(head) for line in body):
            continue
        if cut == 2 and len(head[0]) < _WRAPPED_LINE:
            continue
        joined = " ".join(line.strip() for line in head)
        text = _text_lines(body)
        if (heading_candidate([joined]) and not is_list_group(body) and not is_code_group(text)
                and text[-1].rstrip().endswith(SENTENCE_ENDS)):
            return [[joined], body]
    return [group]


def _text_lines(body: list[str]) -> list[str]:
    """A heading's text without the code indented deeper than the text, at its end or
    amid it (a sentence introducing a command, and one more after it)."""
    indent = indent_of(body[0])
    return [line for line in body if indent_of(line) <= indent]


# A dump wraps lines at its column width (lynx and w3m at 72-80): a first line this long
# may have been cut there.
_WRAPPED_LINE = 60


def _unwrapped(group: list[str]) -> list[str]:
    """A title the dump wrapped over two lines is one line again, at the first line's indent
    (which tells a dump's headings from its body)."""
    if len(group) == 2 and len(group[0].strip()) >= _WRAPPED_LINE and not BULLET.match(group[0]):
        joined = f"{group[0].rstrip()} {group[1].strip()}"
        if heading_candidate([joined], MAX_TITLE_CHARS):
            return [joined]
    return group


# A part's opening text: the blocks between its heading and the first heading inside it.
_OPENING_BLOCKS = 2
# What a line may introduce that a scrape drops ("in the video below:"): not headings.
_MEDIA = lazy_re.compile(r"\b(?:videos?|recordings?|screencasts?|screenshots?|images?|pictures?|animations?|gifs?|"
                         r"diagrams?|charts?)\b|视频|截图|動画|画像|영상", re.IGNORECASE)


def _raise_introducing_headings(blocks: list[Block]) -> list[Block]:
    """A heading whose text ends by introducing what follows ("Details are below:"), or
    that lists the headings below it (a part's own contents), groups the headings after it."""
    heading_indexes = [i for i, block in enumerate(blocks) if isinstance(block, Heading)]
    last_seen = {_text_key(block_text(blocks[i])): i for i in heading_indexes}
    for index, following in itertools.pairwise(heading_indexes):
        last = blocks[following - 1]
        # Only a part's opening text introduces its headings: further down, a colon
        # introduces code or a figure.
        introduces = (index + 1 < following <= index + _OPENING_BLOCKS + 1 and isinstance(last, Paragraph)
                      and last.text.endswith((":", "：")) and not _MEDIA.search(last.text))
        lists_below = any(
            isinstance(block, ListBlock)
            and sum(1 for item in block.items if last_seen.get(_text_key(item.text), -1) >= following) >= 2
            for block in blocks[index + 1:following])
        heading = blocks[index]
        if isinstance(heading, Heading) and heading.level == 2 and (introduces or lists_below):
            blocks[index] = Heading(1, heading.text, guessed=True)
    return blocks


def _text_key(text: str) -> str:
    return " ".join(text.casefold().split())


# A one-line paragraph that is all bold, code between bold runs and a maturity label after
# them allowed ("**Faster** ``x`` **on y**", "**Sync** (beta)"): it heads the text under it.
_REST_BOLD_LINE = lazy_re.compile(r"\*\*\S[^*]*?\*\*(?:[ \t]*``[^`]+``[ \t]*\*\*\S[^*]*?\*\*)*"
                                  r"(?:[ \t]*[(\[][^()\[\]]{1,30}[)\]])?")
# Explicit markup that is not a comment: a directive ("note::"), a link target ("_label:"),
# a footnote or citation ("[1]"), a substitution ("|name|").
_REST_EXPLICIT = lazy_re.compile(r"\.\. (?:[\w:.+-]+::|_|\[|\|)")


# reST's own markup beside its underlines: directives and comments (".. note::"), roles,
# a paragraph ending in "::" before a literal block.
_REST_MARKUP = lazy_re.compile(r"^\.\. |" + ROLE_NAME + r"|::$")


def _is_rest(groups: list[list[str]]) -> bool:
    return any(_REST_MARKUP.search(line.strip()) for group in groups for line in group)


# reST's boxes beside the text: notes, warnings, version notes.
_REST_BOX = lazy_re.compile(r"\.\. (?:note|tip|hint|important|attention|caution|warning|danger|error|admonition|"
                            r"seealso|versionadded|versionchanged|deprecated)::", re.IGNORECASE)


def _box_block(lines: list[str]) -> Block:
    """A run of lines inside a reST box: what it lists is an aside to the post (a note of
    minimum versions), never the post's highlights."""
    block = plain_block(textwrap.dedent("\n".join(rest_inline(line) for line in lines)).split("\n"))
    return dataclasses.replace(block, quoted=True) if isinstance(block, ListBlock) else block


def _starts_with_underlined_heading(group: list[str]) -> bool:
    return len(group) >= 2 and (is_underline(group[1], group[0]) and not UNDERLINE.match(group[0])
                                or len(group) >= 3 and is_underline(group[0], group[1]))


def _underlined_blocks(groups: list[list[str]], *, marked_up: bool) -> Iterator[Block]:
    """reST-style text: a heading is a line underlined (and maybe overlined) with one
    repeated punctuation character; levels follow the order in which styles first appear.
    Plain text that underlines only its parts (no other reST markup) leaves their
    sub-headings as short lines standing alone over prose, as a scrape does: those are
    headings one level down. In reST a line standing alone is a paragraph."""
    styles: list[tuple[str, bool]] = []
    level = 0
    in_box = in_comment = False
    # Whether the part under way hangs its features' text under their names; whether any
    # part did.
    hanging = hangs = False
    for index, group in enumerate(groups):
        # Comments (a bare ".." over indented lines too), link targets and directives
        # (".. contents::", ".. _label:") are markup; a box's directive (".. note::") holds
        # the indented lines under it.
        if group[0].startswith(".. ") or group[0].rstrip() == "..":
            in_box = bool(_REST_BOX.match(group[0]))
            in_comment = not _REST_EXPLICIT.match(group[0])
            if in_box and len(group) > 1:
                yield _box_block(group[1:])
            continue
        if (in_box or in_comment) and all(line[:1].isspace() for line in group):
            # A comment's indented lines go on past blank lines, as a box's do.
            if in_box:
                yield _box_block(group)
            continue
        in_box = in_comment = False
        # A rule of asterisks is an underline, not bold text.
        lines = [line if UNDERLINE.match(line) else rest_inline(line) for line in with_roles_joined(group)]
        while lines:
            overline = len(lines) >= 3 and is_underline(lines[0], lines[1]) and is_underline(lines[2], lines[1])
            if overline or (len(lines) >= 2 and is_underline(lines[1], lines[0]) and not UNDERLINE.match(lines[0])):
                title = lines[1] if overline else lines[0]
                style = ((lines[2] if overline else lines[1]).strip()[0], bool(overline))
                if style not in styles:
                    styles.append(style)
                level = styles.index(style) + 1
                yield Heading(level, PART_MARK.sub("", title.strip()))
                hanging = False
                lines = lines[3 if overline else 2:]
                continue
            following = groups[index + 1] if index + 1 < len(groups) else None
            items = hanging_items(lines) if not marked_up and len(lines) == len(group) else None
            if items and len(items) >= HEADING_ITEMS:
                # A mail may bullet its features' names ("* Faster joins" over "  Joins are
                # faster."): the hanging indent marks them as surely.
                for head, body in items:
                    yield Heading(level + 1, head)
                    yield from (plain_block(part) for part in body)
                hanging = True
                break
            # A mail's features stand over their indented text under underlined parts too; a
            # long first line there is a hanging indent's ("[*] We count ..."), one paragraph.
            short_head = len(lines[0].strip()) < _WRAPPED_LINE and not marked_up and len(lines) == len(group)
            split = _heading_over_indented_text(lines) if short_head else [lines]
            if len(split) == 2:
                # The hanging indent marks the heading as surely as markup would: no guess.
                yield Heading(level + 1, split[0][0])
                yield plain_block(split[1])
                hanging = hangs = True
            elif (hangs and not marked_up and len(lines) == len(group) and not lines[0][:1].isspace()
                    and heading_candidate(lines[:1]) and all(line[:1].isspace() for line in lines[1:])):
                # Where the post hangs its features' text under their names, a name at the
                # margin over nothing, or over code alone, is one more feature.
                yield Heading(level + 1, lines[0].strip(), guessed=True)
                if len(lines) > 1:
                    yield plain_block(lines[1:], indented_is_code=True)
            elif (not marked_up and len(lines) == len(group) and heading_candidate(lines) and following is not None
                    and not heading_candidate(following) and not is_list_group(following)
                    and not is_code_group(following)
                    and (not _starts_with_underlined_heading(following) or hanging and level > 0)):
                # A part that hangs its features' text under them may end with one that has
                # none, right above the next part's underlined name.
                yield Heading(level + 1, lines[0].strip(), guessed=True)
            elif marked_up and len(group) == 1 and _REST_BOLD_LINE.fullmatch(group[0].strip()):
                text = squash_space(lines[0])
                yield Paragraph(text, text, bare_urls(text))
            else:
                yield plain_block(lines, indented_is_code=marked_up, code_indent=CODE_INDENT)
            lines = []
