"""Shapes met in the twelfth held-aside set, on invented posts (sanderling-2.0 fixtures):
Textile, mail parts marked with a run of stars, Persian pages, AsciiDoc role badges, Hugo
shortcode boxes, release pages with a badge by their name and a part's name over a list,
lynx bylines naming a login, and summary cues in more languages."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import split_label, summarize
from newsletter.summarize.cues import BOILERPLATE, CLOSING, MOVING_TO_RELEASE
from newsletter.text.from_textile import looks_like_textile
from newsletter.text.parse import parse


def test_a_textile_post_is_read_by_its_block_signatures():
    text = read("sanderling-2.0.textile")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Sanderling 2.0 released", "ada")
    assert summary.summary_bullets == ("Tide tables for every harbour", "A calmer default palette",
                                       "Faster chart loading")
    # The "# config" lines in <pre> and in "bc." are code; the upgrade steps and thanks close it.
    assert features(text) == [
        ("Tide tables", None, "New features"),
        ("Calmer palette", "beta", "New features"),
        ("Chart cache", "experimental", "New features"),
        ("Old chart format", "deprecated", "Removed and deprecated"),
    ]
    assert "https://sanderling.example/upgrade" in parse(text).links


def test_two_heading_signatures_tell_textile_and_one_sentence_does_not():
    assert features("h1. Title\n\nIntro.\n\nh2. Faster sync\n\nSync is faster.\n") == [("Faster sync", None, None)]
    # Signatures inside a line are words ("use h1. and h2. headings"): the text stays plain.
    assert not looks_like_textile("Intro line.\n\nTextile writes h1. and h2. headings.\n")
    assert looks_like_textile("Intro line.\n\nh2(#news). News\n\nh3. Faster sync\n")


def test_a_mail_marking_its_parts_with_stars_under_an_underlined_part():
    text = read("sanderling-2.0-announce.txt")
    summary = summarize(text)
    assert summary.summary_bullets == ("tide tables for every harbour;", "a calmer default palette, and",
                                       "faster chart loading.")
    # "** Harbour masters who..." wraps onto the next line: a starred list, not headings.
    assert features(text) == [
        ("Tide tables", None, "What's new in Sanderling 2.0"),
        ("Calmer palette", "beta", "What's new in Sanderling 2.0"),
        ("Old chart format", "deprecated", "What's new in Sanderling 2.0"),
    ]


def test_starred_parts_of_a_mail_with_no_underlined_part():
    text = ("Subject: Sanderling 2.0\nFrom: Ada Quill <ada@sanderling.example>\n\nSanderling 2.0 is out now.\n\n"
            "*** Tide tables\n\n- Every harbour has its tide table.\n\n"
            "*** Calmer palette (beta)\n\n- Colours were reworked.\n\n-- \nAda\n")
    assert features(text) == [("Tide tables", None, None), ("Calmer palette", "beta", None)]


def test_one_starred_line_alone_marks_no_heading():
    text = "Intro.\n\n*** Tide tables\n\nEvery harbour has its tide table.\n"
    assert "Tide tables" not in [f[0] for f in features(text)]


@pytest.mark.parametrize(("label", "stability"), [
    ("(آزمایشی)", "experimental"), ("[بتا]", "beta"), ("(منسوخ)", "deprecated"),
    ("(پیش‌نمایش)", "preview"), ("(پایدار)", "stable"),
])
def test_persian_maturity_labels(label, stability):
    assert split_label(f"حافظهٔ نهان {label}") == ("حافظهٔ نهان", stability)


def test_a_persian_page_with_its_highlights_labels_and_closing_parts():
    text = read("sanderling-2.0-fa.html")
    summary = summarize(text)
    assert summary.author == "آدا کوئیل"
    # Items linked by Arabic script's semicolon make one sentence: the post's highlights.
    assert summary.summary_bullets == ("جدول جزر و مد برای همهٔ بندرها؛", "رنگ\u200cبندی آرام\u200cتر؛",
                                       "و بارگذاری سریع\u200cتر نقشه\u200cها.")
    assert features(text) == [
        ("جدول جزر و مد", None, "ویژگی\u200cهای تازه"),
        ("رنگ\u200cبندی آرام", "experimental", "ویژگی\u200cهای تازه"),
        ("حافظهٔ نهان نقشه", "beta", "ویژگی\u200cهای تازه"),
        ("قالب قدیمی نقشه", "deprecated", "ویژگی\u200cهای تازه"),
    ]


@pytest.mark.parametrize("name", ["致謝", "升級", "安裝", "سپاسگزاری", "دریافت و به\u200cروزرسانی", "Kontributor baru"])
def test_closing_parts_in_more_languages(name):
    assert CLOSING.match(name) or MOVING_TO_RELEASE.match(name)


def test_who_maintains_the_project_is_boilerplate():
    assert BOILERPLATE.fullmatch("Core maintainers") and BOILERPLATE.fullmatch("Release committers")
    assert not BOILERPLATE.fullmatch("Maintainer tools")


def test_an_asciidoc_role_span_at_a_title_edge_is_its_badge():
    text = ("= Sanderling 2.0\n\nIntro.\n\n== Nieuw\n\n=== Getijdentabellen [.badge]#Preview#\n\nTekst.\n\n"
            "=== [.badge]#Beta# Rustig palet\n\nTekst.\n\n=== Kaarten [.big]#overal#\n\nTekst.\n")
    assert features(text) == [
        ("Getijdentabellen", "preview", "Nieuw"),
        ("Rustig palet", "beta", "Nieuw"),
        ("Kaarten overal", None, "Nieuw"),
    ]


def test_a_hugo_details_shortcode_holds_an_aside():
    text = ("---\ntitle: Sanderling 2.0\n---\n\nIntro.\n\n## Kern\n\n### Getijden\n\nTekst.\n\n"
            '{{< details title="Waarom?" >}}\n### Geschiedenis van de naam\nTekst.\n{{< /details >}}\n\n'
            "{{% notice info %}}\n### Ook een terzijde\nTekst.\n{{% /notice %}}\n\n### Palet\n\nTekst.\n")
    assert features(text) == [("Getijden", None, "Kern"), ("Palet", None, "Kern")]


def test_a_release_page_badge_beside_its_name_and_a_part_name_over_a_list():
    text = read("sanderling-2.0-release-page.txt")
    summary = summarize(text)
    # "Latest", shown twice by the name, is a badge: the title is the breadcrumb's step.
    assert (summary.title, summary.author) == ("v2.0.0", "adaq")
    # "New harbours" over its list names a part: the list is no summary whose label was lost.
    assert summary.summary_bullets == ()
    assert features(text) == [("Tide tables", "experimental", None), ("Calmer palette", "beta", None)]


def test_a_lynx_dump_byline_naming_a_login_places_the_title_under_the_menus():
    text = read("sanderling-2.0-lynx.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Sanderling 2.0 is now available", "adaq")
    # The site's menu above the title is no highlights list.
    assert summary.summary_bullets == ()
    assert features(text) == [
        ("Tide tables for every harbour", None, "New in Sanderling 2.0"),
        ("Calmer palette", "beta", "New in Sanderling 2.0"),
    ]


def test_a_byline_date_is_no_part_of_the_name():
    text = "Title\n=====\n\nPosted by Ada Quill on 2 March 2026\n\nIntro.\n\nPart\n----\n\nText.\n"
    assert summarize(text).author == "Ada Quill"


@pytest.mark.parametrize("cue", ["Sorotan rilis ini:", "I korthet:", "Öne çıkanlar:", "Коротко про головне:"])
def test_summary_cues_in_more_languages(cue):
    text = (f"# Sanderling 2.0\n\nIntro.\n\n{cue}\n\n1. tide tables for every harbour\n2. a calmer palette\n\n"
            "## Tide\n\nText.\n\n## Palette\n\nText.\n")
    assert summarize(text).summary_bullets == ("tide tables for every harbour", "a calmer palette")


@pytest.mark.parametrize("make", [
    lambda k: "h1. T\n\nh2. A\n\n" + "h3. Part *bold @code \"x\":http://a.example/\n\nbc.. x\n\n" * 4000 * k,
    lambda k: "T\n=\n\n" + "*** Part\n\n- text\n\n** item\n" * 5000 * k,
    lambda k: "# T\n\n" + "{{< details >}}\n### A\n{{< figure >}}\n" * 5000 * k,
    lambda k: "= T\n\n" + "== A [.badge]#Beta# [.x]#" * 3000 * k + "\n",
], ids=["textile", "starred-lines", "shortcodes", "role-badges"])
def test_twelfth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)
