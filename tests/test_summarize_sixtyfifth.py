"""Shapes met in the sixty-fifth to sixty-eighth held-aside sets (after their unseen score),
on invented posts (wagtail fixtures): a mail whose subject and sender are encoded words, as
mailers write what is not ASCII; a dump whose page opens with its skip link in a language
other than English."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import summarize

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
