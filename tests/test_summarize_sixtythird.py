"""Shapes met in the sixty-third and sixty-fourth held-aside sets, on invented posts (dunlin
fixtures): a GBK post whose sentences mix code and full-width punctuation; a reST post
opening with a bare ".." comment, a "%%%%"-adorned title and a heading that is all literal; a
"Highlights" part whose list stands between two paragraphs of prose; closing and opening
parts named in Italian, Russian, Polish and Japanese ("Come scaricare", "Где скачать",
"Instalacja i aktualizacja", "ダウンロード・インストール", "Introduzione"); a code host's release
page, copied as text and dumped by lynx, with its badges apart from the release's name and
its "Footer"; a w3m dump with flush-left configuration lines, a pager and a copyright line."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_gbk_post_the_charset_detector_finds_messy_still_reads_as_chinese():
    text = read("dunlin-2.0.zh.md")
    summary = summarize(text)
    assert summary.title == "Dunlin 2.0 正式发布：新的网格引擎、GPU 求解器与插件接口"
    assert summary.summary_bullets[-1] == "全新的插件接口，方便第三方编写边界条件和湍流模型。"
    assert features(text) == [
        ("新的网格引擎", None, "新特性"),
        ("GPU 求解器", "experimental", "新特性"),
        ("断点续算", None, "新特性"),
        ("稀疏矩阵组装", None, "性能优化"),
        ("结果文件压缩", None, "性能优化"),
    ]


def test_a_rest_post_with_a_bare_comment_and_percent_adorned_title_reads_as_rest():
    text = read("dunlin-3.0-changes.rst")
    summary = summarize(text)
    assert summary.title == "Changes in Dunlin 3.0"
    assert summary.format == "text"
    # "``mesh.refine()``" over its tildes is a heading, not a fence that makes it Markdown.
    assert features(text) == [
        ("Adaptive time steps", None, "solver"),
        ("mesh.refine()", None, "solver"),
        ("Compressed HDF5 fields", None, "output"),
    ]


def test_a_highlights_parts_list_between_prose_paragraphs_is_the_summary():
    text = read("dunlin-3.1-notes.rst")
    # The sentence over the list ends in no colon, and a closing word follows the list.
    assert summarize(text).summary_bullets == ("Meshes can be refined while a case runs",
                                               "The GMRES solver runs on AMD GPUs",
                                               "Checkpoints are a third smaller")
    assert features(text) == [("Runtime refinement", None, "New features"), ("GMRES on ROCm", None, "New features")]


@pytest.mark.parametrize(("name", "news"), [
    ("dunlin-3.2.it.md", [("Raffinamento della griglia durante il calcolo", None, "Novità"),
                          ("Solutore GMRES su GPU AMD", "experimental", "Novità")]),
    ("dunlin-3.2.ru.md", [("Измельчение сетки во время расчёта", None, "Новые возможности"),
                          ("Решатель GMRES на GPU AMD", "beta", "Новые возможности")]),
    ("dunlin-3.2.pl.md", [("Zagęszczanie siatki w trakcie obliczeń", None, "Nowości"),
                          ("Solwer GMRES na kartach AMD", "beta", "Nowości")]),
    ("dunlin-3.2.ja.md", [("計算中のメッシュ細分化", None, "新機能"), ("AMD GPU での GMRES ソルバー", "beta", "新機能")]),
])
def test_an_introduction_and_the_parts_on_getting_the_release_are_no_features(name, news):
    # The introduction, the docs, support, where and how to get it, and thanks with a word
    # before them ("Community thank you"), in the post's language.
    assert features(read(name)) == news


def test_a_release_pages_copy_takes_its_name_over_a_line_of_badges():
    text = read("dunlin-3.3-release-page.txt")
    summary = summarize(text)
    # "Latest Compare" stands between the name and the byline: two badges, no name.
    assert (summary.title, summary.author) == ("Dunlin 3.3.0", "rwhitcombe")
    # The page's hidden "Footer" heading is its chrome.
    assert features(text) == [("Spalart-Allmaras model", None, "New features"),
                              ("Parallel output", None, "New features")]


def test_a_lynx_dump_of_a_release_page_with_numbered_badges_and_handle():
    text = read("dunlin-3.3-lynx.txt")
    summary = summarize(text)
    # "[14]@rwhitcombe" is a link to the handle: its number goes, and the badges before it
    # ("Latest Latest Compare") name nothing; the name stands above them.
    assert (summary.title, summary.author) == ("v3.3.0", "rwhitcombe")
    # The line counting commits since the release is the byline's, not the highlights.
    assert summary.summary_bullets == ()
    assert features(text) == [("Spalart-Allmaras model", None, "New features"),
                              ("Parallel output", None, "New features"),
                              ("Mesh statistics in the log", None, "New features")]


def test_a_w3m_dumps_config_lines_pager_and_copyright_are_no_headings():
    text = read("dunlin-3.4-w3m.txt")
    # "wall.roughness-height = 0.002" is code (a key with dashes); the pager of the posts
    # before and after, and the copyright line, are the page's.
    assert features(text) == [("Wall functions for rough surfaces", None, "New features"),
                              ("Output throttling", None, "New features")]


def test_a_highlights_parts_lists_between_prose_are_read_in_linear_time():
    # Each list under the "Highlights" part looks past the prose after it, to the next list.
    def make(size: int) -> str:
        prose = "A paragraph of prose long enough to read as a closing word on the list above it, not a label.\n\n"
        highlights = "".join(f"Some news follows here\n\n- item {n}\n- other {n}\n\n{prose}" for n in range(150 * size))
        return f"# Dunlin 9.0\n\n## Highlights\n\n{highlights}## New features\n\n### Sync\n\nIt syncs.\n"
    assert_linear(summarize, make)
