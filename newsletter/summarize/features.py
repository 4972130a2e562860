"""Features: the headings that announce a change, with their labels and sections."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from newsletter.models import Feature
from newsletter.summarize import cues
from newsletter.summarize.labels import EDGE_SEPARATORS, split_label, strip_decoration
from newsletter.summarize.metadata import byline, text_key
from newsletter.text.outline import (
    Block,
    Code,
    Heading,
    ListBlock,
    Paragraph,
    block_text,
    list_text,
)

# Bold text longer than this is emphasis, not a heading.
_MAX_BOLD_HEADING = 120



@dataclass(eq=False)
class _Node:
    """A heading-like thing in the post: a heading, a bold-only paragraph, or a bold-led
    labeled list item or paragraph (always a leaf)."""

    level: int
    heading: str
    stability: str | None
    aside: bool
    leaf: bool
    # Where it stands in the outline, and whether a scrape's layout suggested it.
    block_index: int
    guessed: bool = False
    parent: _Node | None = None
    children: list[_Node] = field(default_factory=list)
    # Led by an emoji, as some sites lead every feature heading.
    decorated: bool = False
    # Has paragraphs of its own before the next heading-like thing, or anything at all.
    has_prose: bool = False
    empty: bool = False
    feature: bool = False
    # Has features anywhere beneath it.
    holds_features: bool = False
    section: bool = False
    # Why it is, or is not, a feature: the rule that decided, in a few words.
    rule: str = ""


def _node(text: str, level: int, block_index: int, *, leaf: bool = False, guessed: bool = False) -> _Node:
    heading, stability = split_label(text)
    # A heading that ends in a colon introduces what follows ("An example:"), one that
    # ends in a question mark frames the text ("What's next?"): asides.
    aside = text.rstrip().endswith((":", "：", "?", "？")) and not leaf
    if leaf:
        heading = heading.rstrip(EDGE_SEPARATORS)
    return _Node(level, heading, stability, aside, leaf, block_index, guessed, decorated=strip_decoration(text)[1])


def _outline_nodes(blocks: tuple[Block, ...], skipped: set[int], author: str | None) -> list[_Node]:
    nodes: list[_Node] = []
    open_nodes: list[_Node] = []
    heading_level = 0

    def add(node: _Node) -> None:
        while open_nodes and open_nodes[-1].level >= node.level:
            open_nodes.pop()
        node.parent = open_nodes[-1] if open_nodes else None
        if node.parent:
            node.parent.children.append(node)
        nodes.append(node)
        if not node.leaf:
            open_nodes.append(node)

    def inner_level() -> int:
        return (open_nodes[-1].level if open_nodes else heading_level) + 1

    for index, block in enumerate(blocks):
        if index in skipped or isinstance(block, Code):
            continue
        if isinstance(block, Heading):
            if block.guessed and _is_caption(blocks, index):
                continue
            heading_level = block.level
            add(_node(block.text, block.level, index, guessed=block.guessed))
        elif isinstance(block, Paragraph) and block.lead:
            if block.lead == block.text:
                if _bold_heading(blocks, index, author):
                    add(_node(block.text, heading_level + 1, index))
            elif split_label(block.lead)[1]:
                add(_node(block.lead, inner_level(), index, leaf=True))
        elif isinstance(block, ListBlock):
            for item in block.items:
                if item.lead and split_label(item.lead)[1]:
                    add(_node(item.lead, inner_level(), index, leaf=True))
    return nodes


# Words of five letters or more, acronyms and numbers, runs of CJK characters.
_WORD = re.compile(r"[^\W\d_]{5,}|\b[A-Z0-9][A-Z0-9]+\b|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")


def _names_its_text(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a heading shares a word with the text under it. A feature heading names
    what that text is about; a figure caption a scrape left between two paragraphs does
    not."""
    following = " ".join(block_text(b) or list_text(b) for b in blocks[index + 1:index + 3])[:1000]
    return _shares_a_word(block_text(blocks[index]), following)


