"""Features a post names rather than tells: two or more parts that are names and nothing
more, and a scrape's line its highlights name.

A post that names its features and nothing more: two or more parts ("New", "Changed"),
each over sub-headings with no text under them ("DuckDB connector", "Multi-condition
alerts"). The parts stand beside each other as groups of news do; one part of bare names
alone may be a page whose text (a video, a table) was lost, so it takes two, and a few
names among them."""

from __future__ import annotations

import re

from newsletter.summarize.cues import is_grouping_name
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


# A name of a word may be a part's ("Performance"), which a highlight may say too.
_NAMED_WORDS = 2


def named_by_highlights(nodes: list[Node], highlights: tuple[str, ...]) -> None:
    """A scrape's line that shares no word with the text under it is a feature still when a
    highlight names it as written ("Gray failure detection" where one says "Gray failure
    detection is on by default"): the post's own summary vouches for it."""
    for node in nodes:
        if (node.guessed and not node.excluded and not node.feature and not node.section and not node.empty
                and not node.children and len(node.heading.split()) >= _NAMED_WORDS
                and not is_grouping_name(node.heading) and _named(node.heading, highlights)):
            node.feature, node.reason = True, "a scrape's line a highlight names"


def _named(heading: str, highlights: tuple[str, ...]) -> bool:
    named = re.compile(rf"(?<!\w){re.escape(heading.strip())}(?!\w)", re.IGNORECASE)
    return any(named.search(text) for text in highlights)
