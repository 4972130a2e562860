"""Shapes met in the seventy-second held-aside set, on invented posts (pochard posts): parts
that close a post or stand beside its news, in the words real posts give them (a sign-off,
the numbers, where to get it and its manual, the bugs it ships with, contributors in
Turkish); a move to something other than a release, which is news."""

from __future__ import annotations

import pytest
from helpers.shapes import features

_FEATURES = """\
# Pochard 4.2 released

Pochard 4.2 is out today.

## Faster indexing

Indexes are built in parallel now.

## Live reload (Preview)

Edits show up without a restart.

"""


@pytest.mark.parametrize("closing", [
    "That's it", "That's all for now!", "Download and documentation", "Downloads & docs",
    "Statistics", "統計", "Statistiques", "This release contains bugs", "The release has known issues",
    "Known bugs", "Katkıda bulunanlar",
])
def test_a_closing_or_side_part_in_the_words_posts_use_is_no_feature(closing):
    text = f"{_FEATURES}## {closing}\n\nA line about it, and a link or two.\n"
    assert features(text) == [("Faster indexing", None, None), ("Live reload", "preview", None)]


def test_a_migration_to_something_other_than_a_release_is_news():
    text = (f"{_FEATURES}## Migration to the new query planner begins\n\n"
            "Queries are planned by the new planner where it can.\n\n"
            "## Migrating to Pochard 4.2\n\nRun the upgrade command first.\n")
    assert features(text) == [("Faster indexing", None, None), ("Live reload", "preview", None),
                              ("Migration to the new query planner begins", None, None)]
