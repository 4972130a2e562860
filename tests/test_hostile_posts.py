"""Hostile and broken posts in a folder source: each one is read or skipped with one log
line naming it, and every good post beside it is still published in a complete archive."""

from __future__ import annotations

import dataclasses
import logging
import os
import pickle
import random
import shutil
import tempfile
import threading
import traceback
from pathlib import Path

import pytest
from helpers import EXAMPLES, NOW
from helpers.archive import (
    EML_HEADERS,
    assert_archive_complete,
    assert_headers_clean,
    assert_html_inert,
    assert_nothing_active,
    example_titles,
    feed_authors,
    feed_titles,
)
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section
from lxml import html

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.mail import send as mailer
from newsletter.summarize import summarize
from newsletter.text.encoding import decode

# Posts whose reading shows a parser left in a bad state (a bold line as a heading needs the
# paragraph it stands in), and what the summarizer makes of them before any hostile post.
PROBES = [decode(path.read_bytes()) for path in sorted(EXAMPLES.iterdir())] + [
    "# Probe\n\n## Group\n\n**(Beta) Bold feature**\n\nText about it.\n"]
PROBE_SUMMARIES = [summarize(text) for text in PROBES]
MB = 1024 * 1024


def build_with(config, posts_dir: Path, files: dict[str, bytes]) -> pipeline.BuildReport:
    for name, data in files.items():
        (posts_dir / name).write_bytes(data)
    report = pipeline.build(config, now=NOW)
    archive = config.archive_dir
    assert_archive_complete(archive)
    missing = example_titles() - set(feed_titles(archive / "posts.atom"))
    assert not missing, f"good posts missing beside the hostile one: {missing}"
    assert report.new_digest == "2026-11-02-1"
    # Reading a hostile post leaves nothing behind that changes how the next post is read.
    assert [summarize(text) for text in PROBES] == PROBE_SUMMARIES
    return report


def problems_about(report: pipeline.BuildReport, name: str) -> list[str]:
    return [p for p in report.problems if name in p]


def assert_skipped(report, caplog, name: str, reason: str) -> None:
    [problem] = problems_about(report, name)
    assert reason in problem
    [line] = [r.getMessage() for r in caplog.records if name in r.getMessage()]
    assert reason in line and "\n" not in line


def assert_published(config, report, name: str, title: str) -> None:
    assert title in feed_titles(config.archive_dir / "posts.atom")
    assert title in (config.archive_dir / "digests" / "2026-11-02-1.txt").read_text(encoding="utf-8")
    assert not [p for p in problems_about(report, name) if "skipped" in p or "not read" in p]


@pytest.fixture(autouse=True)
def _capture_warnings(caplog):
    caplog.set_level(logging.WARNING)


# -- bytes that are not the text they should be --------------------------------------------

def test_an_empty_file_is_skipped(config, posts_dir, caplog):
    report = build_with(config, posts_dir, {"empty.md": b""})
    assert_skipped(report, caplog, "empty.md", "empty file")
    assert report.posts_summarized == 3


def test_a_binary_file_is_skipped(config, posts_dir, caplog):
    noise = random.Random(8).randbytes(64 * 1024)
    report = build_with(config, posts_dir, {"logo.png": b"\x89PNG\r\n\x1a\n" + noise})
    assert_skipped(report, caplog, "logo.png", "binary data")
    assert len(feed_titles(config.archive_dir / "posts.atom")) == len(example_titles())


@BOTH_BACKENDS
def test_nul_bytes_are_removed_and_the_post_published(config, posts_dir, caplog):
    # PostgreSQL's text cannot hold a NUL, which SQLite's can: both store the same summary.
    text = (b"# Nul release\x00\n\nThis release has a stray\x00 byte in its body, and\x00 another.\n\n"
            b"## (Beta) Nul&#0; sync\n\n- Syncs&#x0; notes <b>&#0;</b>\n")
    report = build_with(config, posts_dir, {"nul.md": text * 3})
    assert_published(config, report, "nul.md", "Nul release")
    [problem] = problems_about(report, "nul.md")
    assert "control characters" in problem


