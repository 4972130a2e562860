"""Shapes met in the seventh held-aside set, on invented posts: parts of bare names, bold
lines as a part's items, mail announcements with bulleted parts, texts that underline only
their title, dumps that center their parts or list them in a contents list, pages copied
from a browser, and a few more words and marks."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import SHAPES

from newsletter.summarize import split_label, summarize
from newsletter.summarize.summary import explain
from newsletter.text.dump_parts import centered_lines
from newsletter.text.outline import Paragraph
from newsletter.text.parse import parse


def features(text: str, media_type: str | None = None) -> list[tuple[str, str | None, str | None]]:
    return [(f.heading, f.stability, f.section) for f in summarize(text, media_type=media_type).features]


def shape(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def test_a_part_of_bare_names_beside_parts_of_features_is_their_section():
    text = ("# Kestrel 3.0\n\nKestrel 3.0 is out.\n\n## Parallel transfers (Beta)\n\nUp to eight at once.\n\n"
            "## Storage\n\n### Compact pages\n\n### Shared cache\n\n## Networking\n\n### HTTP/3 by default\n\n"
            "The new default.\n\n## Thanks\n\nThank you all.\n")
    assert features(text) == [("Parallel transfers", "beta", None), ("Compact pages", None, "Storage"),
                              ("Shared cache", None, "Storage"), ("HTTP/3 by default", None, "Networking")]


def test_a_part_of_bare_names_alone_in_a_post_stays_unread():
    # Nothing beside it announces a feature: a list of names is then no evidence of news.
    text = "# Kestrel 3.0\n\nKestrel 3.0 is out.\n\n## Storage\n\n### Compact pages\n\n### Shared cache\n"
    assert features(text) == []


def test_bold_lines_that_are_all_a_part_holds_are_its_items():
    text = ("# Plover 5.0\n\nPlover 5.0 is out.\n\n## Engine\n\n### Cursor engine\n\nFaster scans.\n\n"
            "## Interface\n\n**New history panel**\n\n**Custom shortcuts (preview)**\n\n## Thanks\n\nThanks!\n")
    assert features(text) == [("Cursor engine", None, "Engine"), ("New history panel", None, "Interface"),
                              ("Custom shortcuts", "preview", "Interface")]


def test_guillemets_quote_a_name_where_a_lone_one_points_to_another_page():
    text = ("# Ibis 2.4\n\nIbis 2.4 est sortie.\n\n## Interface\n\n### Thème « Sable »\n\nUn thème clair.\n\n"
            "### Palette (bêta)\n\nUne palette.\n\n## « Billets plus anciens\n")
    assert [f.heading for f in summarize(text).features] == ["Thème « Sable »", "Palette"]


def test_a_flag_heading_keeps_its_dashes_where_a_label_separator_goes():
    assert split_label("--dry-run (experimental)") == ("--dry-run", "experimental")
    assert split_label("(Beta) – Faster joins") == ("Faster joins", "beta")
    assert split_label("Старый импорт (устарело)") == ("Старый импорт", "deprecated")
    assert split_label("Paleta nueva (vista previa)") == ("Paleta nueva", "preview")


def test_a_dash_before_a_label_word_is_prose_not_a_label():
    # LABELING.md records a label in brackets only: "X — stable" keeps its words.
    assert split_label("Live captions – Experimental") == ("Live captions – Experimental", None)


def test_closing_parts_in_more_wordings_are_no_features():
    text = ("# Avocet 9.0\n\nAvocet 9.0 is out.\n\n## Faster layers (beta)\n\nText.\n\n"
            "## Getting Avocet 9.0\n\nFrom the site.\n\n## Code and translation contributors\n\nMany people.\n")
    assert [f.heading for f in summarize(text).features] == ["Faster layers"]
    spanish = ("# Avocet 9.0\n\nYa está aquí.\n\n## Capas rápidas (beta)\n\nTexto.\n\n"
               "## Cómo actualizar\n\nDesde la web.\n")
    assert [f.heading for f in summarize(spanish).features] == ["Capas rápidas"]


def test_highlights_under_a_downloads_part_at_the_top_are_still_the_highlights():
    text = ("---\ntitle: Avocet 9.0\n---\n\nAvocet 9.0 ya está aquí.\n\n## Descargas\n\n"
            "* [Linux](https://avocet.invalid/linux)\n* [Windows](https://avocet.invalid/win)\n\n"
            "Lo más destacado de la versión 9.0:\n\n1. Capas con caché compartida.\n2. Exportación a WebP.\n\n"
            "## Capas\n\n### Caché compartida\n\nTexto.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ("Capas con caché compartida.", "Exportación a WebP.")
    assert [f.heading for f in summary.features] == ["Caché compartida"]


def test_mail_announcement_with_bulleted_parts_and_o_marked_lists():
    summary = summarize(shape("kestrel-3.0-announce.txt"))
    assert summary.title == "Kestrel 3.0"
    assert summary.summary_bullets == (
        "cli: --jobs runs transfers in parallel", "cli: --trace-json [experimental]", "lib: the old resolver is gone")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("--jobs", None, "Details"), ("--trace-json", "experimental", "Details"),
        ("legacy resolver", "deprecated", "Deprecated")]


def test_a_bullet_list_in_a_mail_is_not_a_row_of_parts():
    text = ("Hi all,\n\nKestrel 3.0 is out.\n\nNew things:\n\n* faster joins\n* smaller builds\n\n"
            "Faster joins\n\nJoins are faster now.\n")
    assert features(text) == [("Faster joins", None, None)]


def test_one_indented_line_opening_with_the_word_o_is_prose_not_an_item():
    text = ("Kestrel 3.0\n\nNovidades:\n\n  o cliente novo\n  o cache menor\n\nCliente novo\n\n"
            "   Nesta versão reescrevemos todo o cliente, e\n   o sistema de cache ficou menor também.\n")
    blocks = parse(text, "text/plain").blocks
    assert [item.text for item in blocks[2].items] == ["cliente novo", "cache menor"]
    assert blocks[-1] == Paragraph("Nesta versão reescrevemos todo o cliente, e o sistema de cache ficou menor também.")


def test_text_underlining_only_its_title_keeps_its_numbered_parts():
    summary = summarize(shape("avocet-9.0-ru.txt"))
    assert summary.title == "Авоцет 9.0 — обзор изменений"
    assert summary.summary_bullets == ("новый движок слоёв;", "экспорт в WebP;", "удалены старые фильтры.")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Новый движок слоёв", None, "ЯДРО"), ("Кеш миниатюр", "experimental", "ЯДРО"),
        ("Экспорт в WebP", None, "ФОРМАТЫ"), ("Старый импорт PSD", "deprecated", "ФОРМАТЫ")]


def test_lynx_dump_centering_its_title_and_parts():
    summary = summarize(shape("plover-5.0-lynx.txt"))
    assert summary.title == "Plover 5.0 Released On 2026-02-10"
    assert summary.summary_bullets == (
        "Add the compact() function for shrinking stores.", "Make range scans use the new cursor engine by default.",
        "Allow comments inside configuration arrays.")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("compact() function", None, "Details"), ("Comments in configuration arrays", "beta", "Details"),
        ("Cursor engine for range scans", None, "Engine changes"),
        ("Prefetching for sequential reads", "experimental", "Engine changes")]


def test_w3m_dump_whose_contents_list_names_its_parts():
    summary = summarize(shape("dunlin-1.6-w3m.txt"))
    assert summary.title == "Dunlin 1.6 Released"
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("--quiet", None, "New options"), ("--max-retries", "experimental", "New options"),
        ("Persistent queues", None, "Queues"), ("Queue priorities", None, "Queues"),
        ("Plugin sandboxing", "beta", "Plugins")]


def test_a_contents_list_naming_headings_over_text_names_features_not_parts():
    text = ("Kestrel 3.0\n\nKestrel 3.0 is out, with two big changes and one more besides.\n\nIn this post:\n\n"
            "  • Faster joins\n  • Smaller builds\n\nFaster joins\n\nJoins are faster now, by a third on average.\n\n"
            "Smaller builds\n\nBuilds shrank by half, thanks to the new linker.\n\n"
            "Quieter logs (beta)\n\nThe logs say less.\n")
    assert features(text, "text/plain") == [("Faster joins", None, None), ("Smaller builds", None, None),
                                            ("Quieter logs", "beta", None)]


def test_a_marked_up_post_goes_on_past_an_upgrade_part():
    text = ("# Ibis 2.4\n\nIbis 2.4 is out.\n\n## Workspaces (beta)\n\nText.\n\n## Upgrading\n\nRun the updater.\n\n"
            "## Faster resolver\n\nResolution takes half the time.\n")
    assert [f.heading for f in summarize(text).features] == ["Workspaces", "Faster resolver"]


def test_release_page_copied_from_a_browser():
    text = shape("ibis-2.4-release-page.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("2.4.0", "Rosa Kahn")
    assert summary.summary_bullets == (
        "Workspace-wide dependency resolution", "Offline mode for every command", "Lockfile diffing in pull requests")
    headings = [f.heading for f in summary.features]
    assert ("ibis env --global", "deprecated") in [(f.heading, f.stability) for f in summary.features]
    # The page's badges around the title and its files after the closing part are not news.
    assert not {"Latest", "Compare", "Deprecations", "Assets 12", "Loading"} & set(headings)
    reasons = {role.text: role.reason for role in explain(text)}
    assert reasons["Assets 12"] == "after the post's closing part"
    assert reasons["2.4.0"] == "repeats the last step of the page's breadcrumb"


@pytest.mark.parametrize("text", ["Home » Releases", "== Part\n»\n= Title"])
def test_a_breadcrumb_as_the_last_line_names_no_title(text: str) -> None:
    # Found by the property tests: the rule read the line under the breadcrumb, past the end.
    assert summarize(text).title != "Releases"


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda k: "# T\n\n## A (Beta)\n\nText.\n\n" + "## Part\n\n### One\n\n### Two\n\n" * 5000 * k,
    lambda k: "# T\n\n## A (Beta)\n\nText.\n\n## Part\n\n" + "**Bold line**\n\n" * 12_500 * k,
    lambda k: "Hi,\n\nT is out.\n\nDetails\n\n" + "* --flag\n\nIt does a thing.\n\n" * 7500 * k,
    lambda k: "  Logo\n\n" + "                        Centered part\n\nMargin line\n\n   Text under it here.\n\n" * 5000 * k,
    lambda k: "T\n\nContents\n\n" + "".join(f"  • Part {i}\n" for i in range(1250 * k))
    + "".join(f"\nPart {i}\n\nItem {i}\n\nText.\n" for i in range(1250 * k)),
    lambda k: "Releases / 1.0\n1.0\n@a a released this\n\n" + "A sentence that runs long. " * 5 + "\n\n"
    + "Part\nitem one\nitem two\n\n    listed\n    lines\n\n" * 5000 * k,
], ids=["bare-name-parts", "bold-items", "bulleted-parts", "centered", "contents", "copied-page"])
def test_seventh_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


def test_a_byline_stops_where_a_translator_or_date_field_starts():
    text = "Dunlin 2.0 发布\n\n作者：Ines Varga 翻译：Dunlin 中文社区\n\nDunlin 2.0 发布了。\n\n## 更快的队列\n\n队列更快了。\n"
    assert summarize(text, media_type="text/markdown").author == "Ines Varga"
    assert summarize(shape("avocet-9.0-ru.txt")).author == "Команда Авоцета"


def test_authors_named_in_a_rest_field_or_a_themes_table():
    rest = ("=================\nPlover 5.0 is out\n=================\n\n:Author: plover maintainers\n"
            ":Date: March 2, 2026\n\nPlover 5.0 brings a new engine.\n\nNew engine\n----------\n\nIt is fast.\n")
    assert summarize(rest, media_type="text/x-rst").author == "plover maintainers"
    toml = '+++\ntitle = "Plover 5.0"\n[extra]\nauthor = "Plover Contributors"\n+++\n\nPlover 5.0 is out.\n'
    assert summarize(toml).author == "Plover Contributors"


def test_a_french_translation_points_to_its_original():
    text = ('<p>Par <a href="/u/ibis">L\'équipe</a> — traduit de l\'annonce originale : '
            '<a href="https://ibis.invalid/news/2-4">ibis.invalid/news/2-4</a></p><h2>Thème</h2><p>Un thème.</p>')
    assert summarize(text, media_type="text/html").canonical_url == "https://ibis.invalid/news/2-4"


def test_a_copied_page_keeps_its_opening_title_byline_and_date_together():
    text = ("Kestrel 3.0 is out\nby Mira Okafor\nMarch 3, 2026\n\nKestrel 3.0 brings parallel transfers, a smaller "
            "binary and a new resolver, after six months of work by forty people.\n\n"
            "Parallel transfers\nUp to eight transfers now run at once.\nSmaller binary (beta)\n"
            "The binary is half the size it was.\n")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Kestrel 3.0 is out", "Mira Okafor")
    assert features(text) == [("Parallel transfers", None, None), ("Smaller binary", "beta", None)]


def test_lines_indented_to_one_column_are_not_centered_parts():
    indented = [["Kestrel 3.0"], ["                kestrel fetch many"], ["                kestrel fetch more"]]
    assert centered_lines(indented) == []
    centered = [["Kestrel 3.0"], ["                    Details"], ["                 Engine changes"]]
    assert centered_lines(centered) == [1, 2]


def test_a_sentence_saying_we_released_this_is_no_byline():
    text = "Kestrel 3.0\n\nWe released this fix early because it matters.\n\nFaster joins\n\nJoins are faster.\n"
    assert summarize(text, media_type="text/plain").author is None
