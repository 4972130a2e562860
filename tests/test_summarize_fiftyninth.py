"""Shapes met in the fifty-ninth held-aside set, on invented posts (stonechat fixtures): a
forum's post written as lines between <br>s, its parts' names in larger bold lines and its
features' names in bold lines; a release page wrapped in a web component; a wiki page's
lynx dump, each heading ending in its numbered permalink, under the site's name and a
bracketed menu row; a w3m dump's linked picture; closing parts and call-outs in Korean,
German and Russian."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.summarize.metadata import byline


def test_a_forum_post_in_lines_between_breaks_has_its_bold_lines_for_headings():
    text = read("stonechat-2.0-thread.zh.html")
    summary = summarize(text)
    # The post's box holds its text as lines, no paragraph: it is still the page's densest.
    assert summary.title == "石鵖论坛 2.0 发布"
    # A larger bold line ("<font size=5><strong>") names a part; a bold line, an entry of it.
    # The bold-led tip and the download part are no features.
    assert features(text) == [
        ("全文搜索", None, "新功能"),
        ("私信支持图片", None, "新功能"),
        ("审核队列", "beta", "新功能"),
        ("更快的统计页面", None, "后台改进"),
    ]


def test_lines_between_breaks_keep_their_paragraphs():
    text = ("<html><body><div class='post'>Stonechat 2.1 is out.<br><br><strong>Quiet hours</strong><br>"
            "Mute the board at night.<br>It wakes at seven.<br><br>"
            "<span style='font-size: 150%'><b>Removed</b></span><br><strong>Old skins</strong><br>"
            "The skins of 1.x are gone.</div></body></html>")
    assert features(text) == [("Quiet hours", None, None), ("Old skins", None, "Removed")]


def test_a_web_component_holding_the_post_is_a_box_of_the_page():
    # A release page wraps its content in a custom element ("<turbo-frame>"): its blocks are
    # read one by one, not run together as one line of text; "<relative-time>" stays inline.
    text = ("<html><body><header><a href='/'>Home</a></header><article><turbo-frame id='content'>"
            "<h1>Stonechat v3.0</h1><p>Released <relative-time datetime='2027-05-01'>1 May</relative-time>.</p>"
            "<h3>Notable enhancements</h3><h4>Thread folding</h4><p>Long threads fold at the tenth reply.</p>"
            "<h4>Theme editor (beta)</h4><p>Edit the colours in the browser.</p></turbo-frame></article></body></html>")
    assert features(text) == [("Thread folding", None, "Notable enhancements"),
                              ("Theme editor", "beta", "Notable enhancements")]


def test_lines_between_breaks_are_read_in_linear_time():
    def make(k: int) -> str:
        line = "<strong>Quiet hours</strong><br>Mute the board at night.<br><br>"
        return f"<html><body><div>Stonechat 2.1 is out.<br><br>{line * 300 * k}</div></body></html>"

    assert_linear(summarize, make)


def test_a_wiki_pages_dump_drops_its_headings_numbered_permalinks():
    text = read("stonechat-wiki-3.2.ja.txt")
    summary = summarize(text)
    # The site's name over the bracketed menu row ("[ トップ ] [ 編集 | 差分 ]") is the page's.
    assert summary.title == "Stonechat 3.2 公開"
    assert summary.author == "Hanako"
    assert summary.summary_bullets == ("長いページの表示が速くなりました", "編集画面にプレビューを追加しました",
                                       "いくつかの不具合を修正しました")
    # "改善・変更" names kinds of change: it groups the line under it, no caption of the text
    # above; the Japanese lines, half as many characters as columns, are the dump's prose.
    assert features(text) == [
        ("編集プレビュー", None, "新機能"),
        ("添付ファイルの一括削除", None, "新機能"),
        ("表示の高速化", None, "改善・変更"),
        ("検索結果の並び順", None, "改善・変更"),
    ]


def test_a_byline_may_end_in_the_posts_time_stamp():
    assert byline("投稿者: hanako 2027-04-10 (土) 10:00:00") == "hanako"
    assert byline("Posted by Ada Byron 2027-04-10 10:00") == "Ada Byron"


def test_a_w3m_dumps_linked_picture_is_no_part_and_getting_the_release_closes_the_post():
    text = read("stonechat-server-5.1-w3m.txt")
    # "[5][Stonechat Server 5.1 banner]" is a linked picture's alt text, not a part's name;
    # "Stonechat Server 5.1 download & feedback" says where to get the release.
    assert features(text) == [("History sync", "beta", None), ("Archive tool", None, None)]


def test_a_korean_release_pages_upgrade_and_credits_parts_close_it():
    text = read("stonechat-6.0-release.ko.txt")
    # "업그레이드 안내" (upgrading), "기여해 주신 분들" (who contributed) and the page's line of
    # contributors ("hanbit, minji, and 2 other contributors") are no features.
    assert features(text) == [("대화방 보관", None, "새로운 기능"), ("읽음 표시 개선", None, "새로운 기능")]


def test_notices_support_periods_upgrades_and_picture_credits_are_no_features():
    text = ("---\ntitle: Stonechat 5.4 ist da\n---\n\nStonechat 5.4 bringt eine neue Suche.\n\n"
            "## Neue Funktionen\n\n### Volltextsuche (Beta)\n\nDie Suche findet jetzt jedes Wort.\n\n"
            "### Dunkles Design\n\nDas Backend hat ein dunkles Design.\n\n"
            "**Achtung!**\n\nPHP 8.2 ist nun die Mindestversion.\n\n"
            "## Support-Zeiträume\n\n| Version | Ende |\n| --- | --- |\n| 5.4 | 2028 |\n\n"
            "## Update auf Stonechat 5.4\n\nSpiel das Update über den Manager ein.\n\n"
            "## Header Image Credits\n\nDas Titelbild stammt von Ada.\n")
    assert features(text) == [("Volltextsuche", "beta", "Neue Funktionen"), ("Dunkles Design", None, "Neue Funktionen")]
    # A notice's title in Russian ("Обратите внимание!") is a call-out, as "Note" is.
    notice = ("# Stonechat 5.4\n\nВышла новая версия.\n\n**Обратите внимание!**\n\nНужен PHP 8.2.\n\n"
              "## Новые возможности\n\n### Поиск\n\nПоиск стал быстрее.\n\n### Темы\n\nНовые темы оформления.\n")
    assert features(notice) == [("Поиск", None, "Новые возможности"), ("Темы", None, "Новые возможности")]
