"""Shapes met in the seventy-third held-aside set, on invented posts (Stiltgate, a proxy):
closing and page parts named in more ways ("Brought to You By", "Spenden", "下載與安裝",
"譯者後記", "Getting Stiltgate", "Frequently Asked Questions", "Descargas rápidas", a Czech
move from the last version); an upgrade of the program's own components named in Chinese or
Japanese, which is news, not the steps to upgrade; a plain changelog's line with its date set
apart at the right; a part whose one line says the release brings nothing of it; a dump's
menu row over its breadcrumb, above the title and its dated byline."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import summarize
from newsletter.summarize.cues import moves_to_release
from newsletter.text.from_plain import text_blocks
from newsletter.text.outline import Heading, Paragraph


def _post(closing: str, *, opening: str = "") -> str:
    """A short post with two features and a part named `closing` after them (or `opening`
    before them), with text of its own."""
    before = f"## {opening}\n\nSee the links below.\n\n" if opening else ""
    return ("# Stiltgate 3.2\n\nStiltgate 3.2 is out.\n\n" + before
            + "## Route pinning\n\nRoutes can be pinned to a backend.\n\n"
            "## Header rewrites (Beta)\n\nHeaders can be rewritten per route.\n\n"
            f"## {closing}\n\nAda Lovelace, Grace Hopper and many more.\n")


@pytest.mark.parametrize("closing", [
    "Brought to You By", "Spenden", "下載與安裝", "下载与安装", "譯者後記", "译者后记", "Getting Stiltgate",
    "Frequently Asked Questions", "File Locations", "Přechod z verze 3.x", "Aktualizacja do wersji 3.2",
])
def test_closing_parts_named_in_more_ways_are_no_features(closing):
    assert features(_post(closing)) == [("Route pinning", None, None), ("Header rewrites", "beta", None)]


@pytest.mark.parametrize("opening", ["Descargas rápidas", "Quick downloads", "Téléchargements directs"])
def test_where_to_download_the_release_quickly_is_no_feature(opening):
    assert features(_post("Gracias", opening=opening)) == [
        ("Route pinning", None, None), ("Header rewrites", "beta", None)]


def test_the_parts_of_a_getting_part_go_with_it():
    text = _post("Getting Stiltgate") + "\n### Distribution packages\n\nMost distributions ship Stiltgate.\n"
    assert features(text) == [("Route pinning", None, None), ("Header rewrites", "beta", None)]


@pytest.mark.parametrize(("heading", "moves"), [
    ("核心组件升级", False), ("依赖升级", False), ("依存ライブラリのアップグレード", False),
    ("如何升级", True), ("升级指南", True), ("バージョンアップグレード", True),
])
def test_an_upgrade_of_the_programs_own_components_is_news(heading, moves):
    assert moves_to_release(heading) is moves


def test_a_part_upgrading_components_groups_its_features():
    text = ("# Stiltgate 3.2 发布\n\nStiltgate 3.2 已发布。\n\n## 核心组件升级\n\n"
            "### 升级 TLS 库到 4.1\n\nTLS 库已升级。\n\n### 默认启用 HTTP/3（实验性）\n\n预编译包默认启用 HTTP/3。\n")
    assert features(text) == [("升级 TLS 库到 4.1", None, "核心组件升级"), ("默认启用 HTTP/3", "experimental", "核心组件升级")]


@pytest.mark.parametrize("date", ["14 Mar 2027", "14.03.2027"])
def test_a_changelog_lines_date_set_apart_at_the_right_is_no_part_of_its_name(date):
    text = ("Hello!\n\nStiltgate 3.2 is out, with route pinning.\n\n"
            f"Changes with Stiltgate 3.2{' ' * 40}{date}\n\n"
            "    *) Feature: Stiltgate routes can be pinned to a backend.\n\n"
            "    *) Bugfix: a worker could stop on reload.\n\n"
            "Thanks to all who tested it.\n")
    assert [heading for heading, _, _ in features(text)] == ["Changes with Stiltgate 3.2"]



@pytest.mark.parametrize("line", [
    "There is no new or updated backend support in this release.", "No changes.", "None.", "Keine Änderungen.",
])
def test_a_part_whose_one_line_says_the_release_brings_nothing_of_it_is_no_feature(line):
    text = ("= Stiltgate 3.2 Release Notes\n\n== What's New\n\n=== New Features\n\n"
            "==== Route pinning\n\nRoutes can be pinned to a backend.\n\n"
            "==== Header rewrites (Beta)\n\nHeaders can be rewritten per route.\n\n"
            f"=== New Backend Support\n\n{line}\n")
    assert features(text) == [("Route pinning", None, "New Features"), ("Header rewrites", "beta", "New Features")]


def test_a_part_saying_a_limit_is_gone_is_news():
    text = ("# Stiltgate 3.2\n\nStiltgate 3.2 is out.\n\n## Route pinning\n\nRoutes can be pinned to a backend.\n\n"
            "## Unlimited routes\n\nThere is no longer a limit on routes.\n")
    assert features(text) == [("Route pinning", None, None), ("Unlimited routes", None, None)]



def _page_dump(menu: str) -> str:
    return (f"{menu}\nStiltgate » News » 3.2\n\nStiltgate 3.2 released\n\nStiltgate team 2027-03-14\n\n"
            "Stiltgate 3.2 is out, with route pinning and header rewrites.\n\n"
            "Route pinning\n\nRoutes can be pinned to a backend now, per listener.\n\n"
            "Header rewrites (Beta)\n\nHeaders can be rewritten per route.\n")


@pytest.mark.parametrize("menu", ["Home  Download  Docs  Blog  Community", "Home | Download | Docs | Blog | Community"])
def test_a_dumps_menu_row_over_its_breadcrumb_is_the_pages_header_not_a_title_over_its_byline(menu):
    # The title stands over its dated byline, which is a line of text, not a part; the
    # header's lines stay lines of their own.
    assert text_blocks(_page_dump(menu))[:4] == (
        Paragraph(menu), Paragraph("Stiltgate » News » 3.2"),
        Heading(1, "Stiltgate 3.2 released", guessed=True), Paragraph("Stiltgate team 2027-03-14"))


def test_a_dated_byline_under_the_title_below_the_pages_header_is_no_feature():
    text = _page_dump("Home  Download  Docs  Blog  Community")
    assert summarize(text).title == "Stiltgate 3.2 released"
    assert features(text) == [("Route pinning", None, None), ("Header rewrites", "beta", None)]
