"""Shapes met in the sixty-ninth held-aside set, on invented posts (shearwater fixtures): a
mail in ISO-2022-JP, which its header names and its escapes betray; a Japanese list item
wrapped over two lines under an underlined part."""

from __future__ import annotations

from helpers.shapes import SHAPES, features, read

from newsletter.summarize import summarize
from newsletter.text.encoding import decode


def test_a_mail_in_iso_2022_jp_is_read_by_the_charset_its_header_names():
    text = read("shearwater-3.2-mail.txt")
    summary = summarize(text)
    assert summary.title == "Shearwater 3.2 released"
    assert summary.summary_bullets == ("索引の再構築が速くなりました", "新しいトークナイザーを追加")
    # A fix's line wrapped at the dump's width (its characters take two columns each) is no
    # name over its text: the fixes stay a list, not features.
    assert features(text) == [
        ("索引の高速な再構築", None, "改良"),
        ("新しいトークナイザー", None, "改良"),
        ("修正", None, None),
    ]


def test_iso_2022_jp_without_a_header_is_told_by_its_escapes():
    body = (SHAPES / "shearwater-3.2-mail.txt").read_bytes().split(b"\n\n", 1)[1]
    assert decode(body).startswith("佐藤です。\n\nShearwater 3.2をリリースしました。")


def test_a_charset_named_in_the_text_below_a_mails_header_is_not_the_mails():
    # "Content-Type" in a post's text (one about HTTP) declares nothing: the post is UTF-8.
    text = "Lumen 2.0 sends old pages as\n\nContent-Type: text/plain; charset=koi8-r\n\nGrüße!\n"
    assert decode(text.encode("utf-8")) == text