@pytest.mark.parametrize("repeat", [1, 4], ids=["short", "long"])
def test_invalid_utf8_is_read_with_replacement_characters(config, posts_dir, caplog, repeat):
    body = "# Größe matters\n\nThe café release is out; ünïcödé everywhere.\n\n".encode() * repeat
    report = build_with(config, posts_dir, {"broken-utf8.md": body + b"A stray \xff\xfe\xc3 byte.\n"})
    assert_published(config, report, "broken-utf8.md", "Größe matters")


def test_utf16_with_a_bom_is_decoded(config, posts_dir, caplog):
    text = "# Lumière 3.0 est là\n\nUne version riche en nouveautés.\n\n## Moteur\n\n- Plus rapide\n"
    report = build_with(config, posts_dir, {"utf16.md": text.encode("utf-16")})
    assert_published(config, report, "utf16.md", "Lumière 3.0 est là")


@pytest.mark.parametrize("encoding, title, body", ids=["gbk", "shift_jis"], argvalues=[
    ("gbk", "发布说明：新版本带来更快的查询和新的规划器",
     "我们很高兴地宣布这个新版本的发布。这个版本包含了许多改进，包括更快的查询速度、新的查询规划器以及更好的错误信息。"),
    ("shift_jis", "リリースノート：新しいバージョンの公開について",
     "新しいバージョンを公開しました。このリリースには、より高速なクエリ、新しいプランナー、そして分かりやすいエラーメッセージが含まれています。"),
])
def test_an_undeclared_legacy_charset_is_detected(config, posts_dir, caplog, encoding, title, body):
    text = f"# {title}\n\n{body}\n\n- {body[:20]}\n- {body[20:40]}\n"
    report = build_with(config, posts_dir, {f"{encoding}.md": text.encode(encoding)})
    assert_published(config, report, f"{encoding}.md", title)


# -- sizes and shapes that could exhaust time or memory ---------------------------------------

