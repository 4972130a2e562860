"""The heading-like things of a post, as a tree: headings, bold-only paragraphs standing as
headings, and bold-led labeled items. Which of them are features is features.py's call."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from newsletter import lazy_re
from newsletter.models import Stability
from newsletter.summarize import cues
from newsletter.summarize.dates import is_date
from newsletter.summarize.labels import EDGE_SEPARATORS, badge_label, split_label, strip_decoration
from newsletter.summarize.metadata import byline, text_key
from newsletter.text.outline import (
    Block,
    Code,
    Heading,
    ListBlock,
    ListItem,
    Paragraph,
    block_text,
    list_text,
)

# Bold text longer than this is emphasis, not a heading.
_MAX_BOLD_HEADING = 120


@dataclass(eq=False)
class Node:
    """A heading-like thing in the post: a heading, a bold-only paragraph, or a bold-led
    labeled list item or paragraph (always a leaf)."""

    level: int
    heading: str
    stability: Stability | None
    aside: bool
    leaf: bool
    # Where it stands in the outline, and whether a scrape's layout suggested it.
    block_index: int
    guessed: bool = False
    # A guessed heading the dump's layout shows is no caption (Heading.at_margin).
    at_margin: bool = False
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    # Led by an emoji, as some sites lead every feature heading.
    decorated: bool = False
    # A bold-only paragraph standing as a heading: its part ends at the next real heading.
    bold: bool = False
    # Has paragraphs of its own before the next heading-like thing, or anything at all.
    has_prose: bool = False
    prose_chars: int = 0
    has_list: bool = False
    # Its text opens with a statement, not a line introducing what follows.
    opens_with_statement: bool = False
    # Its text opens with its own name ("Sync 2.0 drops ..."): it tells of the thing it names.
    opens_naming_itself: bool = False
    empty: bool = False
    # Its one line says the release brings nothing of it ("There is no new X in this release.").
    says_nothing: bool = False
    # Set by features.py: a cue or its place keeps it (and what it holds) from being news;
    # it announces a feature; it has features beneath it; it groups them.
    excluded: bool = False
    feature: bool = False
    holds_features: bool = False
    section: bool = False
    # Why it is, or is not, a feature: the rule that decided, in a few words.
    reason: str = ""


def _node(text: str, level: int, block_index: int, *, leaf: bool = False, guessed: bool = False,
          at_margin: bool = False, badge: str | None = None) -> Node:
    heading, stability = split_label(text)
    if stability is None and badge:
        heading, stability = badge_label(heading, badge)
    # A heading that ends in a colon introduces what follows ("An example:"), one that
    # ends in a question mark frames the text ("What's next?"): asides.
    aside = text.rstrip().endswith((":", "：", "?", "？")) and not leaf
    if leaf:
        heading = heading.rstrip(EDGE_SEPARATORS)
    return Node(level, heading, stability, aside, leaf, block_index, guessed, at_margin,
                decorated=strip_decoration(text)[1])


def outline_nodes(blocks: tuple[Block, ...], skipped: set[int],
                  author: str | None) -> tuple[list[Node], list[tuple[int, str]]]:
    """The heading-like things in document order, each linked to its parent; and the
    lines a scrape made headings that are figure captions (index, text)."""
    nodes: list[Node] = []
    captions: list[tuple[int, str]] = []
    open_nodes: list[Node] = []
    heading_level = 0

    def add(node: Node, *, bold: bool = False) -> None:
        node.bold = bold
        # A real heading closes the parts bold paragraphs opened ("**Contents**" over a
        # list): the author's headings, not the bold line's guessed level, make the tree.
        while open_nodes and (open_nodes[-1].level >= node.level or open_nodes[-1].bold and not bold and not node.leaf):
            open_nodes.pop()
        node.parent = open_nodes[-1] if open_nodes else None
        if node.parent:
            node.parent.children.append(node)
        nodes.append(node)
        if not node.leaf:
            open_nodes.append(node)

    def inner_level() -> int:
        return (open_nodes[-1].level if open_nodes else heading_level) + 1

    bold_items = _bold_item_runs(blocks)
    lead_parts = bold_lead_parts(blocks)
    for index, block in enumerate(blocks):
        if index in skipped:
            continue
        match block:
            case Paragraph() if index in bold_items:
                add(_node(block.text, inner_level(), index, leaf=True))
            case Paragraph(lead=str(lead)) if index in lead_parts:
                add(_node(_labeled_lead(block.text, lead) or _without_stop(lead), inner_level(), index, leaf=True))
            case Heading() if author and block.text.strip().casefold() == author.casefold():
                # The author's name on a line of its own signs the post (a mail's signature): no part.
                pass
            case Heading() if cues.CREDIT_LINE.match(block.text):
                # Who made the change signs its part: what stands under the line is the part's.
                pass
            case Heading(guessed=True, at_margin=False) if nodes and _is_caption(blocks, index):
                # The body's first heading opens its first part: captions sit among the parts.
                captions.append((index, block.text))
            case Heading():
                heading_level = block.level
                add(_node(_without_date_set_apart(block.text), block.level, index, guessed=block.guessed,
                          at_margin=block.at_margin, badge=block.badge))
            case Paragraph(lead=str(lead)) if lead == block.text:
                # A bare bold line right after bold lines that head their text is one more
                # item among them ("**Dark theme**" over the next item's bold line).
                after_bold = bool(nodes) and nodes[-1].bold and _bare_bold(blocks, index, author)
                if _bold_heading(blocks, index, author) or after_bold:
                    add(_node(block.text, heading_level + 1, index), bold=True)
            case Paragraph(lead=str()) if labeled := _labeled_lead(block.text, block.lead):
                add(_node(labeled, inner_level(), index, leaf=True))
            case ListBlock():
                # A changelog nests its items under the package they change.
                for item in _items_in_order(block.items):
                    if labeled := _labeled_lead(item.text, item.lead):
                        add(_node(labeled, inner_level(), index, leaf=True))
    return nodes, captions


# A plain changelog sets a release's date apart at the right of its line ("Changes with Lumen
# 2.1          12 Mar 2025"): the date is the part's, no word of its name.
_SET_APART = lazy_re.compile(r"\s{3,}")


def _without_date_set_apart(text: str) -> str:
    if "   " not in text:
        return text
    parts = _SET_APART.split(text.strip())
    return parts[0] if len(parts) == 2 and is_date(parts[1]) else text


def _items_in_order(items: tuple[ListItem, ...]) -> Iterator[ListItem]:
    for item in items:
        yield item
        yield from _items_in_order(item.children)


# An item naming a feature after its area is a line, not a paragraph.
_AREA_ITEM_CHARS = 100
# A bracketed label right after an item's bold lead ("**Sync** [beta] - does y").
_NUMBER_BEFORE_LEAD = 12
_LABEL_AFTER_LEAD = lazy_re.compile(r"[ \t]*[(\[（【][^()\[\]（）【】]{1,30}[)\]）】]")


# The name after a label: up to the clause's end ("`sync.mode`, a new option").
_NAME_AFTER_LABEL = lazy_re.compile(r"\s*([^\s,;:]+(?:\s[^\s,;:]+){0,7}?)(?:[,;:]\s|\s[-–—]\s|\.\s|\.?$)")


def _labeled_lead(text: str, lead: str | None) -> str | None:
    """An item's bold lead with the maturity label it carries, inside the bold or right
    after it: a labeled item names a feature."""
    if not lead:
        return None
    name, label = split_label(lead)
    if label and not name.strip():
        # A lead that is the label alone ("**[beta]** `sync.mode`, a new...") labels the name after it.
        named = _NAME_AFTER_LABEL.match(text, text.find(lead) + len(lead))
        return f"{lead} {named.group(1)}" if named and text.startswith(lead) else None
    if label:
        # A lead written as a sentence ("**(Beta) Faster sync.** It now...") names it without its stop.
        return _without_stop(lead)
    # A lead naming the area ("**Storage:** the etcd backend (deprecated) (#40)") leads the
    # item's name, which is the item's short text.
    if lead.rstrip().endswith((":", "：")) and text.startswith(lead) and len(text) <= _AREA_ITEM_CHARS \
            and split_label(text)[1]:
        return text
    # The lead may follow the change's number ("#4821 **Sync** (beta)").
    start = text.find(lead)
    after = _LABEL_AFTER_LEAD.match(text, start + len(lead)) if 0 <= start <= _NUMBER_BEFORE_LEAD else None
    return lead + after.group() if after and split_label(after.group().strip())[1] else None


# A run of paragraphs opening with a bold sentence is the post's parts when there are a few.
_LEAD_PARTS = 3
# A sentence's full stop, in Latin, CJK and Devanagari script.
_STOPS = (".", "。", "।")


def bold_lead_parts(blocks: tuple[Block, ...]) -> set[int]:
    """The indexes of paragraphs opening with a bold sentence ("**Faster sync.** It now..."),
    three or more with no heading among them: the parts of a post (or of its one part) that
    has no other headings for its news; or, wherever three of them stand in a row, the post's
    way of heading its parts under its headings. Then a bold sentence alone right after one
    of them is one more ("**Widgets.**"), and so is one led by a bold clause."""
    found = [index for index, block in enumerate(blocks)
             if isinstance(block, Paragraph) and block.lead and block.lead != block.text
             and block.lead.rstrip().endswith(_STOPS) and block.text.startswith(block.lead)]
    unheaded = len(found) >= _LEAD_PARTS and not any(isinstance(block, Heading)
                                                     for block in blocks[found[0]:found[-1]])
    if not unheaded and not _in_a_row(set(found), _LEAD_PARTS):
        return set()
    return {*found, *(index + 1 for index in found if index + 1 < len(blocks)
                      and (_bold_sentence(blocks[index + 1]) or _bold_clause(blocks[index + 1])))}


def _bold_clause(block: Block) -> bool:
    """A paragraph led by a bold clause its sentence goes on from after a comma ("**Python
    3.9 is no longer supported**, as announced."): one more part, right after one."""
    lead = block.lead if isinstance(block, Paragraph) else None
    return bool(lead) and block_text(block).startswith((f"{lead},", f"{lead}，"))


def _in_a_row(indexes: set[int], count: int) -> bool:
    return any(all(index + step in indexes for step in range(1, count)) for index in indexes)


def _bold_sentence(block: Block) -> bool:
    return _is_bold_only(block) and block_text(block).rstrip().endswith(_STOPS)


def _without_stop(lead: str) -> str:
    stripped = lead.rstrip()
    return stripped[:-1].rstrip() if stripped.endswith(_STOPS) else stripped


def _bold_item_runs(blocks: tuple[Block, ...]) -> set[int]:
    """The indexes of bold-only paragraphs that are all a part holds, two or more from its
    heading to the next: each names one item of the part, as bare sub-headings would."""
    found: set[int] = set()
    for index, block in enumerate(blocks):
        if not isinstance(block, Heading):
            continue
        end = index + 1
        while end < len(blocks) and _is_bold_only(blocks[end]):
            end += 1
        if end - index > 2 and (end == len(blocks) or isinstance(blocks[end], Heading)):
            found.update(range(index + 1, end))
    return found


def _is_bold_only(block: Block) -> bool:
    return isinstance(block, Paragraph) and block.lead == block.text and len(block.text) <= _MAX_BOLD_HEADING


# Words of five letters or more, acronyms and numbers, runs of CJK characters, the
# parts of a code name ("vmod_unix": "vmod", "unix"), which the text may name apart, and a
# short name with its version ("Qt 6").
_WORD = lazy_re.compile(r"[^\W\d_]{5,}|(?<=_)[^\W\d_]{4}\b|\b[^\W\d_]{4}(?=_)|"
                        r"\b[A-Z0-9][A-Z0-9]+\b|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}|\b[A-Z][a-z]{1,3} \d+\b")


def names_its_text(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a heading shares a word with the text under it. A feature heading names
    what that text is about; a figure caption a scrape left between two paragraphs does
    not."""
    following = " ".join(block_text(b) or list_text(b) for b in blocks[index + 1:index + 3])[:1000]
    return _shares_a_word(block_text(blocks[index]), following)


_GROUP_WORDS = 6
_VERSION = lazy_re.compile(r"\bv?\d+\.\d+")


def _is_caption(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a line a scrape's layout made a heading is a figure's caption: it speaks of
    the paragraph above it, not of the text below. A line carrying a maturity label
    announces a feature, never a caption."""
    previous = blocks[index - 1] if index else None
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    # Right above a labeled heading, a line groups features: captions sit on prose. So does
    # a release's name ranked above the heading under it, as a roundup groups its news by
    # release ("Lumen Server 5.2"): a caption names no version.
    block = blocks[index]
    group_level = block.level if isinstance(block, Heading) and len(block.text.split()) <= _GROUP_WORDS \
        and _VERSION.search(block.text) else None
    # A line the layout ranked above the line under it, naming a kind of change ("Various
    # kernel improvements"), groups that line too.
    above_a_feature = isinstance(following, Heading) and (
        bool(split_label(following.text)[1]) or group_level is not None and following.level > group_level
        or following.guessed and isinstance(block, Heading) and following.level > block.level
        and cues.ends_naming_changes(block.text))
    # An emoji leading it, as it leads the feature's name above the paragraph, marks a feature too.
    led_as_above = index > 1 and isinstance(blocks[index - 2], Heading) and all(
        strip_decoration(block_text(heading))[1] for heading in (block, blocks[index - 2]))
    # A part's generic name ("Changes", "変更点") opens the part, whatever it shares with the text above.
    return (isinstance(previous, Paragraph) and not split_label(block_text(blocks[index]))[1] and not above_a_feature
            and not led_as_above and not cues.is_grouping_name(block_text(block))
            and not names_its_text(blocks, index)
            and _shares_a_word(block_text(blocks[index]), previous.text[-1000:]))


def _shares_a_word(heading: str, text: str) -> bool:
    """Words compare by their first five letters anywhere in the text ("compilation",
    "recompiled"), or by a root of four the text has as a word, inflected ("Linter" and "lint",
    "Typed" and "type"), acronyms whole, CJK by pairs of characters, and a compound by its
    last word ("Leistungsverbesserungen" where the text says "Verbesserungen")."""
    lowered = text.lower()
    tails: set[str] | None = None
    for word in _WORD.findall(heading):
        if "\u3040" <= word[0]:
            if any(word[i:i + 2] in text for i in range(len(word) - 1)):
                return True
        elif word[0].isupper() and word.isupper() or word.isdigit():
            if re.search(rf"\b{re.escape(word)}\b", text):
                return True
        elif (stem := word.lower().removesuffix("s"))[:5] in lowered or (
                stem[4:] in _INFLECTIONS and stem[:4] in lowered and re.search(rf"\b{re.escape(stem[:4])}\b", lowered)):
            return True
        elif len(word) >= _COMPOUND:
            tails = _compound_tails(lowered) if tails is None else tails
            if any(word.lower().endswith(tail) for tail in tails):
                return True
    return False


# What turns a root of four letters into a word of the heading ("lint" into "Linter", "type"
# into "Typed"); not any ending ("with" is no root of "without", nor "over" of "overview").
_INFLECTIONS = {"r", "er", "ers", "d", "ed", "ing", "s"}
# A word this long may join two (German, Dutch, Scandinavian write compounds as one); the
# text's words that may end it are long enough to mean something alone.
_COMPOUND = 12
_COMPOUND_TAIL = lazy_re.compile(r"[^\W\d_]{6,}")


def _compound_tails(lowered: str) -> set[str]:
    return set(_COMPOUND_TAIL.findall(lowered))


# A name and its value, one token with a digit: "Docker tag: 2.1.0", "Version: v3".
_STATED_VALUE = lazy_re.compile(r"[^:：\n]{1,40}[:：]\s*\S*\d\S*")
# A figure's or a table's caption, numbered: "Figure 1: ...", "Fig. 2.", "图 3：", "표 1.".
_NUMBERED_CAPTION = lazy_re.compile(r"(?:fig(?:ure)?\.?|table|图|圖|図|表|그림|표)\s*\d+\s*[:.：]", re.IGNORECASE)


def _bold_heading(blocks: tuple[Block, ...], index: int, author: str | None) -> bool:
    """A bold-only paragraph stands as a heading when prose follows it; not when it is a
    sign-off, a byline, a numbered caption, a fact stated as a value ("Docker tag: 2.1.0"),
    or a long emphasised sentence."""
    text = block_text(blocks[index])
    following = next((blocks[i] for i in range(index + 1, len(blocks)) if not isinstance(blocks[i], Code)), None)
    return (len(text) <= _MAX_BOLD_HEADING and following is not None and not isinstance(following, Heading)
            and not _NUMBERED_CAPTION.match(text) and not _STATED_VALUE.fullmatch(text.strip())
            and not (isinstance(following, Paragraph) and following.lead == following.text)
            and not byline(text) and text_key(text) != text_key(author or ""))


def _bare_bold(blocks: tuple[Block, ...], index: int, author: str | None) -> bool:
    """A short bold line with nothing under it: the next block heads something else."""
    text = block_text(blocks[index])
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    return (len(text) <= _MAX_BOLD_HEADING and (following is None or isinstance(following, Heading)
                                                or _is_bold_only(following))
            and not byline(text) and text_key(text) != text_key(author or ""))
