"""Shapes met in the ninth held-aside set, on invented posts: maturity labels in more
languages and scripts, a summary part standing beside the post's groups of features."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import explain, split_label, summarize


@pytest.mark.parametrize(("label", "stability"), [
    # Words the vocabulary lists in a few more languages.
    ("(Deneysel)", "experimental"), ("(kullanımdan kaldırıldı)", "deprecated"), ("(Pratinjau)", "preview"),
    ("(usang)", "deprecated"), ("(föråldrad)", "deprecated"),
    # Stems shared across languages: Czech, Polish, Ukrainian, German.
    ("(experimentální)", "experimental"), ("(zastaralé)", "deprecated"), ("[застаріле]", "deprecated"),
    ("(експериментальне)", "experimental"), ("(veraltete)", "deprecated"),
    # Traditional Chinese characters for the Simplified labels.
    ("（實驗性）", "experimental"), ("【預覽】", "preview"), ("（已棄用）", "deprecated"),
])
def test_maturity_labels_in_more_languages_and_scripts(label, stability):
    assert split_label(f"Faster sync {label}") == ("Faster sync", stability)


def test_a_bracketed_word_outside_the_vocabulary_is_not_a_label():
    assert split_label("Faster sync (experience)") == ("Faster sync (experience)", None)


def test_a_summary_part_beside_groups_of_features_holds_the_highlights_in_any_language():
    summary = summarize(read("godwit-4.0-fi.md"))
    # The part holds only a list a sentence introduces, and the next part at its level groups
    # features under headings of its own: it is the summary, not a feature.
    assert summary.summary_bullets == ("uusi välimuisti nopeuttaa käynnistystä;", "godwit serve tukee HTTP/3:a;",
                                       "vanha asetustiedosto poistuu.")
    # The bold line over a list naming the post's parts is its contents, whatever the word.
    assert features(read("godwit-4.0-fi.md")) == [
        ("Uusi välimuisti", None, "Uutta"),
        ("HTTP/3 palvelimessa", None, "Uutta"),
        ("Vanha asetustiedosto", None, "Poistettu"),
    ]
    roles = {role.text: (role.role, role.reason) for role in explain(read("godwit-4.0-fi.md"))}
    assert roles["Sisällys"] == ("skipped", "navigation: over a list naming the post's own parts")
    assert roles["Kohokohdat"][0] == "highlights"


def test_a_feature_part_over_a_list_among_features_like_it_is_no_summary():
    text = ("# Godwit 4.1\n\n## Faster cache\n\nIt now offers:\n\n- compression of entries;\n- eviction by age.\n\n"
            "## HTTP/3\n\nThe server speaks HTTP/3.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ()
    assert [f.heading for f in summary.features] == ["Faster cache", "HTTP/3"]


def test_an_org_tag_outside_the_vocabulary_is_no_part_of_the_heading():
    text = ("#+TITLE: Godwit news\n\n* Version 4.0\n\n** Changes\n\n*** Faster cache   :breaking:\n\nText.\n\n"
            "*** Parallel builds   :beta:\n\nText.\n")
    assert features(text) == [("Faster cache", None, "Changes"), ("Parallel builds", "beta", "Changes")]


def test_a_bare_heading_under_a_part_named_for_features_is_one():
    text = "# Godwit 4.0\n\n## Fixes\n\nText.\n\n## New features\n\n### The godwit fmt command\n"
    assert features(text) == [("The godwit fmt command", None, "New features")]


def test_a_list_written_as_one_sentence_an_opening_line_introduces_is_the_summary():
    text = ("# Godwit 4.0\n\nGodwit 4.0 vyšel dnes po půl roce vývoje, s mnoha změnami v jádře i v nástrojích.\n\n"
            "Hlavní body:\n\n- nová mezipaměť;\n- rychlejší start;\n- konec podpory ARMv7.\n\n"
            "## Nová mezipaměť\n\nText.\n\n## Rychlejší start\n\nText.\n")
    assert summarize(text).summary_bullets == ("nová mezipaměť;", "rychlejší start;", "konec podpory ARMv7.")


def test_highlights_opening_the_newest_version_of_a_changelog():
    text = ("#+TITLE: Godwit NEWS\n\n* Version 4.0.1\n\n** Fixes\n- A crash on start.\n\n* Version 4.0\n\n"
            "Highlights of this release:\n1. a new cache;\n2. faster start.\n\n** New features\n\n"
            "*** New cache\n\nText.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ("a new cache;", "faster start.")
    assert [f.heading for f in summary.features] == ["New cache"]


@pytest.mark.parametrize(("closing", "advert"), [
    ("Jak aktualizovat", "Reklama"), ("Nasıl yükseltilir?", "Anzeige"), ("Cara memperbarui", "Advertisement"),
    ("Оновлення", "Реклама"), ("Uppgradera", "广告"), ("Changelogs", "Sponsored"),
])
def test_closing_parts_and_advertisements_in_more_languages_are_not_features(closing, advert):
    text = (f"# Godwit 4.0\n\nGodwit 4.0 is out.\n\n### {advert}\n\nHosting from 1 EUR.\n\n## Uutta\n\n"
            f"### Parallel builds (beta)\n\nText.\n\n### Faster cache\n\nText.\n\n## {closing}\n\nRun the installer.\n\n"
            "## Teşekkürler\n\nThanks to all.\n")
    assert [heading for heading, _, _ in features(text)] == ["Parallel builds", "Faster cache"]


def test_bold_lines_heading_features_name_the_parts_a_highlight_list_previews():
    summary = summarize(read("godwit-4.1-id.md"))
    # No word says "highlights": the list previews the features the bold lines head.
    assert summary.summary_bullets[0] == "Mesin tema baru dengan warna yang lebih cerah"
    assert len(summary.summary_bullets) == 4
    # A bare bold line among them is one more feature, the last before a heading too.
    assert features(read("godwit-4.1-id.md")) == [
        ("Mesin tema baru", None, "Fitur baru"),
        ("Kalender", "preview", "Fitur baru"),
        ("Mode gelap untuk semua widget", None, "Fitur baru"),
        ("Ekspor PDF", None, "Fitur baru"),
        ("gw-grid", "deprecated", "Dihapus"),
        ("Dukungan Android 9 dihentikan", None, "Dihapus"),
    ]


def test_a_lynx_dump_indents_its_third_level_of_headings_deeper_than_the_body():
    assert features(read("godwit-5.0-lynx.txt")) == [
        ("Faster cache", None, "Runtime"),
        ("Parallel loading", "beta", "Runtime"),
        ("The godwit fmt command", None, "Tools"),
        ("The --legacy flag", "deprecated", "Tools"),
    ]


def test_a_lynx_dump_centering_only_its_title_under_a_skip_link():
    assert summarize(read("godwit-5.0-lynx.txt")).title == "Godwit 5.0 Release Notes"


def test_a_docs_page_declares_its_title_as_page_title():
    text = "---\nlayout: docs\npage_title: Godwit 5.x release notes\n---\n\n# Godwit 5.x\n\n## Faster cache\n\nText.\n"
    assert summarize(text).title == "Godwit 5.x release notes"


def test_a_copied_release_page_whose_summary_repeats_its_details():
    summary = summarize(read("godwit-6.0-release-page.txt"))
    # The part named "Summary" lists each entry the details then tell: it is the summary, not
    # the page's contents, even with an unfenced "# comment" line of code further down.
    assert summary.summary_bullets == ("Fix #120: Keep file modes when restoring archives",
                                       "Chg #131: The --fast option [Deprecated]",
                                       "Enh #140: Print archive sizes in the list output")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Fix #120: Keep file modes when restoring archives", None, "Details"),
        ("Chg #131: The --fast option", "deprecated", "Details"),
        ("Enh #140: Print archive sizes in the list output", None, "Details"),
    ]


def test_a_dump_title_ending_in_an_exclamation_mark_above_the_byline():
    text = ("Godwit Weekly\n\nNews and guides about the Godwit site generator, for its users and its many "
            "contributors.\n\n  • Home\n  • Docs\n  • About\n\nGodwit 6 is here!\n\n"
            "Posted by Ada Quill on March 3, 2025\n\n"
            "Today we release Godwit 6 after a year of work by hundreds of contributors around the world.\n\n"
            "Faster cache\n\nThe cache keeps compiled templates on disk between runs of the tool.\n")
    summary = summarize(text)
    assert summary.title == "Godwit 6 is here!"


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda k: "# T\n\n## A\n\nText.\n\n" + "**Bold line**\n\n" * 12_500 * k,
    lambda k: "# T\n\n" + "## Part\n\nHighlights:\n\n- a;\n- b.\n\n### Sub\n\nText.\n\n" * 5000 * k,
    lambda k: "   [1]Skip\n\n                     Title line\n\n" + "  Part\n\n    Entry\n\n   Body text here.\n\n" * 7500 * k,
    lambda k: "# T\n\n" + "**Contents**\n\n- A\n- B\n\n## A\n\n## B\n\n" * 5000 * k,
], ids=["bold-lines", "part-highlights", "lynx-levels", "contents"])
def test_ninth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)
