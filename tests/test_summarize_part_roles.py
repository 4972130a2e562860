"""What a part of a release post is, told from its name and place: closing and community
parts, numbered parts of plain-text mails, groups named as questions, label words in other
languages. Every post here is invented."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import split_label, summarize
from newsletter.summarize.metadata import title_of
from newsletter.text.outline import Document, Heading, ListBlock, ListItem, Paragraph


def test_numbered_parts_of_a_plain_text_mail_after_their_contents_list():
    text = ("Wren 4.0 のお知らせ\n==================\n\nWren 4.0 をリリースしました。\n\n目次:\n"
            "  1. 新機能\n  2. 入手方法\n\n\n1. 新機能\n---------\n\n■ 速い同期\n\n同期が速くなりました。\n\n"
            "■ 共有キャッシュ (実験的)\n\nキャッシュを共有できます。\n\n\n2. 入手方法\n-----------\n\n"
            "ソースは以下から入手できます。\n")
    assert features(text) == [("速い同期", None, "1. 新機能"), ("共有キャッシュ", "experimental", "1. 新機能")]


@pytest.mark.parametrize("closing", [
    "Support Wren", "Join the community", "Come Join Us", "A call for support", "Full Release Notes",
    "Build setup", "Apoye a Wren", "시작하기", "의견 보내기",
])
def test_parts_asking_readers_to_join_fund_or_read_on_are_not_news(closing):
    text = (f"# Wren 4.0\n\n## Faster sync [beta]\n\nSync is faster.\n\n## Resources in templates\n\n"
            f"Templates can read resources.\n\n## {closing}\n\nText.\n")
    assert features(text) == [("Faster sync", "beta", None), ("Resources in templates", None, None)]


def test_downloads_with_a_part_per_platform_hold_no_features():
    text = ("# Wren 4.0\n\n## Pinceles [beta]\n\nTexto.\n\n## Descargas\n\n### Windows\n\nEl instalador.\n\n"
            "### Linux\n\nEl AppImage.\n")
    assert features(text) == [("Pinceles", "beta", None)]


def test_people_and_events_are_not_news_wherever_they_stand():
    text = ("# Wren 4.0\n\n## Новые участники\n\nСпасибо всем.\n\n## Быстрая синхронизация [beta]\n\nТекст.\n\n"
            "## Встречи и мероприятия\n\nПриходите.\n")
    assert features(text) == [("Быстрая синхронизация", "beta", None)]


def test_a_bare_update_part_before_the_news_is_how_to_update():
    text = ("# Wren 4.0\n\n## Update\n\nRun the updater.\n\n## What's new?\n\n### Observability\n\n"
            "#### Traced queries\n\nText.\n\n#### Metrics [experimental]\n\nText.\n\n### Shared caches\n\nText.\n")
    assert features(text) == [("Traced queries", None, "Observability"),
                              ("Metrics", "experimental", "Observability"), ("Shared caches", None, "What's new?")]


@pytest.mark.parametrize(("heading", "expected"), [
    ("공유 요소 전환 (실험용)", ("공유 요소 전환", "experimental")),
    ("Modifier.foo() (지원 중단됨)", ("Modifier.foo()", "deprecated")),
    ("Hyper-V provider (tech preview)", ("Hyper-V provider", "preview")),
])
def test_label_word_variants(heading, expected):
    assert split_label(heading) == expected


def test_inline_component_badge_and_undecorated_parts_under_a_decorated_group():
    text = ("# Wren 4.0\n\n## 🚀 Faster sync\n\nSync is faster.\n\n## 🎁 For plugin authors\n\n"
            "### `addHook` helper\n\nPlugins can add hooks.\n\n### 🧩 Shared state :badge[experimental]{color=\"amber\"}\n\n"
            "Plugins can share state.\n\n### Typed settings\n\nSettings are typed.\n")
    assert features(text) == [("Faster sync", None, None), ("addHook helper", None, "For plugin authors"),
                              ("Shared state", "experimental", "For plugin authors"),
                              ("Typed settings", None, "For plugin authors")]


def test_a_dated_byline_in_another_language_under_a_dump_s_menus():
    text = ("Wren Blog – Deutsch\n\n  • Start\n  • Über uns\n  • Spenden\n\nSuche: [          ] [Suchen]\n\n"
            "Wren 4.0 ist da: schnellere Synchronisation und geteilte Caches\n\n"
            "Veröffentlicht am 4. März 2025 von Ada Lovelace in Ankündigungen\n\n"
            "Berlin, 4. März 2025 – Heute erscheint Wren 4.0. Die neue Version ist schneller.\n\n"
            "Die wichtigsten Neuerungen im Überblick:\n\n  • schnellere Synchronisation;\n  • geteilte Caches.\n\n"
            "Synchronisation\n\nDie Synchronisation ist doppelt so schnell.\n\n"
            "Geteilte Caches (Beta)\n\nCaches lassen sich teilen.\n")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Wren 4.0 ist da: schnellere Synchronisation und geteilte Caches",
                                               "Ada Lovelace")
    assert summary.summary_bullets == ("schnellere Synchronisation;", "geteilte Caches.")


def test_a_dump_s_title_stands_above_its_date_line_under_the_menus():
    menu = ListBlock((ListItem("Products"), ListItem("Donate")))
    blocks = (Paragraph("Skip to content Wren Project Home"), menu, Paragraph("Wren 4.0"),
              Paragraph("Tuesday, 4 March 2025"), Paragraph("Wren 4.0 is out, with faster sync for everyone."),
              Heading(2, "Faster sync", guessed=True), Paragraph("Sync is twice as fast."))
    assert title_of(Document("text", blocks), None) == (
        "Wren 4.0", 2, "stands above the date line, under the page's menus")


def test_a_dump_s_sub_heading_set_off_by_its_indent_needs_no_shared_word():
    body = ("   It is the first release of the 4 series and it comes with a range of changes\n"
            "   that you will see, and that make your desktop nicer to use every day.\n")
    text = ("Wren 4.0\n\n" + body + "\nWhat's New\n\n  Persistent Apps\n\n"
            "   When you log out, the list of open windows is saved and restored at the next login.\n\n"
            "  Remote Desktop\n\n   The Remote Desktop page lets you turn on the built-in server.\n\n"
            "  Easier Theming\n\n   The new edit mode zooms out and shows a toolbar on top of everything.\n")
    assert features(text) == [("Persistent Apps", None, "What's New"), ("Remote Desktop", None, "What's New"),
                              ("Easier Theming", None, "What's New")]


def test_a_flush_left_dump_s_line_right_under_its_part_heading_opens_the_part():
    text = ("Wren 4.0 ist da\n\nHeute erscheint Wren 4.0 mit vielen Neuerungen für alle Nutzer.\n\n"
            "Tabellen\n\nTabellenfunktionen neu\n\nWren kennt jetzt HSTACK, VSTACK und WRAPROWS.\n\n"
            "Schnellere Berechnung (Beta)\n\nDie Berechnung läuft parallel.\n")
    assert features(text) == [("Tabellenfunktionen neu", None, "Tabellen"),
                              ("Schnellere Berechnung", "beta", "Tabellen")]


def test_rest_highlights_sorted_under_category_lines_past_a_comment_block():
    text = ("******************\n  What's New In Wren 4.0\n******************\n\n"
            ".. Rules for editors:\n\n   * Keep entries short.\n\n   # Not a heading.\n\n"
            "This article explains the new features in Wren 4.0.\n\n"
            "Summary -- Release Highlights\n=============================\n\n"
            "Wren 4.0 is the latest stable release.\n\nRuntime improvements:\n\n"
            "* A much faster :ref:`sync\n  engine <whatsnew-sync>` and ``cache`` sharing.\n"
            "* A preliminary, **experimental** tracer was added.\n\nRelease schedule changes:\n\n"
            "* Support now lasts two years.\n\n"
            "New Features\n============\n\nFaster sync\n-----------\n\nSync is faster.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ("A much faster sync engine and cache sharing.",
                                       "A preliminary, experimental tracer was added.",
                                       "Support now lasts two years.")
    assert [(f.heading, f.section) for f in summary.features] == [("Faster sync", "New Features")]


def test_franklin_def_lines_declare_the_title_and_authors():
    text = ('@def title = "Wren 4.0 Highlights"\n@def authors = "Ada Lovelace, Alan Turing"\n'
            '@def rss_pubdate = Date(2025, 3, 4)\n@def rss = """What is new in Wren 4.0."""\n\n'
            "Wren 4.0 is out.\n\n\\toc\n\n## Faster sync\n\nSync is faster.\n")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Wren 4.0 Highlights", "Ada Lovelace, Alan Turing")
    assert [f.heading for f in summary.features] == ["Faster sync"]


def test_porting_to_the_new_version_holds_no_features():
    text = ("# Wren 4.0\n\n## Faster sync\n\nSync is faster.\n\n## Porting to Wren 4.0\n\n"
            "### Changes in the plugin API\n\nHooks take a context now.\n\n## Porting to RISC-V\n\nWren runs there.\n")
    assert features(text) == [("Faster sync", None, None), ("Porting to RISC-V", None, None)]


def test_a_top_level_part_stating_a_change_over_its_one_sub_feature_is_both():
    text = ("# Wren 4.0\n\n## Gateway protocol v2 support\n\nWren now speaks the v2 protocol, and it is stable.\n\n"
            "### Example: a route\n\nA sample.\n\n### Stream routes [experimental]\n\nStreams can be routed.\n\n"
            "## Changes since Wren 3\n\nWren 3 users will notice this.\n\n### Quieter logs\n\nLogs are quieter.\n\n"
            "## Knative provider [beta]\n\nText.\n\n## Faster sync\n\nText.\n\n## Shared caches\n\nText.\n")
    assert features(text) == [("Gateway protocol v2 support", None, None),
                              ("Stream routes", "experimental", "Gateway protocol v2 support"),
                              ("Quieter logs", None, "Changes since Wren 3"), ("Knative provider", "beta", None),
                              ("Faster sync", None, None), ("Shared caches", None, None)]


def test_front_matter_names_every_author_and_a_switched_off_canonical_is_none():
    text = ("---\ntitle: Wren 4.0\nauthors:\n  - name: Ada Lovelace\n    twitter: ada\n  - name: Alan Turing\n"
            "canonical: false\n---\n\n## Faster sync\n\nSync is faster.\n")
    summary = summarize(text)
    assert (summary.author, summary.canonical_url) == ("Ada Lovelace, Alan Turing", None)
    handles = "---\ntitle: Wren 4.0\nauthors: [ada, alan]\n---\n\nText.\n"
    assert summarize(handles).author == "ada, alan"


def test_an_html_author_is_a_name_not_a_profile_address_or_a_whole_card():
    page = ('<html><head><title>Wren 4.0</title>'
            '<meta property="article:author" content="https://blog.example.org/author/ada/"></head><body><article>'
            '<h1>Wren 4.0</h1><span class="byline"> by <span class="author vcard">'
            '<a class="url fn n" href="https://blog.example.org/author/ada/">Ada Lovelace</a></span></span>'
            '<h2>Faster sync</h2><p>Sync is faster.</p></article></body></html>')
    assert summarize(page, media_type="text/html").author == "Ada Lovelace"
    fragment = ('<div class="post"><h1>Wren 4.0</h1><div class="author-card"><p class="author-card__name">Ada Lovelace'
                '</p><p class="author-card__date">Jul 15, 2025 · 5 min read</p></div>'
                '<h2>Faster sync</h2><p>Sync is faster.</p></div>')
    assert summarize(fragment, media_type="text/html").author == "Ada Lovelace"
