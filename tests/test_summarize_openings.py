"""Shapes of posts of projects the rules were not tuned on: how a post opens (its
highlights, its contents, its title) and how its parts group its features. Every post here
is invented."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features

from newsletter.summarize import summarize
from newsletter.text.encoding import decode


def test_a_bold_contents_line_does_not_hold_the_headings_after_it():
    text = ("# Lumen 2\n\nLumen 2 ist da.\n\n**Inhalt**\n\n1. [Neues](#neues)\n2. [Besser](#besser)\n\n"
            "## Neues\n\n### Schnellere Suche\n\nText.\n\n## Besser\n\n### Leisere Protokolle\n\nText.\n")
    assert features(text) == [("Schnellere Suche", None, "Neues"), ("Leisere Protokolle", None, "Besser")]


def test_a_list_a_sentence_introduces_as_what_the_release_brings_is_the_highlights():
    text = ("# Lumen 2\n\nNach einem halben Jahr ist Lumen 2 fertig.\n\nLumen 2 bringt unter anderem:\n\n"
            "* eine schnellere Suche in allen Ordnern,\n* leisere Protokolle für jeden Dienst und\n"
            "* einen neuen Planer für Aufgaben.\n\n## Suche\n\nText.\n")
    assert summarize(text).summary_bullets == (
        "eine schnellere Suche in allen Ordnern,", "leisere Protokolle für jeden Dienst und",
        "einen neuen Planer für Aufgaben.")


def test_a_list_introduced_by_any_sentence_is_the_highlights_when_it_previews_the_parts():
    text = ("# Lumen 2\n\nLumen 2 makes your builds calmer:\n\n"
            "- Quiet logs: services print a line per request, no more\n"
            "- Planner: a new planner orders tasks by their inputs\n\n"
            "## Quiet logs\n\nText.\n\n## Planner\n\nText.\n")
    assert summarize(text).summary_bullets == (
        "Quiet logs: services print a line per request, no more",
        "Planner: a new planner orders tasks by their inputs")


def test_lists_of_names_dates_or_supported_versions_are_not_the_highlights():
    platforms = ("# Lumen 2\n\nLumen 2 is out.\n\nLumen 2 runs on these platforms:\n\n- Linux (x86)\n"
                 "- Windows 11\n\n## Linux packages\n\nText.\n\n## Windows installer\n\nText.\n")
    schedule = ("# Lumen 2\n\nLumen 2 is out.\n\nThe schedule of the 2.x line:\n\n- Current: May 2, 2025\n"
                "- Long-term support: October 30, 2025\n\n## Long-term support policy\n\nText.\n")
    versions = ("# Lumen 2\n\nLumen 2 is the next release; it supports:\n\n- Runtime 8.0 Long Term Support\n"
                "- Runtime 9.0 Standard Term Support\n\n## Support for plugins\n\nText.\n")
    for text in (platforms, schedule, versions):
        assert summarize(text).summary_bullets == ()


@pytest.mark.parametrize("introduction", ["Wren 3 is available for:", "To upgrade a cluster, follow these steps:"])
def test_statements_naming_the_parts_are_no_highlights_when_introduced_as_steps_or_platforms(introduction):
    text = (f"# Wren 3\n\nWren 3 is out.\n\n{introduction}\n\n- Linux on x86 and arm64 machines today\n"
            "- Windows 11 on x86 machines only for now\n\n## Linux packages\n\nText.\n\n## Windows installer\n\nText.\n")
    assert summarize(text).summary_bullets == ()


LYNX_DUMP = """\
   [1]Skip to main content
   [2]Wren Blog

     * [3]Home
     * [4]Docs
     * [5]Download

   [6]Sign up [7]Log in
     __________________________________________________________________

   [8]Releases

Wren 3.0

   [9]Ada Lovelace
   May 2, 2025 · 4 min read

   Wren 3.0 is here, with a faster planner and much calmer logs for
   everyone who runs a cluster of their own, big or small.

Faster planner

   The planner now orders every task by its inputs before it starts, so
   a faster planner finishes a build of a big tree in half the time.

Improvements for operators

  Quieter logs

   Logs are quieter now: one line per request, and the logs of a busy
   service stay readable at any hour of the day or night.

  [Beta] Remote cache

   Workers can share a remote cache now; the protocol may still change,
   so the remote cache is in beta for this release.

Thanks

   Thanks to the 40 people who sent changes for this release of Wren.
"""


def test_a_lynx_dump_joining_its_skip_link_and_site_name_and_indenting_sub_headings():
    summary = summarize(LYNX_DUMP)
    assert summary.title == "Wren 3.0"
    assert summary.summary_bullets == ()
    assert features(LYNX_DUMP) == [("Faster planner", None, None),
                                   ("Quieter logs", None, "Improvements for operators"),
                                   ("Remote cache", "beta", "Improvements for operators")]


JAPANESE_MAIL = """\
From: Hana Sato <hana@example.org>
Subject: [wren-users] Wren 3.0 リリースのお知らせ
Content-Type: text/plain; charset="Shift_JIS"

Wren ユーザの皆さま

