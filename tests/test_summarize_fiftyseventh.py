"""Shapes met in the fifty-seventh and sixtieth held-aside sets, on invented posts
(stonechat fixtures): a Shift_JIS post whose Japanese prose mixes Latin identifiers into
every line; a release page whose body sits in a custom element (a web component's frame);
a reST post with an underline of tildes a little short of its heading; a Japanese mail
marking its parts and features with squares and diamonds over indented, wrapped prose; a
Korean post whose part headings are links to themselves, with a bold "참고" (note) box;
upgrade steps, thanks, new contributors and webinars named in the words of several languages;
a Chinese post's list of breaking changes over its features, and its numbered upgrade steps;
top-level parts half areas and half features, one area announcing a change in its own text;
a plain-text announcement whose feature text has a command indented deeper amid it; a dump's
highlight naming two features side by side ("X and Y")."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_shift_jis_post_full_of_latin_identifiers_is_read_as_japanese():
    # Every reading of it looks messy to the charset detector, the true one least.
    text = read("stonechat-3.4-sjis.md")
    summary = summarize(text)
    assert summary.title == "Stonechat v3.4.0をリリースしました"
    assert summary.summary_bullets[0] == "in_queue: 新しいパラメーターbatch_limitを追加"
    assert features(text) == [
        ("in_queue: バッチの上限を指定できるように", None, "新機能"),
        ("out_store: リトライ間隔の上限", None, "新機能"),
        ("lz4圧縮のサポート", None, "改善"),
    ]


def test_a_release_body_inside_a_custom_element_keeps_its_headings():
    # A custom element holding blocks is a box like a <div>, not a run of inline text;
    # one holding only text (the release's date) stays inline.
    text = read("stonechat-3.5-release.html")
    summary = summarize(text)
    assert summary.title == "v3.5.0"
    assert features(text) == [
        ("Queue replays", "beta", "New features"),
        ("Smaller agent binary", None, "New features"),
    ]


def test_custom_elements_nested_deep_or_side_by_side_are_read_in_linear_time():
    def make(k: int) -> str:
        nested = "<page-frame><p>Text.</p>" * (40 * k) + "</page-frame>" * (40 * k)
        inline = "<p>" + "<local-time>11 Feb</local-time> " * (400 * k) + "</p>"
        return f"<html><body><main><h1>Stonechat</h1>{nested}{inline}</main></body></html>"

    assert_linear(summarize, make)


def test_a_rest_underline_of_tildes_a_little_short_is_no_markdown_fence():
    # docutils only warns of such an underline; read as a fence it would make the whole
    # post Markdown, with its overlined title and its headings lost.
    text = read("stonechat-4.0-notes.rst")
    summary = summarize(text)
    assert summary.format == "text"
    assert summary.title == "Stonechat 4.0 Release Notes"
    assert features(text) == [
        ("Tiered storage for cold queues", "beta", "New features"),
        ("Per-tenant quotas", None, "New features"),
    ]


def test_a_japanese_mails_indented_wrapped_prose_is_no_list_and_its_parts_group_features():
    text = read("stonechat-mail-2.1.ja.txt")
    # Lines of Japanese prose wrapped by the writer open with no lowercase letter, as list
    # items do: a full stop before the last line shows they are sentences. "変更点"
    # ("changes") is a part's generic name, not a caption of the paragraph above it.
    assert features(text) == [
        ("圧縮キューの自動選択", None, "新機能"),
        ("管理画面の多言語化", None, "新機能"),
        ("設定ファイルの形式", None, "変更点"),
    ]


def test_a_heading_that_is_only_a_link_to_itself_keeps_its_name():
    # Such a link is the heading's name, where one after the name is the way back up.
    # "참고" ("note") titles an aside, no feature.
    text = read("stonechat-5.0.ko.md")
    assert features(text) == [
        ("큐 재생", "beta", "새로운 기능"),
        ("테넌트별 할당량", None, "새로운 기능"),
        ("설정 파일 형식 변경", None, "변경 사항"),
        ("동기화 속도 개선", None, None),
    ]


@pytest.mark.parametrize("name, news", [
    # "Read Before Upgrading", "Upgrade Guide", "Updating to ...": steps to the release,
    # wherever they stand; webinars and shout-outs to contributors close the post.
    ("stonechat-6.0.md", [("Queue replays", "beta", "New Features"), ("Per-tenant quotas", None, "New Features")]),
    # New contributors and where to download it.
    ("stonechat-6.1.zh.md", [("队列回放", "beta", "新特性"), ("租户配额", None, "新特性")]),
    # "Mettre à jour vers ..." (updating to the release).
    ("stonechat-6.2.fr.md", [("Relecture des files", "beta", "Nouveautés"), ("Quotas par locataire", None, "Nouveautés")]),
    # "Спасибо" (thanks).
    ("stonechat-6.3.ru.md", [("Повтор очередей", "beta", "Что нового"), ("Квоты для арендаторов", None, "Что нового")]),
])
def test_upgrade_steps_thanks_and_events_in_several_languages_are_no_features(name, news):
    assert features(read(name)) == news


def test_a_chinese_breaking_changes_list_is_no_summary_and_upgrade_steps_no_features():
    # "重大變更" (breaking changes) names a kind of change, as "Breaking changes" does: its
    # list is not the post's highlights. "升級步驟" (upgrade steps) holds no news.
    text = read("stonechat-7.0.zh-TW.md")
    assert summarize(text).summary_bullets == ()
    assert features(text) == [("佇列重播", "beta", "新功能"), ("租戶配額", None, "新功能")]


def test_a_part_with_its_own_news_over_sub_features_is_one_too_beside_as_many_leaf_features():
    # Two top-level features beside two parts holding features: the part that states a
    # change at length announces it; the one introducing its features in a line only groups.
    text = read("stonechat-8.0.md")
    assert features(text) == [
        ("Rebuilt on a new storage engine", None, None),
        ("Faster compaction", None, "Rebuilt on a new storage engine"),
        ("Smaller indexes", None, "Rebuilt on a new storage engine"),
        ("Go client", None, "Client libraries"),
        ("Rust client", None, "Client libraries"),
        ("Queue replays", "beta", None),
        ("Per-tenant quotas", None, None),
    ]


def test_a_features_indented_text_with_a_command_amid_it_still_hangs_under_its_name():
    # The sentence before the command runs on after it: the text ends in a full stop all the same.
    text = read("stonechat-9.0-announce.txt")
    assert features(text) == [
        ("replay: queue replays", "beta", "New modules"),
        ("quota: per-tenant quotas", None, "New modules"),
        ("Faster startup", None, "Core changes"),
    ]


def test_a_highlight_naming_two_features_side_by_side_makes_neither_a_group():
    # "Many new Dashboard widgets and Query Console improvements": the two headings it
    # names are peers, not a group over its feature.
    text = read("stonechat-10.0-lynx.txt")
    assert features(text) == [
        ("Queue replays", None, "Server"),
        ("Per-tenant quotas", None, "Server"),
        ("Dark theme", None, "Web console"),
        ("Dashboard widgets", None, "Web console"),
        ("Query Console: history and saved queries", None, "Web console"),
    ]
