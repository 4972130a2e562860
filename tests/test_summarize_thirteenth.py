"""Shapes met in the thirteenth held-aside set, on invented posts (godwit-4.0 fixtures):
reST changelogs whose features are bold-only paragraphs, changelog lists whose features
are bold-led items with a label after the bold, and MDX headings ending in an empty
component that carries the label."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import split_label, summarize


def test_rest_bold_paragraphs_over_prose_are_features():
    found = features(read("godwit-4.0-changelog.rst"))
    # Label inside the bold, after it, and bold broken by a literal all head their text.
    assert found[:4] == [
        ("Streaming joins", "stable", "New features"),
        ("Spill to disk", "experimental", "New features"),
        ("Adaptive batching", "beta", "New features"),
        ("Quicker load_csv for wide files", None, "New features"),
    ]


def test_a_rest_paragraph_with_bold_and_plain_words_is_prose():
    text = "Title\n=====\n\n.. _x:\n\nNews\n----\n\n**Faster** sync for everyone\n\nSync is faster.\n"
    assert features(text) == [("News", None, None)]


def test_a_label_right_after_an_items_bold_lead_makes_it_a_feature():
    found = features(read("godwit-4.0-changelog.de.md"))
    assert ("Streaming-Joins", "experimental", "Neuerungen") in found
    assert ("load_csv für breite Dateien", "beta", "Neuerungen") in found
    # A bold lead without a label, and a label later in the item's text, name no feature.
    assert not [f for f in found if f[0].startswith("Absturz")]
    text = "# Log\n\n## Added\n\n- **Sync** - works now (beta) in every mode.\n- Plain item.\n"
    assert not [f for f in features(text) if f[0] == "Sync"]


def test_an_empty_component_ending_a_heading_carries_its_label():
    assert features(read("godwit-4.0.mdx")) == [
        ("Streaming joins", "beta", "New features"),
        ("Spill to disk", "experimental", "New features"),
        # An icon's name is no label, and no word of the heading either.
        ("Quicker CSV loading", None, "New features"),
    ]


@pytest.mark.parametrize(("label", "stability"), [
    ("(forældet)", "deprecated"), ("(utdatert)", "deprecated"), ("(obsolet)", "deprecated"),
    ("[vista prèvia]", "preview"), ("(eksperimentel)", "experimental"),
])
def test_labels_in_more_languages(label, stability):
    assert split_label(f"Gamle indstillinger {label}") == ("Gamle indstillinger", stability)


@pytest.mark.parametrize("closing", ["Opgradering", "Oppgradering", "Tak", "Takk", "Actualització", "Agraïments",
                                     "Como atualizar"])
def test_upgrade_and_thanks_parts_in_more_languages_are_not_features(closing):
    text = f"# Godwit 4.0\n\nIntro.\n\n## Hurtigere sync\n\nText.\n\n## {closing}\n\nText.\n"
    assert features(text) == [("Hurtigere sync", None, None)]


@pytest.mark.parametrize("make", [
    lambda k: "T\n=\n\n.. _x:\n\n" + "**a** ``b`` **c** ``d`` " * 3000 * k + "\n",
    lambda k: "# T\n\n" + "## A <X a='b' c='d' e='f' g='h' " * 3000 * k + "/>\n",
    lambda k: "# T\n\n- **A** " + "(" * 5000 * k + "\n",
], ids=["rest-bold-line", "empty-component", "label-after-lead"])
def test_thirteenth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


def test_a_heading_under_the_title_over_the_byline_is_the_subtitle():
    summary = summarize(read("godwit-4.0-medium.html"))
    assert features(read("godwit-4.0-medium.html")) == [("Streaming joins", "beta", None),
                                                        ("Quicker CSV loading", None, None)]
    assert summary.summary_bullets == ("Streaming joins over bounded windows", "Quicker CSV loading")
    # Over the post's text, the same heading is its first part.
    text = "# Godwit 4.0\n\n## Streaming joins\n\nJoins of two streams keep a bounded window.\n"
    assert features(text) == [("Streaming joins", None, None)]


def test_a_release_name_joined_to_its_byline_is_the_title():
    text = read("godwit-4.0-release-page.txt")
    assert summarize(text).title == "v4.0.0"
    # A heading over the bare summary label and its list frames the highlights, and is
    # theirs: no section of the features below.
    assert summarize(text).summary_bullets == ("Streaming joins over bounded windows",
                                               "Quicker CSV loading for wide files")
    # The breadcrumb above the title is the page's furniture, no feature.
    assert features(text)[0] == ("Streaming joins", "beta", None)
    assert not [f for f in features(text) if "Releases" in f[0]]


def test_a_sentence_introducing_a_list_under_a_heading_is_no_summary_label():
    text = ("Godwit 4.0 is out today, with streaming joins and more for everyone.\n\n## Streaming joins\n\n"
            "Joins gain new modes, including:\n\n- left joins\n- outer joins\n")
    assert summarize(text).summary_bullets == ()
