"""Shapes met in the sixty-second held-aside set, on invented posts (stonechat fixtures): a
Big5 post that names code at every turn."""

from __future__ import annotations

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
