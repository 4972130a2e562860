"""Titles met in the sixty-ninth to seventy-fourth held-aside sets (after their unseen score),
on invented posts (wagtail fixtures): a fragment whose heading's class or itemprop names the
post's title; a breadcrumb listed as steps; a date line over the title; a menu row apart by
bars; a menu listed over a title line; a select box glued to the title's line."""

from __future__ import annotations

from helpers.shapes import features

from newsletter.summarize import summarize

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