def test_a_20_mb_post_is_skipped_by_the_size_cap(config, posts_dir, caplog):
    line = b"A sentence that repeats until the file is far too large for a release note.\n"
    report = build_with(config, posts_dir, {"huge.md": b"# Huge\n\n" + line * (20 * MB // len(line))})
    assert_skipped(report, caplog, "huge.md", "MB")


def test_lines_of_one_megabyte_are_read(config, posts_dir, caplog):
    long_line = ("word " * (MB // 5)).encode()
    text = b"# Long lines\n\n" + long_line + b"\n\n- " + long_line + b"\n\n## " + long_line[:MB // 2] + b"\n"
    report = build_with(config, posts_dir, {"long-lines.md": text})
    assert_published(config, report, "long-lines.md", "Long lines")
    # The archive carries a summary of the post, not the post: no output grows with it.
    for path in config.archive_dir.rglob("*.*"):
        assert path.stat().st_size < 3 * MB, path


def test_two_thousand_levels_of_nested_lists(config, posts_dir, caplog):
    markdown = "".join(f"{'  ' * level}- level {level}\n" for level in range(2000))
    raw_html = "<ul><li>deep " * 2000 + "bottom" + "</li></ul>" * 2000
    report = build_with(config, posts_dir, {
        "nested.md": f"# Nested lists\n\n{markdown}\n".encode(),
        "nested-html.html": f"<html><body><h1>Nested HTML</h1>{raw_html}</body></html>".encode(),
        "nested-markers.md": ("# Nested markers\n\n" + "- " * 2000 + "deepest\n").encode(),
    })
    for name, title in (("nested.md", "Nested lists"), ("nested-html.html", "Nested HTML"),
                        ("nested-markers.md", "Nested markers")):
        assert_published(config, report, name, title)


def test_twenty_thousand_code_fences(config, posts_dir, caplog):
    # A post's page renders its text with python-markdown, whose fence reader takes time with
    # the square of the fences: past a thousand they stay text (this post took 27 s before).
    report = build_with(config, posts_dir, {"fences.md": ("# Many fences\n\n" + "```x\n" * 20_000).encode()})
    assert_published(config, report, "fences.md", "Many fences")


def test_thousands_of_headings(config, posts_dir, caplog):
    sections = "".join(f"## Area {n}\n\n### (Beta) Feature {n}\n\nText {n}.\n\n" for n in range(3000))
    report = build_with(config, posts_dir, {"headings.md": f"# Many headings\n\n{sections}".encode()})
    assert_published(config, report, "headings.md", "Many headings")


def test_an_unterminated_code_fence(config, posts_dir, caplog):
    text = "# Fenced\n\nIntro.\n\n```python\n# not a heading\ndef f():\n    return 1\n"
    report = build_with(config, posts_dir, {"fence.md": text.encode()})
    assert_published(config, report, "fence.md", "Fenced")
    assert "not a heading" not in (config.archive_dir / "posts.atom").read_text(encoding="utf-8")


@pytest.mark.parametrize("front_matter, reason", [
    ("title: [unclosed\nauthor: {broken: \n", "front matter is not valid YAML (line 3: "),
    ("- just\n- a list\n", "front matter is not a mapping of keys (a list)"),
    ("just a string\n", "front matter is not a mapping of keys (a str)"),
    # A tag that would run code under yaml.load; safe_load refuses it.
    ("!!python/object/apply:os.system ['echo PWNED']\n", "could not determine a constructor"),
], ids=["not-yaml", "a-list", "a-string", "python-tag"])
def test_broken_front_matter_is_reported_and_the_post_published(config, posts_dir, caplog, front_matter, reason):
    text = f"---\n{front_matter}---\n\n# Body title\n\nThe body.\n"
    report = build_with(config, posts_dir, {"front.md": text.encode()})
    assert len(feed_titles(config.archive_dir / "posts.atom")) == len(example_titles()) + 1
    assert report.posts_summarized == 4
    [problem] = problems_about(report, "front.md")
    assert reason in problem and problem.endswith("read as text")
    [line] = [r.getMessage() for r in caplog.records if "front.md" in r.getMessage()]
    assert line == problem


# -- content that must never become active -------------------------------------------------------

HOSTILE_MARKDOWN = """# Active content release

<script>PWNED()</script>
<iframe src="https://evil.example/PWNED"></iframe>
<style>body { background: url(https://evil.example/PWNED) }</style>
<img src="x" onerror="PWNED()">
<div onmouseover="PWNED()" style="background:url(PWNED)">hover</div>
<svg onload="PWNED()"><script>PWNED()</script></svg>
<form action="javascript:PWNED()"><input formaction="javascript:PWNED()"></form>
<meta http-equiv="refresh" content="0;url=javascript:PWNED()">

- [a link](javascript:PWNED()) to click
- [another](JaVaScRiPt:PWNED()) and [data](data:text/html,<script>PWNED()</script>)
- <a href="java&#x09;script:PWNED()">tabbed</a> and <a href=" javascript:PWNED()">spaced</a>
- ![image](javascript:PWNED())

## <span onclick="PWNED()">[Beta] Feature with handlers</span>

### (Stable) [Linked feature](javascript:PWNED())
"""

HOSTILE_PAGE = """<!doctype html>
<html><head><title>Active page release</title>
<script>PWNED()</script><style>* { color: red; background: url(PWNED) }</style>
<base href="javascript:PWNED()//">
<link rel="canonical" href="javascript:PWNED()">
<meta property="og:url" content="javascript:PWNED()">
</head>
<body onload="PWNED()">
<article>
<h1 onclick="PWNED()">Active page release</h1>
<p>Read <a href="javascript:PWNED()">this</a> and <a href="data:text/html;base64,UFdORUQ=">that</a>.</p>
<ul><li onmouseover="PWNED()">First <script>PWNED()</script>item</li>
<li><iframe srcdoc="PWNED"></iframe>Second</li></ul>
<h2>Engine</h2>
<h3 style="background:url(PWNED)">(Beta) <a href="vbscript:PWNED()">Scripted</a> feature</h3>
<object data="javascript:PWNED()"></object><embed src="javascript:PWNED()">
</article></body></html>
"""


def test_active_content_never_reaches_any_output(config, posts_dir, caplog):
    report = build_with(config, posts_dir, {
        "active.md": HOSTILE_MARKDOWN.encode(), "active.html": HOSTILE_PAGE.encode(),
    })
    titles = feed_titles(config.archive_dir / "posts.atom")
    assert "Active content release" in titles and "Active page release" in titles
    assert report.posts_summarized == 5
    assert_nothing_active(config.archive_dir)


def test_markup_in_a_title_is_shown_as_text_never_as_markup(config, posts_dir, caplog):
    title = '<img src=x onerror="PWNED()"> & <script>PWNED()</script> "release"'
    text = f"---\ntitle: '{title}'\nauthor: '<b onclick=\"PWNED()\">Mallory</b>'\n---\n\nBody.\n"
    build_with(config, posts_dir, {"markup-title.md": text.encode()})
    assert_nothing_active(config.archive_dir)


# -- header injection and absurd sizes in metadata ---------------------------------------------

def test_cr_lf_in_a_title_or_author_injects_no_header(config, posts_dir, caplog):
    text = ('---\ntitle: "Injected\\r\\nBcc: victim@example.org\\r\\nX-PWNED: 1"\n'
            'author: "Mallory\\r\\nReply-To: evil@example.org\\nX-PWNED: 2"\n---\n\n# Injected\n\nBody.\n')
    html_page = ("<html><head><title>Page\r\nBcc: victim@example.org</title></head><body>"
                 "<h1>Page&#13;&#10;X-PWNED: 3</h1><p class=byline>By Eve&#10;Cc: x@example.org</p>"
                 "</body></html>")
    build_with(config, posts_dir, {"crlf.md": text.encode(), "crlf.html": html_page.encode()})
    archive = config.archive_dir
    for eml in (archive / "digests").glob("*.eml"):
        assert_headers_clean(eml, "PWNED")
    for value in feed_titles(archive / "posts.atom") + feed_authors(archive / "posts.atom"):
        assert "\r" not in value and "\n" not in value
    assert_nothing_active(archive)


def test_cr_lf_in_a_title_or_author_adds_no_header_or_recipient_to_mailed_messages(config, posts_dir, smtp_server):
    subscribers = ["ada@example.org", "Grace <grace@example.org>"]
    config.path.write_text(config.path.read_text(encoding="utf-8")
                           + email_section(smtp_server.port, subscribers), encoding="utf-8")
    config = config_module.load(config.path)
    text = ('---\ntitle: "Injected\\r\\nBcc: victim@example.org\\r\\n\\r\\n<script>PWNED()</script>"\n'
            'author: "Mallory\\nTo: victim@example.org"\n---\n\nSummary:\n- Body\\r\\nX-PWNED: 1\n')
    build_with(config, posts_dir, {"crlf.md": text.encode()})
    report = mailer.send(config, sleep=lambda _seconds: None)
    assert [m.sent for m in report.mailings] == [("ada@example.org", "grace@example.org")]
    # The envelope went to the subscribers alone: no address from a post was added.
    assert sorted(smtp_server.sink.by_recipient()) == ["ada@example.org", "grace@example.org"]
    for received in smtp_server.sink.received:
        head = received.raw.split(b"\r\n\r\n", 1)[0]
        assert max(len(line) for line in head.split(b"\r\n")) <= 998
        message = received.message
        assert not message.defects
        names = [name.lower() for name in message.keys()]
        assert set(names) <= EML_HEADERS and len(names) == len(set(names)), names
        assert all("\r" not in str(v) and "\n" not in str(v) for v in message.values())
        assert_html_inert(html.fromstring(message.get_body(("html",)).get_content()), "PWNED")


def test_an_absurdly_long_title_is_cut_in_every_output(config, posts_dir, caplog):
    title = "Very long title " * 20000
    report = build_with(config, posts_dir, {"long-title.md": f"# {title}\n\nBody.\n".encode()})
    archive = config.archive_dir
    [long_one] = [t for t in feed_titles(archive / "posts.atom") if t.startswith("Very long title")]
    assert len(long_one) <= 1000
    assert (archive / "index.html").stat().st_size < 100_000
    for eml in (archive / "digests").glob("*.eml"):
        assert_headers_clean(eml, "PWNED")
    assert report.posts_summarized == 4


# -- folder entries that are not plain files ------------------------------------------------------

def test_a_link_out_of_the_folder_is_not_followed(config, posts_dir, tmp_path, caplog):
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\nprivate key material\n", encoding="utf-8")
    (posts_dir / "escape.md").symlink_to(secret)
    (posts_dir / "passwd.md").symlink_to("/etc/passwd")
    (posts_dir / "sub").mkdir()
    (posts_dir / "sub" / "up.md").symlink_to("../../secret.md")
    report = build_with(config, posts_dir, {})
    for name in ("escape.md", "passwd.md", "up.md"):
        assert_skipped(report, caplog, name, "leaves the folder")
    for path in config.archive_dir.rglob("*.*"):
        assert b"private key" not in path.read_bytes() and b"root:" not in path.read_bytes()


def test_a_link_loop_and_a_dangling_link_are_skipped(config, posts_dir, caplog):
    (posts_dir / "loop-a.md").symlink_to("loop-b.md")
    (posts_dir / "loop-b.md").symlink_to("loop-a.md")
    (posts_dir / "dangling.md").symlink_to("nowhere.md")
    (posts_dir / "sub").mkdir()
    (posts_dir / "sub" / "up").symlink_to("..")
    report = build_with(config, posts_dir, {})
    for name in ("loop-a.md", "loop-b.md", "dangling.md"):
        assert_skipped(report, caplog, name, "leads nowhere")


def test_a_fifo_is_skipped_without_blocking_the_build(config, posts_dir, caplog):
    fifo = posts_dir / "pipe.md"
    os.mkfifo(fifo)
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(build_with(config, posts_dir, {})), daemon=True)
    worker.start()
    worker.join(timeout=120)
    if worker.is_alive():
        # Release the reader so the thread can end, then fail: the build blocked on the FIFO.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the build blocked reading a FIFO")
    [report] = outcome
    assert_skipped(report, caplog, "pipe.md", "not a regular file")


@pytest.mark.slow
def test_an_unreadable_file_is_skipped(config, posts_dir, caplog):
    locked = posts_dir / "locked.md"
    locked.write_text("# Locked\n\nsecret\n", encoding="utf-8")
    locked.chmod(0o000)
    if os.geteuid() == 0:
        report, posts_feed = _build_as_nobody(config, posts_dir)
    else:
        report = build_with(config, posts_dir, {})
        posts_feed = (config.archive_dir / "posts.atom").read_bytes()
    [problem] = problems_about(report, "locked.md")
    assert "cannot read" in problem and "ermission denied" in problem
    assert report.posts_summarized == 3
    assert b"secret" not in posts_feed


def _build_as_nobody(config, posts_dir: Path) -> tuple[pipeline.BuildReport, bytes]:
    """Root reads any file whatever its mode: build in a forked child that has become
    `nobody`, in a folder nobody can reach (pytest's own is private to root), after a first
    build here has imported everything the child will need."""
    nobody = 65534
    pipeline.build(dataclasses.replace(
        config, sources=(dataclasses.replace(config.sources[0], path=EXAMPLES),)), now=NOW)
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        if any(parent.stat().st_mode & 0o001 == 0 for parent in work.parents):
            pytest.skip(f"{work.parent} is not searchable by an unprivileged user")
        shutil.copytree(posts_dir, work / "posts")
        for path in (work, *work.rglob("*")):
            if path.name != "locked.md":
                os.chown(path, nobody, nobody, follow_symlinks=False)
        as_nobody = dataclasses.replace(
            config, sources=(dataclasses.replace(config.sources[0], path=work / "posts"),),
            archive_dir=work / "archive", state=config_module.StateLocation(path=work / "state.sqlite"))
        reader, writer = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                os.close(reader)
                os.setgroups([])
                os.setgid(nobody)
                os.setuid(nobody)
                outcome = pipeline.build(as_nobody, now=NOW)
            except BaseException:
                outcome = traceback.format_exc()
            finally:
                os.write(writer, pickle.dumps(outcome))
                os._exit(0)
        os.close(writer)
        with os.fdopen(reader, "rb") as pipe:
            outcome = pickle.loads(pipe.read())
        os.waitpid(child, 0)
        assert isinstance(outcome, pipeline.BuildReport), outcome
        assert_archive_complete(work / "archive")
        return outcome, (work / "archive" / "posts.atom").read_bytes()
