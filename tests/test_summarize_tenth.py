"""Shapes met in the tenth held-aside set, on invented posts: maturity labels and closing
parts in more languages and scripts, highlights a call-out box titles or a sentence in
another language runs through, metadata lines and forum headers, copies of pages that glue
a heading under the paragraph above it, and plain text numbering its parts as an outline."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import explain, split_label, summarize


@pytest.mark.parametrize(("label", "stability"), [
    ("(kísérleti)", "experimental"), ("(elavult)", "deprecated"), ("[béta]", "beta"),
    ("(kokeellinen)", "experimental"), ("(vanhentunut)", "deprecated"),
    ("[învechit]", "deprecated"),
    ("(ניסיוני)", "experimental"), ("[בטא]", "beta"), ("(מיושן)", "deprecated"),
    ("(πειραματική)", "experimental"), ("(Παρωχημένο)", "deprecated"),
    ("(ทดลอง)", "experimental"), ("[เบต้า]", "beta"),
])
def test_maturity_labels_in_more_languages_and_scripts(label, stability):
    assert split_label(f"Faster sync {label}") == ("Faster sync", stability)


def test_a_bracket_glued_to_code_before_it_is_no_label():
    # An annotation or an index names code: the word in it labels nothing.
    assert split_label("@[Experimental] annotation warnings") == ("@[Experimental] annotation warnings", None)
    assert split_label("The opts[beta] key") == ("The opts[beta] key", None)
    assert split_label("Faster sync [beta]") == ("Faster sync", "beta")


def test_a_metadata_lines_post_in_another_language_closes_with_its_own_parts():
    summary = summarize(read("curlew-3.0-fi.md"))
    # "Title:" and "Authors:" lines over the text declare its metadata, as front matter does.
    assert (summary.title, summary.author) == ("Curlew 3.0 on täällä", "Curlew-tiimi")
    # A list one sentence runs through, its last link a short word ("ja").
    assert summary.summary_bullets == ("uusi piirtomoottori;", "tasojen ryhmittely ja", "vektorivienti.")
    # Downloads and thanks after the last labeled feature close the post, in Finnish too.
    assert features(read("curlew-3.0-fi.md")) == [
        ("Uusi piirtomoottori", None, "Uutta"),
        ("Tasojen ryhmittely", "experimental", "Uutta"),
        ("Vektorivienti", "beta", "Uutta"),
        ("Vanha tulostusikkuna", "deprecated", "Poistuneet"),
    ]


def test_a_right_to_left_page_with_its_note_download_and_thanks():
    summary = summarize(read("curlew-3.0-he.html"))
    assert summary.title == "Curlew 3.0 יצא לאור"
    # The note under a feature is an aside; download and thanks close the post.
    assert features(read("curlew-3.0-he.html")) == [
        ("מנוע ציור חדש", None, "תכונות חדשות"),
        ("קיבוץ שכבות", "experimental", "תכונות חדשות"),
        ("ייצוא וקטורי", "beta", "תכונות חדשות"),
        ("חלון ההדפסה הישן", "deprecated", "הוסר"),
    ]


def test_a_legacy_encoded_greek_post_with_a_sentence_list_and_its_labels():
    summary = summarize(read("curlew-3.0-el.cp1253.md"))
    # Greek's ano teleia links the items of a list written as one sentence.
    assert summary.summary_bullets == ("νέα μηχανή σχεδίασης·", "ομαδοποίηση επιπέδων·", "εξαγωγή σε SVG.")
    assert features(read("curlew-3.0-el.cp1253.md")) == [
        ("Νέα μηχανή σχεδίασης", None, "Νέες δυνατότητες"),
        ("Ομαδοποίηση επιπέδων", "experimental", "Νέες δυνατότητες"),
        ("Η επιλογή --legacy-print", "deprecated", "Νέες δυνατότητες"),
    ]


def test_a_titled_call_out_box_holds_the_highlights():
    summary = summarize(read("curlew-3.0-docs-th.md"))
    # ":::info[สรุป]" ("summary") titles the box: its list is the summary.
    assert summary.summary_bullets == ("เครื่องวาดแผนที่ใหม่", "การจัดกลุ่มเลเยอร์", "ส่งออกเป็น SVG")
    # A heading inside a note box is an aside; the upgrade part closes the post.
    assert features(read("curlew-3.0-docs-th.md")) == [
        ("เครื่องวาดแผนที่ใหม่", None, "ฟีเจอร์ใหม่"),
        ("การจัดกลุ่มเลเยอร์", "experimental", "ฟีเจอร์ใหม่"),
        ("ส่งออกเป็น SVG", "beta", "ฟีเจอร์ใหม่"),
    ]


def test_an_mdx_call_out_component_titled_as_the_highlights():
    text = ('---\ntitle: Curlew 3.0\n---\n\nimport { Callout } from "@/components/callout";\n\n'
            "Curlew 3.0 is out after half a year of work.\n\n"
            '<Callout type="info" title="Highlights">\n- **Engine**: maps draw on the GPU.\n'
            "- **Groups**: layers go into groups.\n</Callout>\n\n"
            "## New drawing engine\n\nText.\n\n## Layer groups\n\nText.\n")
    assert summarize(text).summary_bullets == ("Engine: maps draw on the GPU.", "Groups: layers go into groups.")
    # An untitled box stays an aside: its list is no summary.
    untitled = text.replace(' title="Highlights"', "")
    assert summarize(untitled).summary_bullets == ()


def test_a_mail_numbering_its_underlined_parts_as_an_outline():
    summary = summarize(read("curlew-3.0-announce.txt"))
    assert summary.title == "Curlew 3.0 released"
    assert features(read("curlew-3.0-announce.txt")) == [
        ("New drawing engine", None, "New features"),
        ("Layer groups", "experimental", "New features"),
        ("The old print dialog", "deprecated", "Removals"),
    ]


def test_flat_numbers_on_underlined_parts_stay_part_of_their_names():
    text = ("Curlew 3.0\n==========\n\nCurlew 3.0 is out.\n\n1. New features\n----------------\n\n"
            "Faster drawing\n\nMaps are drawn on the graphics card now.\n\n2. Removals\n-----------\n\n"
            "Old print dialog\n\nThe old print dialog is gone.\n")
    assert {f.section for f in summarize(text).features} == {"1. New features", "2. Removals"}


def test_a_copied_release_page_of_short_paragraphs_glues_headings_under_them():
    summary = summarize(read("curlew-3.0-release-copy.txt"))
    assert (summary.title, summary.author) == ("v3.0.0", "adaq")
    assert summary.summary_bullets == ("a new drawing engine on the graphics card", "layer groups for large maps",
                                       "export of maps as SVG files")
    # "redraw!" names a command: the mark ends no sentence, the line is a heading.
    assert features(read("curlew-3.0-release-copy.txt")) == [
        ("New drawing engine", None, "New features"),
        ("Layer groups", "experimental", "New features"),
        ("The redraw! command is gone", None, "New features"),
    ]


def test_a_forum_topic_names_its_poster_and_title_from_the_first_post_header():
    summary = summarize(read("curlew-3.0-forum.txt"))
    assert (summary.title, summary.author) == ("Curlew 3.0 released", "Ada Quill")
    assert features(read("curlew-3.0-forum.txt")) == [
        ("Drawing engine", None, "New features"),
        ("Layer groups", "experimental", "New features"),
    ]
    roles = {role.text: role.role for role in explain(read("curlew-3.0-forum.txt"))}
    # The header's lines (login, role, date) are the page's, not features.
    assert roles["Maintainer"] == "skipped"
    assert roles["Curlew 3.0 released"] == "title"


def test_stats_and_donating_parts_are_no_news_wherever_they_stand():
    text = ("# Curlew 3.0\n\n## Stats\n\n120 changes by 17 people.\n\n## Donating to Curlew\n\n"
            "Please give.\n\n## New features\n\n### Faster drawing\n\nText.\n\n### Layer groups [beta]\n\nText.\n")
    assert features(text) == [("Faster drawing", None, "New features"), ("Layer groups", "beta", "New features")]


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda k: "Curlew\n\n" + "Text ends here.\nA heading\n\n" * 10_000 * k,
    lambda k: "Title: T\nDate: 2026\n" + "Key: value\n" * 25_000 * k,
    lambda k: "# T\n\n" + ':::tip ' + "a " * 25_000 * k + "\n- item\n:::\n",
    lambda k: "T\n=\n\n" + "1.1 Part\n--------\n\nText.\n\n" * 5000 * k,
], ids=["glued-headings", "metadata-lines", "directive-title", "outline-numbers"])
def test_tenth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)
