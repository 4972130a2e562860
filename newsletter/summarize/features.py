"""Features: the headings that announce a change, with their labels and sections."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from newsletter.models import Feature
from newsletter.summarize.labels import EDGE_SEPARATORS, split_label
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

# Headings of the parts that close a release post rather than announce a change.
_CLOSING_HEADING = re.compile(
    r"(?:thanks|thank you|acknowledge?ments?|credits|contributors|get(?:ting)? started|get involved|"
    r"install(?:ation|ing)?|upgrad(?:e|ing)|how to (?:install|upgrade|get)|conclusions?|wrapping up|"
    r"closing thoughts|what'?s next|next steps|feedback|learn more|resources|references|further reading|"
    r"danksagung|dank|fazit|ausblick|mitmachen|erste schritte|remerciements|merci|pour commencer|"
    r"prochaines étapes|agradecimientos|gracias|conclusión|instalación|próximos pasos|ringraziamenti|"
    r"agradecimentos|благодарности|заключение|установка)\b"
    r"|致谢|感谢|鸣谢|結語|结语|结论|安装|入门|快速开始|下一步|謝辞|おわりに|さいごに|インストール|今後|감사|마치며|설치",
    re.I)
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
    feature: bool = False
    # Has features anywhere beneath it.
    holds_features: bool = False
    section: bool = False


def _node(text: str, level: int, block_index: int, *, leaf: bool = False, guessed: bool = False) -> _Node:
    heading, stability = split_label(text)
    # A heading that ends in a colon introduces what follows ("An example:"), one that
    # ends in a question mark frames the text ("What's next?"): asides.
    aside = text.rstrip().endswith((":", "：", "?", "？")) and not leaf
    if leaf:
        heading = heading.rstrip(EDGE_SEPARATORS)
    return _Node(level, heading, stability, aside, leaf, block_index, guessed)


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


def features_of(blocks: tuple[Block, ...], skipped: set[int], author: str | None) -> tuple[Feature, ...]:
    nodes = _outline_nodes(blocks, skipped, author)
    # Children come after their parent: deciding in reverse sees every child first.
    for node in reversed(nodes):
        node.holds_features = any(child.feature or child.holds_features for child in node.children)
        labeled = node.stability is not None
        node.section = node.holds_features and not labeled
        node.feature = not node.aside and (labeled or not node.holds_features) and bool(node.heading)
        # A line a scrape's layout made a heading must earn being a feature on its own.
        if node.feature and node.guessed and not labeled and not _names_its_text(blocks, node.block_index):
            node.feature = False
    # Among top-level parts that group features, an unlabeled one without features of its
    # own is a closing or framing part ("Conclusion"), not a feature.
    top = [node for node in nodes if node.parent is None]
    if any(node.section for node in top):
        for node in top:
            if node.feature and node.stability is None and not node.leaf:
                node.feature = False
    # After the last labeled feature, an unlabeled heading that names a closing part
    # ("Thanks", "Getting started") closes the post.
    last_labeled = max((i for i, node in enumerate(nodes) if node.stability), default=-1)
    for node in nodes[last_labeled + 1:]:
        if node.stability is None and _CLOSING_HEADING.match(node.heading):
            node.feature = False
    return tuple(Feature(node.heading, node.stability, _section(node)) for node in nodes if node.feature)


def _section(node: _Node) -> str | None:
    parent = node.parent
    while parent is not None and not parent.section:
        parent = parent.parent
    if parent is None:
        return None
    return parent.heading.rstrip(EDGE_SEPARATORS) or None