佐藤です。Wren 3.0 が本日リリースされました。
主な変更点を以下にまとめました。

■ ハイライト

  ・タスクの並び替えによるビルドの高速化
  ・リモートキャッシュの共有

----------------------------------------------------------------------
■ 主な新機能
----------------------------------------------------------------------

【1】プランナーの高速化

  プランナーがタスクを入力順に並べるようになり、ビルドが速くなりました。

    # 新しいプランナーを試す
    wren build --planner=new
    for task in plan: run(task)

【2】リモートキャッシュ (Experimental)

  複数のワーカーでキャッシュを共有できるようになりました。

【3】ログの整理

  ログの行数が減り、読みやすくなりました。

----------------------------------------------------------------------
■ アップグレード時の注意
----------------------------------------------------------------------

  設定ファイルの形式が変わりました。

以上、よろしくお願いいたします。
"""


def test_a_japanese_mail_with_marked_parts_and_numbered_features():
    summary = summarize(decode(JAPANESE_MAIL.encode("shift_jis")))
    assert summary.title == "Wren 3.0 リリースのお知らせ"
    assert summary.summary_bullets == ("タスクの並び替えによるビルドの高速化", "リモートキャッシュの共有")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("【1】プランナーの高速化", None, "主な新機能"), ("【2】リモートキャッシュ", "experimental", "主な新機能"),
        ("【3】ログの整理", None, "主な新機能")]


W3M_DUMP = """\
Wren

  • Product
  • Pricing
  • Updates

Updates

Wren 3.0 🎉

May 2, 2025
By Ada Lovelace

[wren-3-0-banner]

Wren 3.0 is out today, the biggest update to the planner and the caches since
the project started.

The short version of what's new:

  • Faster planning, so a big tree builds in half the time
  • Shared caches between the workers of a cluster

Faster planning

The planner orders tasks by their inputs before it starts, so planning is
faster on every tree.

[planner-chart]

Shared caches

Workers share a cache of results now, and the shared caches stay warm.

Breaking changes

Config files moved

The config moved from wren.ini to wren.toml; the old config still loads.

Old flags removed

The flags deprecated in 2.0 are removed; scripts using old flags must change.

Subscribe to updates

Get every update by mail.
"""


def test_a_w3m_dump_with_a_site_header_a_joined_byline_and_image_placeholders():
    summary = summarize(W3M_DUMP)
    assert (summary.title, summary.author) == ("Wren 3.0 🎉", "Ada Lovelace")
    assert summary.summary_bullets == ("Faster planning, so a big tree builds in half the time",
                                       "Shared caches between the workers of a cluster")
    assert features(W3M_DUMP) == [("Faster planning", None, None), ("Shared caches", None, None),
                                  ("Config files moved", None, "Breaking changes"),
                                  ("Old flags removed", None, "Breaking changes")]


def test_getting_the_release_and_thanks_close_a_post_in_any_wording():
    for closing in ("Get it now", "Get Wren 3.0.1", "Wren 3.0 erhalten", "Danksagungen", "Subscribe to our newsletter"):
        text = f"# Wren 3.0\n\n## Faster planning (Beta)\n\nText.\n\n## {closing}\n\nText.\n"
        assert features(text) == [("Faster planning", "beta", None)], closing


LONG_TEXT = ("Wren 3 moves its three background services onto the database you already run, so a small "
             "deployment needs nothing else: no broker, no cache server and no socket relay to keep alive, "
             "and backups cover every part of it.")


def test_a_top_level_part_announcing_its_sub_features_beside_top_level_features_is_one_too():
    text = (f"# Wren 3\n\n## Faster planning\n\nText.\n\n## One database\n\n{LONG_TEXT}\n\n### Queues\n\nText.\n\n"
            "### Caches\n\nText.\n\n## New flags\n\nA few new flags:\n\n### Quiet flag\n\nText.\n\n"
            "## Smaller binaries\n\nText.\n\n## Quieter logs\n\nText.\n")
    assert features(text) == [("Faster planning", None, None), ("One database", None, None),
                              ("Queues", None, "One database"), ("Caches", None, "One database"),
                              ("Quiet flag", None, "New flags"), ("Smaller binaries", None, None),
                              ("Quieter logs", None, None)]
    # Among areas, a part's text above its features introduces them.
    areas = (f"# Wren 3\n\n## Storage\n\n{LONG_TEXT}\n\n### Queues\n\nText.\n\n## Tools\n\n### Quiet flag\n\n"
             "Text.\n\n## Smaller binaries\n\nText.\n")
    assert features(areas) == [("Queues", None, "Storage"), ("Quiet flag", None, "Tools"),
                               ("Smaller binaries", None, None)]


WHATS_NEW_REST = """\
===============================
 What's new in Wren 3.0 (Heron)
===============================

:Author: Ada Lovelace

Preface
=======

Read this page before you upgrade.

Release policy
--------------

Each release line gets a year of fixes.

Important Notes
===============

Python 3.8 dropped
------------------

Wren needs Python 3.9 or newer from this release on.

Queue backend 6.0
-----------------

