"""A changelog whose features are its labeled items ("* [FEATURE] **Sync (beta).** ..."):
its parts that hold items and nothing else are categories of changes or packages, and one
whose items carry no label holds no feature, wherever it stands among them."""

from __future__ import annotations

from newsletter.summarize.headings import Node

# Two parts whose features are all labeled items show how the post tells its features.
_ITEM_PARTS = 2


def unlabeled_item_parts(nodes: list[Node]) -> None:
    """Unset the parts that hold a plain list of unlabeled items, no text and no sub-part,
    in a post where two or more parts hold labeled items and nothing else."""
    item_parts = [node for node in nodes if node.section and node.children
                  and all(child.leaf and child.stability for child in node.children)]
    if len(item_parts) < _ITEM_PARTS:
        return
    for node in nodes:
        if node.feature and node.stability is None and not node.children and node.has_list and not node.has_prose:
            node.feature, node.reason = False, "a list of unlabeled items where the post's features are labeled items"
