"""A post that names its features and nothing more: two or more parts ("New", "Changed"),
each over sub-headings with no text under them ("DuckDB connector", "Multi-condition
alerts"). The parts stand beside each other as groups of news do; one part of bare names
alone may be a page whose text (a video, a table) was lost, so it takes two, and a few
names among them."""

from __future__ import annotations

from newsletter.summarize.headings import Node

# Parts of bare names side by side, and names among them.
_PARTS = 2
_NAMES = 3


def outlines_its_news(group: list[Node]) -> bool:
    """Whether the sibling parts name the post's features: two or more of them hold only
    bare names, three or more in all."""
    parts = [node for node in group if _names_only(node)]
    return len(parts) >= _PARTS and sum(len(node.children) for node in parts) >= _NAMES


def _names_only(node: Node) -> bool:
    return (not node.excluded and bool(node.heading) and bool(node.children)
            and all(child.empty and not child.children and not child.excluded and child.heading
                    for child in node.children))
