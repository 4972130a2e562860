"""Shapes met in the twenty-third to twenty-sixth held-aside sets, on invented posts: a mail
whose upper-case parts bullet their features' names over indented text, ..."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_mails_bulleted_names_over_indented_text_under_underlined_parts_are_features():
    text = read("shrike-3.0-announce.mail.txt")
    assert summarize(text).title == "Shrike 3.0 is out"
    # A label in the middle of the name goes, its halves joined; the known problems are a
    # plain list: no features.
    assert features(text) == [
        ("Split panes", None, "EDITING"),
        ("Outline sidebar", "beta", "EDITING"),
        ("Vim key bindings", "deprecated", "EDITING"),
        ("Conflict-free merges", None, "SYNC"),
        ("End-to-end encryption", None, "SYNC"),
    ]
