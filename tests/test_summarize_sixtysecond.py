"""Shapes met in the sixty-second held-aside set, on invented posts (stonechat fixtures): a
Big5 post that names code at every turn; a numbered list whose items open with a bold
paragraph, each a part of the post; a release page whose owner is marked as its author; a
part giving the project's numbers; "Other news" under the parts of the main news; "the most
important changes are these:" in other languages; an MDX post's author component, and a
sentence naming its list "the following" before its end; a changelog closing a post whose
parts told its news; YAML front matter closed by "..." over an H1 "New features"; a lynx
dump's reading time joined to the author's line; closing and aside parts in more words."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_big5_post_full_of_code_words_is_still_read_as_big5():
    text = read("stonechat-4.0.zh-TW.md")
    summary = summarize(text)
    assert summary.title == "stonechat 4.0 正式推出"
    assert summary.language == "zh"
    assert features(text) == [
        ("strict-peer-deps 預設改為 true", None, "重大變更"),
        ("cache-dir 移到 ~/.cache/stonechat", None, "重大變更"),
        ("stonechat why 支援 --json 輸出", None, "新功能"),
        ("平行下載", "experimental", "新功能"),
    ]


def test_a_numbered_list_of_bold_named_parts_holds_features_not_highlights():
    text = read("stonechat-5.1-notes.md")
    summary = summarize(text)
    assert summary.summary_bullets == ()
    assert features(text) == [
        ("Offline mode", "experimental", "What's in this release"),
        ("Faster dependency resolution", None, "What's in this release"),
    ]


def test_a_release_page_names_who_released_it_not_the_repository_owner():
    text = read("stonechat-5.0-release-page.html")
    summary = summarize(text)
    assert summary.title == "v5.0"
    assert summary.author == "marisol"
    assert summary.summary_bullets == ()
    # The part giving the project's numbers is no news.
    assert features(text) == [
        ("Lockfile signatures", "beta", "Headline changes"),
        ("Resumable downloads", None, "Headline changes"),
        ("Workspace-wide outdated", None, "Headline changes"),
        ("Smaller fixes", None, None),
    ]


def test_a_list_of_other_news_under_the_main_parts_is_no_highlights():
    text = read("stonechat-6.0-notes.es.md")
    assert summarize(text).summary_bullets == ()
    assert features(text) == [
        ("Resolución en paralelo", None, "Lo más destacado"),
        ("Perfiles de compilación", "experimental", "Lo más destacado"),
        ("Otras novedades", None, None),
    ]


def test_a_sentence_naming_the_most_important_changes_introduces_the_highlights():
    summary = summarize(read("stonechat-7.0-notes.tr.md"))
    # The second list, of smaller changes, is not the highlights.
    assert summary.summary_bullets == ("stonechat install paketleri artık paralel indirir.",
                                       "Önbellek dizini XDG kurallarına uyar.",
                                       "stonechat why komutu JSON çıktısı verebilir.")


def test_an_mdx_author_component_and_a_list_of_the_following_changes():
    text = read("stonechat-8.0.ko.mdx")
    summary = summarize(text)
    assert summary.author == "marisol, junho-park"
    assert summary.summary_bullets == ("병렬 설치: 여러 패키지를 동시에 내려받아 설치 시간을 줄입니다",
                                       "서명된 잠금 파일: 잠금 파일이 바뀌면 설치를 멈춥니다")
    assert features(text) == [("병렬 설치", None, None), ("서명된 잠금 파일", "beta", None)]


def test_an_english_sentence_naming_the_following_features_introduces_them():
    text = ("# Stonechat 8.1\n\nStonechat 8.1 improves everyday work with the following changes.\n\n"
            "- Resumable downloads: a download picks up where it stopped\n"
            "- Shared cache: one cache serves every workspace\n\n"
            "## Resumable downloads\n\nDownloads resume.\n\n## Shared cache\n\nOne cache for all.\n")
    assert summarize(text).summary_bullets == ("Resumable downloads: a download picks up where it stopped",
                                               "Shared cache: one cache serves every workspace")


def test_a_closing_changelogs_new_features_list_is_no_highlights():
    text = read("stonechat-9.0.zh.md")
    # The parts above told the news in prose: the changelog's lists only sort its items.
    assert summarize(text).summary_bullets == ()
    assert features(text) == [("离线安装", None, "新版本介绍"), ("更快的依赖解析", None, "新版本介绍")]


def test_front_matter_closed_by_the_yaml_end_marker_declares_the_title():
    text = read("stonechat-10.0-notes.md")
    summary = summarize(text)
    # The H1 under it groups the news: it is no wording of the title.
    assert summary.title == "Release 10.0"
    assert features(text) == [
        ("Lockfiles record the registry", None, "New features"),
        ("stonechat audit reads advisories offline", None, "New features"),
    ]


def test_a_reading_time_joined_to_the_authors_line_hides_no_name():
    summary = summarize(read("stonechat-11.0-lynx.txt"))
    assert summary.title == "Stonechat 11.0 is out"
    # lynx joins "4 min read" and the author's line under it: the name is still the author's.
    assert summary.author == "Marisol Pereira"


@pytest.mark.parametrize("closing", ["最後に", "Participe", "Participez"])
def test_closing_parts_in_more_words(closing):
    text = (f"# Stonechat 12\n\n## Faster lockfiles (beta)\n\nLockfiles are read twice as fast.\n\n"
            f"## Signed releases\n\nEvery archive is signed.\n\n## {closing}\n\nThanks and see you soon.\n")
    assert features(text) == [("Faster lockfiles", "beta", None), ("Signed releases", None, None)]


def test_a_known_issue_under_a_feature_is_an_aside():
    text = ("# Stonechat 12\n\n## New features\n\n### Windows support\n\nStonechat runs natively on Windows.\n\n"
            "#### Known issue\n\nLong paths need to be enabled in the registry.\n\n"
            "### Shell completion\n\nCompletion scripts ship for four shells.\n")
    assert features(text) == [("Windows support", None, "New features"), ("Shell completion", None, "New features")]


def test_the_sixtysecond_set_rules_stay_linear_on_hostile_posts():
    def numbered_parts(k: int) -> str:
        items = "".join(f"{n}. **Part {n}**\n\n   It changed the following thing {n}.\n\n" for n in range(1, 300 * k))
        return f"---\ntitle: Stonechat\n...\n\n<Authors authors={{['ada']}} />\n\n## Changes\n\n{items}"

    def joined_bylines(k: int) -> str:
        parts = "".join(f"Part {n} with zstd\n\n   The part {n} changed in a way we explain.\n\n" for n in range(300 * k))
        return f"Stonechat 12\n\n   June 30, 2027 · 4 min read Ada Lovelace\n\n{parts}"

    assert_linear(summarize, numbered_parts)
    assert_linear(summarize, joined_bylines)