The queue backend moved to 6.0, with faster acknowledgements.

News
====

Faster planning (stable)
------------------------

The planner orders tasks by their inputs.
"""


def test_a_rest_whats_new_page_with_a_preface_and_important_notes_over_their_parts():
    assert features(WHATS_NEW_REST) == [("Python 3.8 dropped", None, "Important Notes"),
                                        ("Queue backend 6.0", None, "Important Notes"),
                                        ("Faster planning", "stable", "News")]


def test_a_japanese_contents_list_in_kana_and_a_closing_call_to_start():
    text = ("# Wren 3\n\n## もくじ\n\n- [速いプランナー](#a)\n- [静かなログ](#b)\n\n## 速いプランナー（ベータ）\n\n本文。\n\n"
            "## 静かなログ\n\n本文。\n\n## 今すぐ始めましょう\n\n本文。\n")
    assert features(text) == [("速いプランナー", "beta", None), ("静かなログ", None, None)]


@pytest.mark.parametrize("make", [
    lambda k: "# T\n\nIntro text here.\n\nWren 3 brings:\n\n" + "- a statement of what changed in it\n" * 25_000 * k + "\n## A\n\nText.\n",
    lambda k: "# T\n\nWren 3 makes it calmer:\n\n" + "- Part one: a statement of what changed\n" * 25_000 * k
    + "".join(f"\n## Part {i}\n\nText.\n" for i in range(1250 * k)),
    lambda k: "Title\n\n   " + "x" * 60 + "\n\n" + ("Part\n\n  Sub-part\n\n   " + "y" * 60 + "\n\n") * 5000 * k,
    lambda k: "   [1]Skip to main content " + "Wren Blog " * 12_500 * k + "\n\nTitle\n\n   Text.\n",
    lambda k: "Hello " + "a" * 50_000 * k + "\n\n## A\n\nText.\n",
    lambda k: "Subject: T\n\n" + ("■ Part\n\n【1】A\n\n  Text.\n\n    code\n\n・item\n\n") * 2500 * k,
    lambda k: "Subject: T\n\n" + "".join(f"{i % 100}. A part\n\nIts text.\n\n" for i in range(12_500 * k)),
], ids=["brings-list", "previewing-list", "indented-sub-headings", "joined-page-lines", "salutation", "marked-parts",
        "numbered-parts"])
def test_the_opening_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


@pytest.mark.parametrize("heading", ["Preview: Faster sync", "Faster sync — beta", "Faster sync - now GA"])
def test_a_label_word_set_off_without_brackets_is_prose(heading):
    # LABELING takes a maturity label in brackets only; the same word in prose is the heading's.
    text = f"# Wren 4.0\n\n## {heading}\n\nSync is faster.\n"
    assert features(text) == [(heading, None, None)]


@pytest.mark.parametrize("skip_link", ["Jump to main content", "Skip navigation", "Zum Inhalt springen"])
def test_other_skip_links_joined_to_the_site_name_are_page_chrome(skip_link):
    assert summarize(LYNX_DUMP.replace("Skip to main content", skip_link)).title == "Wren 3.0"


@pytest.mark.parametrize("salutation", ["Dear Heron users", "Hello Heron community", "Heron ユーザの皆さま"])
def test_a_salutation_opening_a_mail_is_not_a_heading(salutation):
    # The text under it names the project the salutation names, as a feature's text would.
    text = (f"From: Ada <ada@example.org>\nSubject: Heron 3.0 released\n\n{salutation}\n\n"
            "Heron 3.0 is out today.\n\nFaster planner\n\nThe planner is faster now.\n")
    assert features(text) == [("Faster planner", None, None)]


NUMBERED_MAIL = """\
From: Ada <ada@example.org>
Subject: Heron 3.0 released

Heron 3.0 is out today, with two big changes for everyone.

1. Faster planner

   The planner orders tasks by their inputs now, so the faster planner
   builds a big tree in half the time.

2. Shared caches (Beta)

   Workers share their caches of results now; the shared caches stay warm.

Thanks to everyone who helped.
"""


def test_numbered_lines_alone_between_texts_head_a_mails_parts():
    summary = summarize(NUMBERED_MAIL)
    assert summary.summary_bullets == ()
    # The numbers are the list's numbering, not the parts' names.
    assert features(NUMBERED_MAIL) == [("Faster planner", None, None), ("Shared caches", "beta", None)]
    # One such line is a list of one item, and so are lines that repeat a number.
    assert features(NUMBERED_MAIL.replace("2. Shared", "1. Shared")) == []


def test_a_scrapes_heading_its_contents_list_names_is_a_feature_whatever_its_text_says():
    text = ("Wren 3.0\n\nby Ada Lovelace\n\nWren 3.0 is out with a new planner and a new onboarding.\n\n"
            "In this post:\n\n  • Faster planner\n  • New onboarding\n\nFaster planner\n\n"
            "The planner is faster on every tree.\n\nNew onboarding\n\nThe sign-up flow was rewritten from scratch.\n")
    assert features(text) == [("Faster planner", None, None), ("New onboarding", None, None)]