def _is_caption(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a line a scrape's layout made a heading is a figure's caption: it speaks of
    the paragraph above it, not of the text below. A line carrying a maturity label
    announces a feature, never a caption."""
    previous = blocks[index - 1] if index else None
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    # Right above a labeled heading, a line groups features: captions sit on prose.
    above_a_feature = isinstance(following, Heading) and bool(split_label(following.text)[1])
    return (isinstance(previous, Paragraph) and not split_label(block_text(blocks[index]))[1] and not above_a_feature
            and not _names_its_text(blocks, index)
            and _shares_a_word(block_text(blocks[index]), previous.text[-1000:]))


def _shares_a_word(heading: str, text: str) -> bool:
    """Words compare by their first five letters anywhere in the text ("compilation",
    "recompiled"), acronyms whole, CJK by pairs of characters."""
    lowered = text.lower()
    for word in _WORD.findall(heading):
        if "\u3040" <= word[0]:
            if any(word[i:i + 2] in text for i in range(len(word) - 1)):
                return True
        elif word[0].isupper() and word.isupper() or word.isdigit():
            if re.search(rf"\b{re.escape(word)}\b", text):
                return True
        elif word[:5].lower() in lowered:
            return True
    return False


def _bold_heading(blocks: tuple[Block, ...], index: int, author: str | None) -> bool:
    """A bold-only paragraph stands as a heading when prose follows it; not when it is a
    sign-off, a byline, or a long emphasised sentence."""
    text = blocks[index].text
    following = next((blocks[i] for i in range(index + 1, len(blocks)) if not isinstance(blocks[i], Code)), None)
    return (len(text) <= _MAX_BOLD_HEADING and following is not None and not isinstance(following, Heading)
            and not (isinstance(following, Paragraph) and following.lead == following.text)
            and not byline(text) and text_key(text) != text_key(author or ""))


def _measure_content(nodes: list[_Node], blocks: tuple[Block, ...], skipped: set[int]) -> None:
    """What each node has of its own before the next heading-like thing: prose, or nothing
    at all (a heading over a video only). The spans do not overlap: one pass over blocks."""
    for node, following in zip(nodes, [*nodes[1:], None]):
        end = following.block_index if following else len(blocks)
        own = [blocks[i] for i in range(node.block_index + 1, end) if i not in skipped]
        node.has_prose = any(isinstance(block, Paragraph) for block in own)
        # A line introducing what is not there ("in the video below:") leaves it empty.
        node.empty = all(isinstance(block, Paragraph) and block.text.endswith((":", "：")) for block in own)


def _excluded(node: _Node, after_last_label: bool) -> str:
    """Why a heading, by what it says or where it stands, opens no feature ("" if it may)."""
    if cues.NAVIGATION.match(node.heading):
        return "navigation: a table of contents or links to other posts"
    if cues.ASIDE.match(node.heading):
        return "aside: example/explanation/caveat cue"
    if node.stability is not None:
        return ""
    parent = node.parent
    if parent is not None and parent.rule.startswith(("aside", "closing", "inside", "navigation")):
        return f"inside a part that is not news ({parent.heading!r})"
    if node.aside:
        return "aside: ends in a colon or question mark"
    if cues.MOVING_TO_RELEASE.match(node.heading):
        return "closing part: steps to upgrade or install"
    if after_last_label and cues.CLOSING.match(node.heading):
        return "closing part: thanks/install/next-steps cue after the last labeled feature"
    # A single name ("ResourceAddedEvent") names an item of the feature above it.
    if parent is not None and parent.decorated and not node.decorated and " " in node.heading:
        return "aside: not led by an emoji like the feature heading above it"
    if parent is not None and parent.has_prose and not parent.decorated and cues.INSTRUCTION.match(node.heading):
        return "aside: an instruction under a feature"
    return ""


def _decide(nodes: list[_Node], blocks: tuple[Block, ...]) -> None:
    last_labeled = max((i for i, node in enumerate(nodes) if node.stability), default=-1)
    # Parents come before their children: exclusions pass down in document order.
    for index, node in enumerate(nodes):
        node.rule = _excluded(node, index > last_labeled)
    # Children come after their parent: deciding in reverse sees every child first.
    for node in reversed(nodes):
        if node.rule:
            continue
        node.holds_features = any(child.feature or child.holds_features for child in node.children)
        labeled = node.stability is not None
        node.section = node.holds_features and not labeled
        if not node.heading:
            node.rule = "skipped: no text once its label is removed"
        elif labeled:
            node.feature, node.rule = True, "feature: carries a maturity label"
        elif cues.is_grouping_name(node.heading):
            node.rule = "section: a generic part name" if node.section else "skipped: a generic part name"
        elif node.section:
            # A part with its own announcement above its sub-features is news too.
            node.feature = node.parent is not None and node.has_prose
            node.rule = ("feature and section: its own text above the features under it" if node.feature
                         else "section: features under it")
        elif node.empty:
            node.rule = "skipped: nothing under it but media and its introduction"
        # A line a scrape's layout made a heading must earn being a feature on its own.
        elif node.guessed and not _names_its_text(blocks, node.block_index):
            node.rule = "skipped: a scrape's line that shares no word with the text below"
        else:
            node.feature, node.rule = True, "feature: a heading with only text under it"


def features_of(blocks: tuple[Block, ...], skipped: set[int], author: str | None) -> tuple[Feature, ...]:
    nodes = _outline_nodes(blocks, skipped, author)
    _measure_content(nodes, blocks, skipped)
    _decide(nodes, blocks)
    return tuple(Feature(node.heading, node.stability, _section(node)) for node in nodes if node.feature)


def _section(node: _Node) -> str | None:
    parent = node.parent
    while parent is not None and not parent.section:
        parent = parent.parent
    if parent is None:
        return None
    return parent.heading.rstrip(EDGE_SEPARATORS) or None
