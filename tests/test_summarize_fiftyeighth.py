"""Shapes met in the fifty-eighth held-aside set, on invented posts (brambling fixtures): a
short Shift_JIS post whose code-heavy lines read as "messy" in every charset at
charset_normalizer's default bar; a lynx dump's line at the margin naming a kind of change
whose text shares no word with it; a Chinese post's overview and upgrade notes; a blog's
reading time in bold; an MDC component's YAML props."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_short_legacy_encoded_post_full_of_code_is_still_read_in_its_charset():
    text = read("brambling-3.0.ja.md")
    summary = summarize(text)
    assert summary.title == "Brambling 3.0 を公開しました"
    assert summary.summary_bullets == ("brambling.toml で設定を書けるようになりました",
                                       "bram sync コマンドが速くなりました",
                                       "エクステンションの API が新しくなりました")
    assert features(text) == [
        ("設定ファイル", None, None),
        ("同期の高速化", None, None),
        ("新しいエクステンション API", None, "エクステンション作者向けの変更"),
        ("Windows での動作", "experimental", None),
    ]


def test_a_scrapes_line_naming_a_kind_of_change_is_a_feature_though_its_text_never_names_it():
    text = read("brambling-3.1-lynx.txt")
    # A figure's caption never ends in "improvements": the line announces a change.
    assert features(text) == [
        ("Delta sync", "beta", None),
        ("Faster index", None, None),
        ("Terminal improvements", None, None),
    ]


def test_a_release_overview_and_notes_before_upgrading_are_no_features_in_chinese():
    # "版本概览" is the release's overview, "升级说明" and "升級前須知" say what to know before
    # upgrading, "其他改進" is "Other improvements" in traditional characters.
    assert features(read("brambling-3.2.zh.md")) == [
        ("增量同步", None, "新特性"),
        ("更小的索引", None, "新特性"),
    ]
    assert features(read("brambling-3.2.zh-Hant.md")) == [
        ("增量同步", None, "新功能"),
        ("更小的索引", None, "新功能"),
    ]



def test_a_reading_time_in_bold_is_no_heading():
    text = "**Lesezeit: 4 Minuten**\n\nBrambling 3.3 ist da.\n\n## Ordner-Sync (Beta)\n\nOrdner werden blockweise synchronisiert.\n"
    assert features(text) == [("Ordner-Sync", "beta", None)]


def test_an_mdc_components_props_are_no_setext_heading():
    # The props between "---" lines under "::figure-card" would read as a setext heading (the
    # bold reading time over the post is no heading either).
    assert features(read("brambling-3.3.md")) == [
        ("Folder delta sync", "beta", None),
        ("Quieter daemon", None, None),
    ]


def test_an_unclosed_mdc_props_block_ends_at_a_blank_line_and_many_read_in_linear_time():
    text = "# Brambling 3.4\n\n::figure-card\n---\nsrc: a.svg\n\n## Folder pinning\n\nPinned folders stay offline.\n"
    assert features(text) == [("Folder pinning", None, None)]

    def make(size: int) -> str:
        cards = "".join(f"::figure-card\n---\nsrc: figure-{n}.svg\n---\n::\n\nFigure {n} shows a sync.\n\n"
                        for n in range(200 * size))
        return f"# Brambling 3.4\n\n## Folder pinning\n\nPinned folders stay offline.\n\n{cards}"
    assert_linear(summarize, make)


def test_a_move_to_a_library_is_a_change_and_a_move_to_the_version_the_upgrade():
    text = ("# Brambling 3.5\n\n## エクステンション作者向けの変更\n\n### brambling-ext-* パッケージへの移行\n\n"
            "内部クラスの代わりに brambling-ext-api を使ってください。\n\n### ログの構造化\n\nログが JSON になりました。\n\n"
            "## 3.5 への移行\n\nデーモンを止めてから更新してください。\n")
    assert features(text) == [
        ("brambling-ext-* パッケージへの移行", None, "エクステンション作者向けの変更"),
        ("ログの構造化", None, "エクステンション作者向けの変更"),
    ]
