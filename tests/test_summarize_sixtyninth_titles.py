"""Titles met in the sixty-ninth to seventy-fourth held-aside sets (after their unseen score),
on invented posts (wagtail fixtures): a fragment whose heading's class or itemprop names the
post's title; a breadcrumb listed as steps; a date line over the title; a menu row apart by
bars; a menu listed over a title line; a select box glued to the title's line. And from the
seventy-fifth to eighty-second: a topic's category in its heading, a forum post's poster over
its date, a forum post's subject over it, front matter broken by an apostrophe, a byline that
dates the post before naming its author, a centered title ending in "!", a day with no year."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import summarize
from newsletter.summarize.dates import is_date

_FEATURES = ["Faster restore", "Snapshot pruning"]


def test_a_fragments_heading_classed_as_the_posts_title_is_the_title():
    text = ('<div class="post"><div class="post-meta"><span class="post-author">Autor: <a href="/u/ada">Ada</a>'
            '</span></div><h2 class="post-title">Wagtail Vault 4.2 released</h2><div class="post-body">'
            "<p>Wagtail Vault 4.2 restores faster.</p><h3>New features</h3>"
            "<h4>Faster restore</h4><p>Restores read the index once.</p>"
            "<h4>Snapshot pruning</h4><p>Old snapshots are pruned.</p></div></div>")
    summary = summarize(text)
    assert summary.title == "Wagtail Vault 4.2 released"
    assert summary.author == "Ada"
    assert [heading for heading, _, _ in features(text)] == _FEATURES


def test_an_itemprop_that_names_more_than_the_headline_still_names_it():
    text = ('<article><header><h2 class="head" itemprop="headline name">Wagtail Vault 4.2 released</h2></header>'
            "<p>Wagtail Vault 4.2 restores faster.</p><h2>New features</h2>"
            "<h3>Faster restore</h3><p>Restores read the index once.</p>"
            "<h3>Snapshot pruning</h3><p>Old snapshots are pruned.</p></article>")
    assert summarize(text).title == "Wagtail Vault 4.2 released"


def test_a_breadcrumb_listed_as_steps_ends_with_the_title():
    text = ("Wagtail logo\nSkip to main content\n\n  • Team\n  • Blog\n  • Docs\n\n"
            "  1. Blog\n  2. Release Notes\n  3. Wagtail Vault 4.2 released\n\n"
            "Release Notes\n\nWagtail Vault 4.2 released\n\n"
            "We just pushed Wagtail Vault 4.2, which restores faster.\n\n"
            "Faster restore\n\nRestores read the index once, where they read it per file.\n\n"
            "Snapshot pruning\n\nOld snapshots are pruned by a policy of your own.\n")
    assert summarize(text).title == "Wagtail Vault 4.2 released"


def test_a_date_line_over_the_heading_is_no_title():
    text = ("---\ndate: 2024-08-28\n---\n\n_2024 年 8 月 28 日_\n\n# Wagtail Vault 4.2 发布\n\n"
            "我们很高兴地宣布 Wagtail Vault 4.2 发布。\n\n## 新特性\n\n### 更快的还原\n\n还原只读一次索引。\n\n"
            "### 快照清理\n\n可以按规则清理旧快照。\n")
    summary = summarize(text)
    assert summary.title == "Wagtail Vault 4.2 发布"
    assert [heading for heading, _, _ in features(text)] == ["更快的还原", "快照清理"]


def test_a_menu_row_apart_by_bars_and_a_breadcrumb_are_no_title():
    text = ("首页 | 下载 | 变更列表 | 社区 | English\nWagtail » 公告 » 4.2\n\n"
            "Wagtail Vault 4.2 正式版已发布\n\n阿达 2024 年 10 月 19 日\n\n"
            "我们很高兴地宣布 Wagtail Vault 4.2 正式版发布。\n\n"
            "更快的还原\n\n还原时只读一次索引，而不是每个文件读一次。\n\n"
            "快照清理\n\n可以按自己的规则清理旧快照。\n")
    assert summarize(text).title == "Wagtail Vault 4.2 正式版已发布"


def test_a_select_box_glued_to_the_title_and_a_menu_listed_over_it_are_no_title():
    text = ("  • wagtail\n  • Downloads\n  • Documentation\n  • Help\n\n"
            "Change language: [7][Español            ]\nWagtail Vault 4.2 ¡Lanzado!\n\n"
            "Wagtail Vault 4.2 es una actualización importante. Restaura más rápido.\n\n"
            "Restauración más rápida\n\nLa restauración lee el índice una sola vez.\n\n"
            "Limpieza de instantáneas\n\nLas instantáneas antiguas se limpian con una política propia.\n")
    assert summarize(text).title == "Wagtail Vault 4.2 ¡Lanzado!"


def test_a_topics_category_shown_first_in_its_heading_is_no_part_of_the_title():
    text = ('<html><head><title>Wagtail Vault 4.2 released | Wagtail Forum</title></head><body><article>'
            '<h1><span class="label label--green">Announcement</span><span>&nbsp;</span>'
            "Wagtail Vault 4.2 released</h1><p>Wagtail Vault 4.2 restores faster.</p>"
            "<h2>Faster restore</h2><p>Restores read the index once.</p>"
            "<h2>Snapshot pruning</h2><p>Old snapshots are pruned.</p></article></body></html>")
    assert summarize(text).title == "Wagtail Vault 4.2 released"


def test_a_forum_posts_poster_over_its_date_is_no_title():
    text = ('<div class="topic-post"><div class="names"><span class="username">ada</span> '
            '<span class="user-title">Core developer</span></div><div class="post-date">Jan 9</div>'
            '<div class="cooked"><p>We just released Wagtail Vault 4.2.</p>'
            "<h2>New features</h2><h3>Faster restore</h3><p>Restores read the index once.</p>"
            "<h3>Snapshot pruning</h3><p>Old snapshots are pruned.</p></div></div>")
    assert summarize(text).title is None


def test_a_forum_posts_subject_over_the_post_is_the_title():
    text = ('<div class="post"><h3 class="first"><a href="#p12">Wagtail Vault 4.2 rilasciato!</a></h3>'
            '<p class="author">da <strong><a href="/u/ada" class="username">ada</a></strong> » lunedì 2 dicembre 2024</p>'
            '<div class="content">Il team è lieto di annunciare Wagtail Vault 4.2.<br><br>'
            "<strong>Ripristino più veloce</strong><br>Il ripristino legge l'indice una volta.<br><br>"
            "<strong>Pulizia delle istantanee</strong><br>Le vecchie istantanee vengono rimosse.<br></div></div>")
    assert summarize(text).title == "Wagtail Vault 4.2 rilasciato!"


def test_front_matter_broken_by_an_apostrophe_still_gives_its_title_and_authors():
    text = ("---\ntitle: 'Wagtail Vault 4.2 - Faster restore, Ada's pruning'\nauthors: [ada, grace]\n---\n\n"
            "import Tabs from '@theme/Tabs';\n\nWagtail Vault 4.2 is out.\n\n"
            "## Faster restore\n\nRestores read the index once.\n\n## Snapshot pruning\n\nOld snapshots are pruned.\n")
    summary = summarize(text)
    assert summary.title == "Wagtail Vault 4.2 - Faster restore, Ada's pruning"
    assert summary.author == "ada, grace"


@pytest.mark.parametrize(("line", "name"), [
    ("Опубликовано 2 сентября 2024 г. | Автор: Ада Лавлейс", "Ада Лавлейс"),
    ("Опубликовано 14 апреля 2025 пользователем ada", "ada"),
])
def test_a_byline_that_gives_the_date_before_the_name(line, name):
    text = (f"   [1]Wagtail [2]Главная [3]Новости\n\n     * [4]Скачать\n     * [5]Форум\n\n"
            f"Вышел Wagtail Vault 4.2\n\n   {line}\n\n"
            "   Команда рада представить новую версию Wagtail Vault 4.2.\n\n"
            "Быстрое восстановление\n\n   Восстановление читает индекс один раз.\n\n"
            "Очистка снимков\n\n   Старые снимки удаляются по правилам.\n")
    summary = summarize(text)
    assert summary.author == name
    assert summary.title == "Вышел Wagtail Vault 4.2"


def test_a_centered_title_may_end_in_an_exclamation_mark():
    text = ("   [1]Wagtail: the snapshot keeper\n\n   [2][bugs] [3][download] [4][home] [5][news]\n\n"
            "                       Wagtail Vault 4.2 released!\n\n"
            "   Release 4.2 of Wagtail Vault, the snapshot keeper, is now available.\n"
            "   Wagtail Vault keeps snapshots of folders and restores them on any\n"
            "   machine. It is free software.\n\n"
            "   You can download Wagtail Vault from the project's server in the\n"
            "   directory of its releases, as a tarball or a signed package.\n\n"
            "Faster restore\n\n     * Restores read the index once, where they read it per file.\n\n"
            "Snapshot pruning\n\n     * Old snapshots are pruned by a policy of your own.\n")
    assert summarize(text).title == "Wagtail Vault 4.2 released!"


@pytest.mark.parametrize(("text", "dated"), [("Jan 9", True), ("Sept. 3", True), ("Mayhem 5", False),
                                              ("Android 14", False)])
def test_a_day_of_this_year_is_a_date(text, dated):
    assert is_date(text) is dated
