import pytest

from newsletter.publish.sanitize import clean_html, one_line, post_html, safe_url


@pytest.mark.parametrize("text, expected", [
    ("Kite 1.0\r\nBcc: victim@example.org", "Kite 1.0 Bcc: victim@example.org"),
    ("zero\u200bwidth\x00and\tcontrol", "zero width and control"),
    ("  spaced   out  ", "spaced out"),
    (None, ""),
])
def test_one_line_folds_breaks_and_control_characters(text, expected):
    assert one_line(text) == expected


def test_one_line_caps_the_length_with_an_ellipsis():
    assert one_line("word " * 1000, limit=20) == "word word word word…"
    assert one_line("\x01" + "x" * 10_000, limit=10) == "x" * 9 + "…"


def test_clean_html_keeps_structure_and_drops_what_runs():
    html = '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:x()">a</a><a href="/docs">d</a></p>'
    cleaned = clean_html(html, "https://blog.example.org/post/")
    assert "onclick" not in cleaned and "<script" not in cleaned and "javascript:" not in cleaned
    assert 'href="https://blog.example.org/docs"' in cleaned


def test_safe_url_admits_only_absolute_http_addresses():
    assert safe_url("https://example.org/a") == "https://example.org/a"
    assert safe_url("javascript://example.org/%0aalert(1)") is None
    assert safe_url("/relative") is None


def test_a_posts_own_text_renders_as_its_author_meant_and_inert():
    text = ("---\ntitle: Draft\n---\n\nSummary:\n- Faster *sync*\n- <script>alert(1)</script>Safe\n\n"
            "```\nSummary:\n- not a list\n```\n")
    html = post_html(text, "markdown")
    assert "title: Draft" not in html
    assert "<p>Summary:</p>\n<ul>\n<li>Faster <em>sync</em></li>" in html
    assert "<pre><code>Summary:\n- not a list\n</code></pre>" in html
    assert "<script" not in html and "alert" not in html
    assert post_html("<p onclick='x()'>Hi <b>there</b></p><iframe src='https://e.example'></iframe>", "html") == (
        "<p>Hi <b>there</b></p>")


@pytest.mark.parametrize("text", [
    "Line one  \nline two", "Line one\t\nline two", "Line one  \r\nline two", "Line one  \rline two",
    "See <https://a.example/x> and <me@a.example>, or <b>bold</b> <!-- a note -->.",
    "Fish &amp; chips &#169; and a \\*literal\\* star.",
    "![logo](https://a.example/i.png) and [the notes][1], [short] too.\n\n[1]: https://a.example/\n[short]: /s",
    "Use `x()` and *em*, __strong__ and ***both***.\n\n```python\n# not a heading\n```\n",
    "Plain words only, on\ntwo lines.",
])
def test_inline_patterns_left_out_for_characters_a_text_lacks_change_nothing(text):
    import markdown

    assert post_html(text, "markdown") == clean_html(markdown.markdown(text, extensions=["fenced_code"]))
