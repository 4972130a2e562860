"""Properties of the parsers and the summarizer over generated and mutated posts: nothing
raises, and every summary has the published JSON shape.

The normal suite keeps each property to a few seconds. A longer fuzz run takes the number
of examples from NEWSLETTER_FUZZ_EXAMPLES, e.g. `NEWSLETTER_FUZZ_EXAMPLES=20000 pytest
tests/test_properties.py`.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from helpers import EXAMPLES, NOW, shared_dir
from helpers.archive import (
    assert_archive_complete,
    assert_html_inert,
    assert_nothing_active,
    feed_titles,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import html

from newsletter import pipeline
from newsletter.models import STABILITIES
from newsletter.publish.sanitize import clean_html
from newsletter.summarize import summarize
from newsletter.text.encoding import decode
from newsletter.text.front_matter import split_front_matter
from newsletter.text.parse import parse

FUZZ_EXAMPLES = int(os.environ.get("NEWSLETTER_FUZZ_EXAMPLES", "0"))


def examples(normal: int) -> settings:
    """`normal` examples in the everyday suite, NEWSLETTER_FUZZ_EXAMPLES in a fuzz run."""
    return settings(max_examples=max(normal, FUZZ_EXAMPLES), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def assert_summary_shape(summary) -> None:
    """The JSON a summary prints is the published shape, whatever the input."""
    data = json.loads(json.dumps(summary.to_json(), ensure_ascii=False))
    assert isinstance(data["title"], (str, type(None)))
    assert isinstance(data["author"], (str, type(None)))
    assert isinstance(data["language"], str) and data["language"]
    assert isinstance(data["canonical_url"], (str, type(None)))
    assert isinstance(data["summary_bullets"], list)
    assert all(isinstance(b, str) and b.strip() for b in data["summary_bullets"])
    assert isinstance(data["features"], list)
    for feature in data["features"]:
        assert set(feature) == {"heading", "stability", "section"}
        assert isinstance(feature["heading"], str) and feature["heading"].strip()
        assert feature["stability"] is None or feature["stability"] in STABILITIES
        assert isinstance(feature["section"], (str, type(None)))


# -- generated posts -----------------------------------------------------------------------------

WORDS = st.sampled_from([
    "Release", "faster", "planner", "Streaming", "queries", "2.0", "新版本", "リリース", "Größe",
    "(Beta)", "[Stable]", "（Prototype）", "[deprecated]", "\\[Alpha]", "Summary:", "by", "Team",
    "https://example.org/x", "<b>", "</b>", "<script>", "&amp;", "`code`", "**bold**", "_", "|",
    "\u200b", "\ufeff", "\x00", "\r", "\t", "(", ")", "[", "]", "#",
])
PHRASE = st.lists(WORDS, min_size=0, max_size=8).map(" ".join)
LINE = st.one_of(
    PHRASE,
    st.builds(lambda n, p: "#" * n + " " + p, st.integers(1, 7), PHRASE),
    st.builds(lambda indent, mark, p: " " * indent + mark + " " + p,
              st.integers(0, 12), st.sampled_from(["-", "*", "+", "1.", "•", "a)"]), PHRASE),
    st.sampled_from(["---", "+++", "```", "~~~", "```python", "===", "***", "> quote", "",
                     "<ul><li>", "</li></ul>", "<h2>", "</h2>", "<!--", "-->", "title: x",
                     "author: [unclosed", "<html><body>", "<?xml version='1.0'?>"]),
    st.text(max_size=40),
)
POST = st.lists(LINE, max_size=60).map("\n".join)


@pytest.mark.slow
@given(POST, st.sampled_from([None, "text/html", "text/markdown", "text/plain", "application/xml"]),
       st.sampled_from([None, "https://example.org/post", "javascript:alert(1)", "not a url"]))
@examples(300)
def test_summarize_has_the_json_shape_for_any_post(text, media_type, url):
    assert_summary_shape(summarize(text, media_type=media_type, url=url))


# Posts of thousands of short lines, the shapes that once took minutes per megabyte (a
# quadratic rule, or a line break it did not expect): one to three lines, repeated.
SHORT_LINE = st.one_of(
    st.sampled_from(["#", "a", "=", "---", "- a", "***", "```", "|", "> a", "1.", "* ", ":", "+", "<p>", ""]),
    LINE.filter(lambda line: len(line) <= 8),
)
SHORT_LINES = st.builds(
    lambda lines, newline, count: (newline.join(lines) + newline) * count,
    st.lists(SHORT_LINE, min_size=1, max_size=3), st.sampled_from(["\n", "\r", "\r\n"]), st.integers(1_000, 10_000),
)


@pytest.mark.slow
@given(SHORT_LINES)
@settings(examples(20), max_examples=max(20, FUZZ_EXAMPLES // 5))  # each is a long post: a fifth as many
def test_many_short_lines_keep_the_json_shape(text):
    assert_summary_shape(summarize(text))


@given(st.text(max_size=3000))
@examples(200)
def test_summarize_has_the_json_shape_for_any_text(text):
    assert_summary_shape(summarize(text))


@given(st.one_of(POST, POST.map(lambda t: f"---\n{t}\n---\nBody"), POST.map(lambda t: f"+++\n{t}\n+++\nBody")))
@examples(200)
def test_front_matter_splits_into_a_mapping_and_the_rest(text):
    meta, body, problem = split_front_matter(text)
    assert isinstance(meta, dict) and isinstance(body, str)
    if body != text:  # front matter was read, perhaps an empty one
        assert text.endswith(body) and problem is None
    else:
        assert meta == {}
    assert problem is None or ("\n" not in problem and problem.startswith("front matter is not"))


@given(POST, st.sampled_from([None, "text/html"]))
@examples(200)
def test_the_outline_parser_gives_blocks_for_any_post(text, media_type):
    document = parse(text, media_type)
    assert document.format in ("markdown", "asciidoc", "html", "text")
    assert isinstance(document.blocks, tuple)


# -- bytes ---------------------------------------------------------------------------------------

CHARSETS = st.sampled_from([None, "utf-8", "UTF8", "latin-1", "gbk", "shift_jis", "utf-16",
                            "x-no-such-charset", "", " utf-8 ", "\x00"])


@given(st.binary(max_size=4000), CHARSETS)
@examples(300)
def test_decode_never_raises(data, charset):
    assert isinstance(decode(data, charset), str)


@given(st.text(max_size=500), st.sampled_from(["utf-8", "utf-16", "utf-32", "gbk", "shift_jis", "latin-1"]))
@examples(300)
def test_decode_reads_back_text_in_its_declared_charset(text, charset):
    try:
        data = text.encode(charset)
    except UnicodeEncodeError:
        return
    if data.decode(charset) != text:
        return  # the codec itself does not round-trip it (Shift-JIS maps ¥ to a backslash)
    if text.startswith("\x00") and charset == "utf-16":
        return  # FF FE 00 00 is also the UTF-32 byte order mark: ambiguous by nature
    assert decode(data, charset).lstrip("\ufeff") == text.lstrip("\ufeff")


@given(st.text(max_size=500).filter(lambda t: not t.startswith("\ufeff") and "charset" not in t.lower()
                                    and "encoding" not in t.lower()))
@examples(300)
def test_undeclared_utf8_is_read_as_utf8(text):
    assert decode(text.encode("utf-8")) == text


# -- the sanitizer -----------------------------------------------------------------------------

ATTACK = st.sampled_from([
    "<script>PWNED()</script>", "<iframe src=//x>", "<img src=x onerror=PWNED()>",
    '<a href="javascript:PWNED()">', '<a href="jav&#x09;ascript:PWNED()">', "<svg onload=PWNED()>",
    "<style>*{background:url(PWNED)}</style>", '<p style="x:url(PWNED)">', "<object data=x>",
    '<a href="data:text/html,PWNED">', "<math><mtext><script>PWNED()</script>", "<!--<script>-->",
    "<scr<script>ipt>PWNED()</script>", '<form action="javascript:PWNED()">', "<base href=//x>",
    '<meta http-equiv="refresh" content="0;url=javascript:PWNED()">', "</li></ul>", "<li>", "&",
])


BASE_URLS = st.one_of(
    st.none(), st.sampled_from(["https://example.org/post", "https://</</x.example/", "https://x:99999/",
                                "https://exa mple.org/", "http://[::1]/", "javascript:x", "https://"]),
    st.text(max_size=30).map(lambda tail: f"https://{tail}"))


@pytest.mark.slow
@given(st.lists(st.one_of(ATTACK, PHRASE), max_size=20).map("".join), BASE_URLS)
@examples(300)
def test_clean_html_leaves_nothing_active(fragment, base_url):
    cleaned = clean_html(fragment, base_url=base_url)
    if cleaned.strip():
        assert_html_inert(html.fragment_fromstring(cleaned, create_parent="div"), "PWNED")


# -- mutated real posts ----------------------------------------------------------------------------

SYNTAX = ["#", "*", "-", "`", "```", "[", "]", "(", ")", "<", ">", "|", "\n", "\n\n", "---\n",
          ":", "\\", "_", "~", "!", "<ul>", "</", "[Beta]", "(", "&", "\x00", "\r"]


def real_posts() -> list[Path]:
    posts = sorted(EXAMPLES.iterdir())
    shared = shared_dir()
    if shared is not None:
        posts += sorted((shared / "corpus" / "seeds").glob("*"))
    return posts


REAL_POSTS = [decode(path.read_bytes()) for path in real_posts()]


def mutate(text: str, rng: random.Random, edits: int) -> str:
    """`edits` random deletions and insertions of Markdown syntax characters."""
    for _ in range(edits):
        at = rng.randrange(len(text) + 1)
        if rng.random() < 0.5 and text:
            text = text[:at] + text[at + rng.randint(1, 20):]
        else:
            text = text[:at] + rng.choice(SYNTAX) * rng.randint(1, 3) + text[at:]
    return text


@pytest.mark.slow
@given(st.sampled_from(REAL_POSTS), st.randoms(use_true_random=False), st.integers(1, 40))
@examples(200)
def test_mutated_real_posts_keep_the_json_shape(text, rng, edits):
    assert_summary_shape(summarize(mutate(text, rng, edits)))


def test_a_build_of_mutated_real_posts_publishes_a_whole_and_inert_archive(config, posts_dir):
    rng = random.Random(20261102)
    for n in range(max(30, FUZZ_EXAMPLES // 100)):
        original = rng.choice(REAL_POSTS)
        suffix = rng.choice([".md", ".html", ".txt"])
        (posts_dir / f"mutant-{n}{suffix}").write_text(
            mutate(original, rng, rng.randint(1, 60)), encoding="utf-8", errors="surrogatepass")
    report = pipeline.build(config, now=NOW)
    assert report.posts_seen == report.posts_summarized == len(list(posts_dir.iterdir()))
    assert_archive_complete(config.archive_dir)
    assert_nothing_active(config.archive_dir)
    # Mutations may break a front matter block or add a NUL: said, and the post published.
    assert all("control characters" in p or "front matter" in p for p in report.problems)
    # Forms of one post (a mutant and its original) may share an entry; none is dropped.
    assert 1 <= len(feed_titles(config.archive_dir / "posts.atom")) <= report.posts_seen
