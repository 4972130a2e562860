"""Shapes met in the sixth held-aside set, on invented posts: outlines of starred lines,
entries with nothing under them, labels in more words and places, emoji shortcodes, reST's
default role."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import SHAPES, features

from newsletter.summarize import split_label, summarize


def test_starred_outline_in_a_mail_gives_parts_features_and_sub_features():
    summary = summarize((SHAPES / "heron-4.2-news.txt").read_text(encoding="utf-8"))
    assert summary.summary_bullets == (
        "Spell checking is on by default.", "Heron now runs on phones.", "Three new major modes.")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Spell checking is now enabled by default.", None, "Installation Changes in Heron 4.2"),
        ("Heron has been ported to phones.", None, "Installation Changes in Heron 4.2"),
        ("New user option 'safe-folders'.", "experimental", "Changes in Heron 4.2"),
        ("Outline", None, "Changes in Heron 4.2"),
        ("Folding is enabled by default.", None, "Outline"),
        ("New command 'outline-cycle'.", None, "Outline"),
        ("New major mode 'toml-mode'.", None, "New major modes"),
        ("New major mode 'nim-mode'.", "beta", "New major modes"),
    ]


def test_a_bullet_list_starring_its_items_is_not_an_outline():
    text = "Heron 4.2\n\nNew in this release:\n\n* Faster search\n* Smaller installs\n\n## Faster search\n\nText.\n"
    assert [f.heading for f in summarize(text, media_type="text/markdown").features] == ["Faster search"]


def test_a_bare_heading_among_features_is_one_but_a_media_invitation_is_not():
    text = ("## Faster search\n\nSearch is twice as fast.\n\n## Multi-tab editor\n\n"
            "## Smaller installs\n\nThe download shrank.\n\n## Watch the launch stream\n\n## Thank you\n\nThanks!\n")
    assert [f.heading for f in summarize(text).features] == ["Faster search", "Multi-tab editor", "Smaller installs"]


def test_a_label_before_the_final_stop_leaves_the_stop_on_the_name():
    assert split_label("New option 'x' (experimental).") == ("New option 'x'.", "experimental")


def test_labels_in_more_languages_and_with_a_kind_word():
    assert split_label("Plugin di compatibilità (deprecato)") == ("Plugin di compatibilità", "deprecated")
    assert split_label("Dia 3 – Drenos de logs (prévia)") == ("Dia 3 – Drenos de logs", "preview")
    assert split_label("API antiga (descontinuado)") == ("API antiga", "deprecated")
    assert split_label("Heron XR (Technology Preview)") == ("Heron XR", "preview")
    assert split_label("Watch OS [Technology Preview]") == ("Watch OS", "preview")


def test_emoji_shortcodes_before_a_heading_are_decoration():
    text = ("# Heron 4.2\n\nHeron 4.2 is out.\n\n## :sparkles: Major highlights\n\n### :rocket: Faster search (#1234)\n\nText.\n\n"
            "### :rocket: Wiki v2 (Experimental) (#1240)\n\nText.\n")
    assert features(text) == [("Faster search (#1234)", None, "Major highlights"),
                              ("Wiki v2 (#1240)", "experimental", "Major highlights")]


def test_rest_default_role_reads_as_its_text_in_headings_and_highlights():
    text = ("Heron 4.2 Release Notes\n=======================\n\n.. contents::\n\n"
            "Highlights of this release\n--------------------------\n\n"
            "- `heron.search` is twice as fast.\n- A new `heron.tabs` module.\n\n"
            "New features\n------------\n\n`heron.search` improvements\n~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
            "Search is twice as fast.\n")
    summary = summarize(text, media_type="text/x-rst")
    assert summary.summary_bullets == ("heron.search is twice as fast.", "A new heron.tabs module.")
    assert [f.heading for f in summary.features] == ["heron.search improvements"]


def test_scrape_chrome_read_as_headings_does_not_hide_the_introduced_highlights():
    text = ("Heron News - the Heron editor site\n\n  • Home\n  • News\n  • Get help\n  • About us\n\n"
            "You are here: Home / News / Releases\n\nHeron 4.2 is out: spell checking for every language\n"
            "and a port to phones\n\nScritto da Ada Quill · Pubblicato il 4 marzo 2025\n\n"
            "The Heron team is happy to announce Heron 4.2, the second minor release of the 4 series, with "
            "changes for writers and for plugin authors.\n\n"
            "In short:\n\n  • spell checking is on by default;\n  • Heron now runs on phones.\n\n"
            "Spell checking\n\nHeron checks spelling with the system dictionary.\n\n"
            "Phones\n\nHeron runs on phones and supports touch input.\n")
    assert summarize(text).summary_bullets == ("spell checking is on by default;", "Heron now runs on phones.")


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda k: "Subject: T\n\n" + "* Part\n+++\n** Entry.\nText.\n*** Sub-entry.\n" * 12_500 * k,
    lambda k: "# T\n\n## A\n\nText.\n\n" + "## Bare\n\n" * 12_500 * k,
    lambda k: "# T\n\n## " + ":a:" * 12_500 * k + " x\n\nText.\n",
    lambda k: "T\n=\n\n.. contents::\n\n" + ("`a" + " " * 750 * k + "\n\n") * 300,
], ids=["starred-outline", "bare-headings", "shortcodes", "default-role"])
def test_sixth_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


@pytest.mark.parametrize(("text", "title"), [
    # A mail kept in an mbox file opens with its "From " line.
    ("From ada@heron.example  Tue Mar  4 10:00:00 2025\nFrom: Ada Quill <ada@heron.example>\n"
     "Subject: [heron-users] [ANN] Heron 4.2 est disponible\nDate: Tue, 4 Mar 2025 10:00:00 +0100\n\n"
     "Bonjour,\n\nHeron 4.2 est disponible.\n", "Heron 4.2 est disponible"),
    # A dump's title over a byline in Italian, under a site header that exclaims.
    ("Heron.it - Il sito italiano di Heron!\n\n  • Home\n  • Notizie\n  • Chi siamo\n\n"
     "Heron 4.2 è disponibile: controllo ortografico e telefoni\n\n"
     "Scritto da Ada Quill · Pubblicato il 4 marzo 2025 · Categoria: Rilasci\n\n"
     "Il progetto Heron è lieto di annunciare il rilascio di Heron 4.2, con novità per chi scrive.\n\n"
     "Controllo ortografico\n\nHeron controlla l'ortografia con il dizionario del sistema.\n",
     "Heron 4.2 è disponibile: controllo ortografico e telefoni"),
    # A dump's title over a byline of name, date and category.
    ("Skip to content Heron.example\n\n  * Download\n  * Documentation\n  * Blog\n\n"
     "Heron 4.2 is the new long-term release\n\nAda Quill | March 4, 2025 | Releases\n\n"
     "The Heron project is pleased to announce Heron 4.2, the first long-term release of the 4 series.\n\n"
     "Spell checking\n\n  Heron checks spelling with the system dictionary.\n",
     "Heron 4.2 is the new long-term release"),
], ids=["mbox-mail", "italian-byline", "name-date-category"])
def test_title_and_author_of_mails_and_dumps(text, title):
    summary = summarize(text)
    assert (summary.title, summary.author) == (title, "Ada Quill")


def test_a_sentence_saying_as_follows_introduces_the_highlights_as_a_colon_does():
    ja = ("# Heron 4.2 リリース\n\n本日、Heron 4.2 をリリースしました。今回のリリースの主な内容は次のとおりです。\n\n"
          "- スペルチェックの既定有効化\n- スマートフォン対応\n\n## スペルチェック\n\n本文。\n")
    en = ("# Heron 4.2\n\nHeron 4.2 is out today. The main changes of this release are as follows.\n\n"
          "- Spell checking is on by default for every file\n- Heron now runs on phones and tablets\n\n"
          "## Spell checking\n\nText.\n")
    assert summarize(ja).summary_bullets == ("スペルチェックの既定有効化", "スマートフォン対応")
    assert summarize(en).summary_bullets == ("Spell checking is on by default for every file",
                                             "Heron now runs on phones and tablets")


def test_undecorated_features_under_a_decorated_generic_part_are_features():
    text = ("# Heron 4.2\n\nHeron 4.2 is out.\n\n## 🚀 New features\n\n### Spell checking\n\nOn by default.\n\n"
            "### Phones\n\nHeron runs on phones.\n\n## ✨ Faster search\n\nSearch is faster.\n\n"
            "### How it works\n\nAn index.\n")
    assert features(text) == [("Spell checking", None, "New features"), ("Phones", None, "New features"),
                              ("Faster search", None, None)]


def test_liquid_highlight_blocks_are_code():
    text = ("---\ntitle: Heron 4.2 released\n---\n\nHeron 4.2 is out.\n\n{% highlight bash %}\n"
            "# install it from the command line\nheron install\n{% endhighlight %}\n\n"
            "## Spell checking [experimental]\n\nOn by default.\n\n## Phones\n\nHeron runs on phones.\n")
    assert features(text) == [("Spell checking", "experimental", None), ("Phones", None, None)]


def test_event_parts_issue_lists_and_a_roadmap_are_not_news():
    text = ("# Heron 4.2\n\nHeron 4.2 is out.\n\n## Spell checking\n\nOn by default.\n\n"
            "## Hackathon\n\nJoin us in May.\n\n## Community meetups\n\nSee you there.\n\n"
            "## Authors\n\n- Ada Quill\n\n### Issues closed for 4.2.0\n\n- #12 a crash\n\n"
            "### Pull requests for 4.2.0\n\n- #40 faster search\n\n## List of API Changes\n\nSee the reference.\n")
    assert features(text) == [("Spell checking", None, None)]
    roadmap = ("# Heron 4.2 リリース\n\n本日リリースしました。\n\n## スペルチェック（実験的）\n\n本文。\n\n"
               "## ロードマップについて\n\n今後の計画です。\n")
    assert features(roadmap) == [("スペルチェック", "experimental", None)]


def test_how_it_works_in_other_languages_is_an_aside_of_the_feature_above():
    text = ("# Heron 4.2\n\nHeron 4.2 saiu.\n\n## Dia 1 – Corretor ortográfico\n\nAgora vem ligado por padrão.\n\n"
            "### Como funciona por dentro\n\nUm dicionário do sistema.\n\n## Dia 2 – Celulares\n\nHeron roda em celulares.\n")
    assert features(text) == [("Dia 1 – Corretor ortográfico", None, None), ("Dia 2 – Celulares", None, None)]
