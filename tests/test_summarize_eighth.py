"""Shapes met in the eighth held-aside set, on invented posts: Org-mode documents, maturity
labels and closing parts in Dutch, Polish and Vietnamese, a table of contents above the
highlights, dates under version headings."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import split_label, summarize


def test_org_document_keywords_markup_tags_and_unpublished_subtrees():
    summary = summarize(read("wren-5.0-notes.org"))
    assert (summary.title, summary.author) == ("Wren 5.0 Release Notes", "Tamsin Hale")
    assert summary.published is not None and summary.published.date().isoformat() == "2025-03-02"
    # Verbatim markup reads as its text, in the highlights as in the headings.
    assert summary.summary_bullets == ("a new wren fmt command;", "faster startup.")
    # A tag is the heading's label; COMMENT and :noexport: subtrees are not published.
    assert features(read("wren-5.0-notes.org")) == [
        ("The wren fmt command", None, "Tooling"),
        ("Parallel builds", "beta", "Tooling"),
        ("The --legacy flag", "deprecated", "Removals"),
    ]


def test_a_news_file_outlined_with_stars_is_not_read_as_org():
    # No "#+TITLE:" line: "=x=" is the text as written.
    text = "* Changes in 2.0\n\n** New option =fast=.\nIt is faster.\n\n** Another one.\nText.\n"
    assert [heading for heading, _, _ in features(text)] == ["New option =fast=.", "Another one."]


@pytest.mark.parametrize(("label", "stability"), [
    ("(bèta)", "beta"), ("(experimenteel)", "experimental"), ("(verouderd)", "deprecated"),
    ("(eksperymentalne)", "experimental"), ("(przestarzałe)", "deprecated"),
    ("(thử nghiệm)", "experimental"), ("(không dùng nữa)", "deprecated"),
])
def test_maturity_labels_in_dutch_polish_and_vietnamese(label, stability):
    assert split_label(f"Faster sync {label}") == ("Faster sync", stability)


@pytest.mark.parametrize("name", ["pipit-3.1-nl.md", "pipit-3.1-pl.md", "pipit-3.1-vi.md"])
def test_contents_upgrade_thanks_and_callouts_in_other_languages_are_not_features(name):
    found = [heading for heading, _, _ in features(read(name))]
    assert len(found) == {"pipit-3.1-nl.md": 3}.get(name, 2)
    assert not {"Inhoudsopgave", "Let op", "Upgraden", "Bedankt", "Spis treści", "Jak zaktualizować",
                "Podziękowania", "Nâng cấp", "Lời cảm ơn", "In het kort"} & set(found)


def test_highlights_under_their_own_heading_after_a_table_of_contents():
    assert summarize(read("pipit-3.1-nl.md")).summary_bullets == ("Taken inplannen.", "Nieuwe beheerpagina.")


def test_a_date_under_a_version_heading_is_its_subtitle_not_a_section():
    assert features(read("pipit-changelog.md")) == [
        ("Shared queues", "beta", "3.1.0"),
        ("Old exporter", "deprecated", "3.0.0"),
    ]


def test_parts_named_by_their_dates_under_the_title_stay_sections():
    text = "# Release notes\n\n## March 4, 2025\n\n### Faster sync (beta)\n\nText.\n\n### Smaller images\n\nText.\n"
    assert features(text) == [("Faster sync", "beta", "March 4, 2025"), ("Smaller images", None, "March 4, 2025")]


def test_highlights_in_an_admonition_titled_as_a_summary():
    summary = summarize(read("pipit-3.2-mkdocs.md"))
    assert summary.summary_bullets == ("Shared queues for every plan.", "A faster scheduler.")
    # The tip's list is an aside inside a feature, not a feature nor the highlights.
    assert [heading for heading, _, _ in features(read("pipit-3.2-mkdocs.md"))] == [
        "Shared queues", "A faster scheduler"]


def test_a_list_naming_headings_of_the_page_in_order_is_its_contents_not_highlights():
    assert summarize(read("pipit-3.3-docs.md")).summary_bullets == ()


def test_highlights_that_say_more_than_the_headings_stay_highlights():
    text = ("# Pipit 3.3\n\nThe most important changes:\n\n- Queues can be shared between teams\n"
            "- Deprecations\n\n## Shared queues\n\nText.\n\n## Deprecations\n\n### Old exporter (deprecated)\n\nText.\n")
    assert summarize(text).summary_bullets == ("Queues can be shared between teams", "Deprecations")


def test_release_page_copy_with_the_date_beside_its_name_and_long_unmarked_items():
    # Long indented lines are a list that lost its markers, not a wrapped paragraph: the
    # copy is still a browser's, one block a line.
    summary = summarize(read("pipit-3.4-release-page.txt"))
    assert (summary.title, summary.author) == ("v3.4.0", "ana-ruiz")
    assert summary.summary_bullets == ("Shared queues between teams", "A twice as fast scheduler")


def test_indented_sentences_one_a_line_are_a_list_that_lost_its_markers():
    text = ("Pipit 3.5 is out\n\nPipit 3.5 is now available to everyone on every platform. Thanks to all who\n"
            "tested the early builds and sent us their reports!\n\nThe highlights:\n\n"
            "    Queues can be shared between teams.\n    The scheduler is twice as fast.\n\n"
            "Shared queues\n\nShare a queue from its settings page.\n")
    assert summarize(text).summary_bullets == ("Queues can be shared between teams.", "The scheduler is twice as fast.")


def test_an_indented_wrapped_paragraph_stays_a_paragraph():
    text = ("Pipit 3.5 is out\n\nThe highlights:\n\n   The scheduler was rewritten around a timing wheel, which\n"
            "   makes large queues much faster.\n\nShared queues\n\nShare a queue from its settings page.\n")
    assert summarize(text).summary_bullets != ("The scheduler was rewritten around a timing wheel, which",)


def test_a_download_list_a_sentence_introduces_does_not_hide_the_highlights_after_it():
    text = ("# Pipit 3.6 released\n\nPipit 3.6 is out today.\n\nGet it:\n\n- pipit-3.6.0.tar.gz\n- pipit-3.6.0.tar.gz.asc\n\n"
            "Pipit 3.6 includes the following significant changes:\n\n- Queues can be shared between teams.\n"
            "- The scheduler is twice as fast.\n\n## Shared queues\n\nText.\n")
    assert summarize(text).summary_bullets == ("Queues can be shared between teams.", "The scheduler is twice as fast.")


def test_a_dump_part_headed_by_a_function_name_followed_by_words():
    text = ("Pipit 3.7 released\n\nPipit 3.7 is out. It brings a few changes to defaults and removes\n"
            "an old call that has been deprecated for a while now, as announced.\n\n"
            "New features\n\n  Shared queues\n\n   Queues can be shared between teams.\n\n"
            "Deprecations and removals\n\n  legacy_open() and friends (deprecated)\n\n   Use the new API.\n")
    assert features(text) == [("Shared queues", None, "New features"),
                              ("legacy_open() and friends", "deprecated", "Deprecations and removals")]


@pytest.mark.parametrize(("line", "name"), [
    ("4 Mar 2025 • tamsin-h release", "tamsin-h"),
    ("4 Mar 2025 • release notes", None),
])
def test_a_dateline_with_a_login_and_a_category(line, name):
    from newsletter.summarize.metadata import byline
    assert byline(line) == name


def test_a_dump_title_stands_above_a_dateline_naming_a_login():
    text = ("Pipit • Queues for everyone\n  • Docs\n  • News\n\nNews\n\nPipit 3.8 Released\n\n"
            "4 Mar 2025 • tamsin-h release\n\nHello everyone!\n\nPipit 3.8 has been released. It is a small release "
            "with a few features many of you asked for, read on.\n\nShared queues\n\nQueues can be shared.\n")
    summary = summarize(text)
    assert (summary.title, summary.author, summary.summary_bullets) == ("Pipit 3.8 Released", "tamsin-h", ())


def test_release_page_copy_labeled_items_under_a_category_line_are_features_of_it():
    # The category line over a list is a heading the copy kept at the margin; an item led
    # by a bracketed label is no code.
    assert features(read("pipit-3.4-release-page.txt")) == [
        ("queue mirroring", "beta", "Preview APIs"),
        ("Queue snapshots", "experimental", "Preview APIs"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda k: "#+TITLE: T\n\n" + "* Part\n** =Entry=   :beta:\nText with [[u][a link]].\n#+BEGIN_SRC sh\nx\n#+END_SRC\n" * 7500 * k,
    lambda k: "# T\n\n" + "## 1.0\n\n### May 4, 2025\n\nText.\n\n" * 5000 * k,
    lambda k: "T\n=\n\n```\nx\n```\n\n" + '!!! note "Summary"\n\n    * a.\n    * b.\n\n' * 7500 * k,
    lambda k: "# T\n\n" + "Get it:\n\n- a.tar.gz\n\n" * 7500 * k + "## A\n\nText.\n",
    lambda k: "T\n\n" + "    First sentence here.\n" * 25_000 * k,
], ids=["org", "dated-subtitles", "admonitions", "introduced-lists", "indented-sentences"])
def test_eighth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)
