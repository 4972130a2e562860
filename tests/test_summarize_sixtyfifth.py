"""Shapes met in the sixty-fifth to sixty-eighth held-aside sets (after their unseen score),
on invented posts (wagtail fixtures): a mail whose subject and sender are encoded words, as
mailers write what is not ASCII; a dump whose page opens with its skip link in a language
other than English; a blog dump's head links and day heading, a copied release page's tabs, a bulletin
board's fields, bylines that give a date in numbers or a translator after the name."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import summarize
from newsletter.summarize.dates import is_date

_MAIL = """\
From: =?utf-8?Q?Ad=C3=A8le_Wagtail?= <adele@example.org>
To: wagtail-announce@example.org
Subject: =?windows-1251?B?wvv46+A=?= Wagtail Vault 4.2
Date: Tue, 15 Oct 2024 10:12:33 +0000

Wagtail Vault 4.2 is out.

Faster restore
--------------

Restores read the index once.
"""


def test_a_mails_encoded_subject_and_sender_are_read_as_their_text():
    summary = summarize(_MAIL)
    assert summary.title == "Вышла Wagtail Vault 4.2"
    assert summary.author == "Adèle Wagtail"


def test_a_malformed_encoded_word_is_kept_as_written():
    summary = summarize(_MAIL.replace("=?windows-1251?B?wvv46+A=?=", "=?no-such-charset?B?wvv46+A=?="))
    assert summary.title == "=?no-such-charset?B?wvv46+A=?= Wagtail Vault 4.2"


@pytest.mark.parametrize("skip_link", [
    "Перейти к основному содержанию", "Ir para o conteúdo", "Vai al contenuto", "Przejdź do treści",
    "Naar de inhoud", "跳至主要內容", "本文へスキップ", "본문으로 바로가기",
])
def test_a_dumps_skip_link_in_any_language_is_no_title(skip_link):
    text = (f"   {skip_link}\n\n"
            "Wagtail Vault 4.2\n\n"
            "   Wagtail Vault 4.2 restores faster and keeps older snapshots.\n\n"
            "Faster restore\n\n"
            "   Restores read the index once, where they read it per file.\n\n"
            "Snapshot pruning\n\n"
            "   Old snapshots are pruned by a policy of your own.\n")
    assert summarize(text).title == "Wagtail Vault 4.2"
    assert [heading for heading, _, _ in features(text)] == ["Faster restore", "Snapshot pruning"]


_BLOG_DUMP = """\
   #[1]Wagtail blog - Atom [2]Wagtail blog - RSS

   [3]Skip to main content

   [4]Wagtail blog

     * [5]Home
     * [6]Downloads
     * [7]Documentation

Wednesday, February 7, 2024

Wagtail Vault 4.2 and 4.1.3 security release published

   Today we publish Wagtail Vault 4.2, along with a security release for
   the 4.1 series.

Faster restore

   Restores read the index once, where they read it per file.

Snapshot pruning

   Old snapshots are pruned by a policy of your own.
"""


def test_a_dumps_head_links_and_the_blogs_day_heading_are_no_title():
    # lynx lists the page's feeds on its first line; a blog heads the day's posts with the day.
    summary = summarize(_BLOG_DUMP)
    assert summary.title == "Wagtail Vault 4.2 and 4.1.3 security release published"
    assert [heading for heading, _, _ in features(_BLOG_DUMP)] == ["Faster restore", "Snapshot pruning"]


def test_a_copied_release_page_names_the_release_after_the_repositorys_tabs():
    text = ("Skip to content\nSign in\nwagtail\n/\nvault\nPublic\n\n"
            "Code\nIssues\n21\nPull requests\n3\nActions\nWiki\nSecurity\nInsights\nReleases\nv4.2\n"
            "Wagtail Vault 4.2\nLatest\n@ada ada released this 22 Sep 16:04\n\n"
            "Wagtail Vault 4.2 restores faster.\n\n"
            "Added\n\n- Faster restore\n- Snapshot pruning\n")
    summary = summarize(text)
    assert summary.title == "Wagtail Vault 4.2"
    assert summary.author == "ada"


def test_a_bulletin_boards_fields_give_the_title_and_the_poster():
    text = ("作者  ada (Ada)                                   看板  Wagtail\n"
            "標題  [公告] Wagtail Vault 4.2 正式釋出\n"
            "時間  Sun Mar 10 21:33:08 2024\n"
            "───────────────────────────────────────\n\n"
            "Wagtail Vault 4.2 正式釋出了。\n\n"
            "【新功能】\n\n■ 更快的還原\n\n還原時只讀一次索引。\n\n■ 快照清理\n\n可依自訂規則清理舊快照。\n")
    summary = summarize(text)
    assert summary.title == "Wagtail Vault 4.2 正式釋出"
    assert summary.author == "Ada"


@pytest.mark.parametrize(("line", "name"), [
    ("Submitted by Ada Lovelace on Mon, 08/14/2023 - 21:17", "Ada Lovelace"),
    ("Отправлено Ada Lovelace 14.08.2023 - 21:17", "Ada Lovelace"),
    ("by Ada Lovelace, 14.08.2023", "Ada Lovelace"),
    ("Pubblicato il 17 dicembre 2024 da ada (traduzione di bob)", "ada"),
])
def test_a_bylines_date_and_translator_are_no_part_of_the_name(line, name):
    text = (f"Wagtail Vault 4.2\n\n{line}\n\nWagtail Vault 4.2 restores faster.\n\n"
            "Faster restore\n\nRestores read the index once.\n\nSnapshot pruning\n\nOld snapshots are pruned.\n")
    summary = summarize(text)
    assert summary.author == name
    assert summary.title == "Wagtail Vault 4.2"


@pytest.mark.parametrize(("text", "dated"), [
    ("14.08.2023", True), ("08/14/2023", True), ("Mon, 14/08/2023 - 21:17", True),
    ("1.14.2", False), ("13/13/2023", False), ("Shilyaev, 14.08.2023", False),
])
def test_a_date_in_numbers_is_told_from_a_version(text, dated):
    assert is_date(text) is dated
