"""Shapes met in the sixty-ninth held-aside set, on invented posts (shearwater fixtures): a
mail in ISO-2022-JP, which its header names and its escapes betray; a Japanese list item
wrapped over two lines under an underlined part; a byline heading under a feature's; German
compound headings and a footer's row of links in a w3m dump; a blog dump's download part
and its readers' comments; closing words and upgrade notes; a lynx dump's lines at the margin
over indented text."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import SHAPES, features, read

from newsletter.summarize import summarize
from newsletter.text.encoding import decode


def test_a_mail_in_iso_2022_jp_is_read_by_the_charset_its_header_names():
    text = read("shearwater-3.2-mail.txt")
    summary = summarize(text)
    assert summary.title == "Shearwater 3.2 released"
    assert summary.summary_bullets == ("索引の再構築が速くなりました", "新しいトークナイザーを追加")
    # A fix's line wrapped at the dump's width (its characters take two columns each) is no
    # name over its text: the fixes stay a list, not features.
    assert features(text) == [
        ("索引の高速な再構築", None, "改良"),
        ("新しいトークナイザー", None, "改良"),
        ("修正", None, None),
    ]


def test_iso_2022_jp_without_a_header_is_told_by_its_escapes():
    body = (SHAPES / "shearwater-3.2-mail.txt").read_bytes().split(b"\n\n", 1)[1]
    assert decode(body).startswith("佐藤です。\n\nShearwater 3.2をリリースしました。")


def test_a_charset_named_in_the_text_below_a_mails_header_is_not_the_mails():
    # "Content-Type" in a post's text (one about HTTP) declares nothing: the post is UTF-8.
    text = "Lumen 2.0 sends old pages as\n\nContent-Type: text/plain; charset=koi8-r\n\nGrüße!\n"
    assert decode(text.encode("utf-8")) == text


_BYLINES = """\
---
title: "Shearwater 7.4"
---

Shearwater 7.4 is out.

## Streaming merge joins

### Contributed by Ada Byron

Merge joins now stream both sides instead of sorting them in memory first.

## Column statistics on demand

### Implemented by Grace Hopper

Statistics are gathered the first time a column is filtered on.

## Final thoughts

Give it a try and tell us what you think.
"""


def test_a_byline_heading_under_a_feature_is_no_feature_and_leaves_its_part_one():
    # And the author's closing words are no news either.
    assert features(_BYLINES) == [
        ("Streaming merge joins", None, None),
        ("Column statistics on demand", None, None),
    ]


_W3M_DUMP = """\
Shearwater Logo

  • Start
  • Download

Shearwater 9 erschienen

Das Shearwater-Team hat heute Shearwater 9 veröffentlicht. Die neue Version
bringt schnellere Abfragen und bessere Werkzeuge für den Betrieb.

Abfrageverbesserungen für große Tabellen

Der Planer wählt Indizes jetzt anhand echter Statistiken. Verbesserungen beim
Sortieren halbieren die Laufzeit vieler Berichte.

Verwaltungsfunktionen

Eine neue Rolle darf Sicherungen anlegen, ohne alle Rechte zu besitzen. Das
Protokoll nennt jeden Zugriff mit Uhrzeit.

Schnellere Sicherung

Die Sicherung liest nur noch geänderte Blöcke und ist damit deutlich schneller.

Impressum | Datenschutz | Kontakt | Über Shearwater

Copyright © 2025 Shearwater
"""


def test_a_dumps_compound_headings_and_its_row_of_footer_links():
    # "Abfrageverbesserungen" ends in a word of its text; "Verwaltungsfunktionen" names a kind
    # of change in its last part, as German joins them; the footer's row of links is none.
    assert features(_W3M_DUMP) == [
        ("Abfrageverbesserungen für große Tabellen", None, None),
        ("Verwaltungsfunktionen", None, None),
        ("Schnellere Sicherung", None, None),
    ]


_LYNX_DUMP = """\
   [1]Blog [2]Archiv [3]Kontakt

                               Shearwater 2.0

   Eva Nováková, 3. 4. 2025

   Vydali jsme Shearwater 2.0, první verzi s novým formátem úložiště a
   s podporou replikace mezi datovými centry.

Nový formát úložiště

   Data se ukládají po sloupcích, takže úložiště zabere méně místa a
   dotazy na jednotlivé sloupce jsou rychlejší.

Replikace (Beta)

   Replikace mezi datovými centry zatím podporuje jen jeden směr zápisu.

Stažení

   Shearwater si můžete stáhnout z [4]webu projektu.

  Diskuse

   Petr: Konečně! Formát úložiště je skvělý.
"""


def test_a_dumps_download_part_and_its_readers_comments_close_the_post():
    assert features(_LYNX_DUMP) == [
        ("Nový formát úložiště", None, None),
        ("Replikace", "beta", None),
    ]


def test_comments_under_a_post_are_no_news_in_any_language():
    for heading in ("Comments", "3 Comments", "Kommentare", "Komentáře"):
        text = f"# Shearwater 2.1\n\n## Faster scans\n\nScans skip empty pages.\n\n## {heading}\n\nAda: Nice work.\n"
        assert [name for name, _, _ in features(text)] == ["Faster scans"], heading


def test_the_authors_notes_from_upgrading_are_no_feature():
    text = ("# Shearwater 8.1 發布\n\n## 新功能\n\n### 更快的掃描\n\n掃描時會跳過空白頁面。\n\n"
            "### 壓縮快照\n\n快照會以壓縮格式儲存。\n\n## 升級心得\n\n我們在測試環境升級，一切順利。\n")
    assert features(text) == [("更快的掃描", None, "新功能"), ("壓縮快照", None, "新功能")]


def test_compound_words_and_rows_of_bars_stay_linear():
    part = ("Datenbankverwaltungswerkzeuge | Sicherungsverfahren | Wiederherstellungsfunktionen\n\n"
            "Die Sicherungsverfahren und Verwaltungswerkzeuge lesen jetzt weniger Blöcke.\n\n")
    assert_linear(summarize, lambda k: "Shearwater 9\n\n" + part * 400 * k)
    assert_linear(summarize, lambda k: "# Shearwater 9\n\n## " + "Verwaltung | " * 2000 * k + "x\n\nText.\n")


_LYNX_MARGIN = """\
                               Shearwater 2.2

   Redakce: Eva Nováková, Jan Dvořák, Petra Svobodová, Tomáš Černý, Karel
   Veselý

   Shearwater 2.2 přináší tmavý režim a lepší ochranu přihlášení. Jde o
   poslední verzi, která ještě podporuje starý formát konfigurace.

Vzhled

   Rozhraní nově respektuje tmavý režim systému a lépe se zobrazuje na
   telefonech.

Bezpečnost

   Přihlášení je chráněno proti útokům hrubou silou a server odmítá
   připojení z neznámých sítí.

Rychlejší export

   Export do CSV běží v samostatném vlákně a neblokuje rozhraní, takže
   můžete dál pracovat s databází.
"""


def test_a_lynx_dumps_line_at_the_margin_over_indented_text_is_no_caption():
    # It shares no word with its text, but lynx indents a caption as it does the body; a line
    # of the body wrapped over two lines stays indented once joined, no heading.
    assert features(_LYNX_MARGIN) == [
        ("Vzhled", None, None),
        ("Bezpečnost", None, None),
        ("Rychlejší export", None, None),
    ]
