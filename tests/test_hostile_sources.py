"""Hostile and broken web sources, served by a real HTTP server on 127.0.0.1, through a
whole build: each one costs one line naming its URL, every folder post beside it is still
published, the archive is whole and inert, and nothing waits forever or fills memory."""

from __future__ import annotations

import gzip
import logging
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from helpers import NOW, write_config
from helpers.archive import (
    assert_archive_complete,
    assert_nothing_active,
    example_titles,
    feed_titles,
)
from helpers.postgres import BOTH_BACKENDS, state_table

from newsletter import config as config_module
from newsletter import pipeline

MB = 1024 * 1024
# A build that has not ended after this long is stuck: the test fails instead of hanging.
HANG = 120


class Hostile(BaseHTTPRequestHandler):
    """Answers each path with the behaviour registered for it in `routes`."""

    routes: dict[str, Callable[[Hostile], None]] = {}
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        handler = self.routes.get(self.path.split("?")[0])
        if handler is None:
            self.send_error(404)
            return
        try:
            handler(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as it should on a hostile answer

    def log_message(self, *_args) -> None:
        pass

    def answer(self, body: bytes, content_type: str = "application/atom+xml", status: int = 200,
               headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[tuple[str, dict]]:
    routes: dict[str, Callable[[Hostile], None]] = {}
    handler = type("Routes", (Hostile,), {"routes": routes})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    # Polling for shutdown every 50 ms rather than 500 keeps each test's teardown short.
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", routes
    finally:
        httpd.shutdown()
        httpd.server_close()


def web_config(tmp_path: Path, posts_dir: Path, kind: str, url: str, http: str = "",
               state: config_module.StateLocation | None = None) -> config_module.Config:
    return config_module.load(write_config(tmp_path, f"""{state_table(state) if state else ""}
[site]
title = "Test digest"
url = "https://digest.example.org/"

[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"

[[sources]]
name = "hostile"
kind = "{kind}"
url = "{url}"

[archive]
# Room for every entry, so the folder posts stay on the feed's first page.
feed_size = 500

[http]
timeout = 3
retries = 1
{http}
"""))


def build(config) -> pipeline.BuildReport:
    """The build, run where a hang shows as a failure rather than a stuck suite."""
    outcome: list = []
    worker = threading.Thread(target=lambda: outcome.append(pipeline.build(config, now=NOW)), daemon=True)
    worker.start()
    worker.join(timeout=HANG)
    assert not worker.is_alive(), f"the build did not end within {HANG} s"
    [report] = outcome
    assert_archive_complete(config.archive_dir)
    assert_nothing_active(config.archive_dir)
    assert example_titles() <= set(feed_titles(config.archive_dir / "posts.atom")), "folder posts missing"
    return report


def problem_about(report: pipeline.BuildReport, url: str) -> str:
    lines = [p for p in report.problems if url in p]
    assert lines, report.problems
    assert all("\n" not in line for line in lines)
    return lines[0]


def atom_feed(entries: str, prolog: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="utf-8"?>{prolog}'
            '<feed xmlns="http://www.w3.org/2005/Atom"><title>Hostile</title><id>urn:hostile</id>'
            f"<updated>2026-11-01T00:00:00Z</updated>{entries}</feed>").encode()


def entry(n: int, content: str, title: str | None = None) -> str:
    return (f"<entry><id>urn:hostile:{n}</id><title>{title or f'Entry {n}'}</title>"
            f"<updated>2026-11-01T00:00:00Z</updated><content type=\"html\">{content}</content></entry>")


@pytest.fixture(autouse=True)
def _capture_warnings(caplog):
    caplog.set_level(logging.WARNING)


# -- malformed and hostile XML --------------------------------------------------------------------

def test_malformed_feed_xml(server, tmp_path, posts_dir):
    base, routes = server
    truncated = atom_feed(entry(1, "&lt;p&gt;Kite 1.0 is out.&lt;/p&gt;", "Kite 1.0") * 1)[:-40]
    routes["/feed.xml"] = lambda h: h.answer(truncated + b"<entry><title>unclosed")
    report = build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml"))
    assert "feed" in problem_about(report, f"{base}/feed.xml")


BILLION_LAUGHS = """<!DOCTYPE feed [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>"""


def test_entity_expansion_is_not_performed(server, tmp_path, posts_dir):
    base, routes = server
    body = atom_feed(entry(1, "Laughs: &lol9;", "Laughing 1.0"), prolog=BILLION_LAUGHS)
    routes["/feed.xml"] = lambda h: h.answer(body)
    config = web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml")
    build(config)
    for path in config.archive_dir.rglob("*.*"):
        assert b"lollollol" not in path.read_bytes(), path
        assert path.stat().st_size < 2 * MB, path


def test_external_entities_are_not_fetched_or_read(server, tmp_path, posts_dir):
    base, routes = server
    fetched = []
    routes["/secret.txt"] = lambda h: (fetched.append(h.path), h.answer(b"REMOTE-SECRET", "text/plain"))
    secret = tmp_path / "secret.txt"
    secret.write_text("LOCAL-SECRET", encoding="utf-8")
    prolog = (f'<!DOCTYPE feed [<!ENTITY local SYSTEM "file://{secret}">'
              f'<!ENTITY remote SYSTEM "{base}/secret.txt">]>')
    body = atom_feed(entry(1, "Local: &local; remote: &remote; and more text.", "External 1.0"), prolog)
    routes["/feed.xml"] = lambda h: h.answer(body)
    config = web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml")
    build(config)
    assert fetched == []
    for path in config.archive_dir.rglob("*.*"):
        assert b"LOCAL-SECRET" not in path.read_bytes() and b"REMOTE-SECRET" not in path.read_bytes()


def test_a_feed_of_100000_entries_is_bounded(server, tmp_path, posts_dir):
    base, routes = server
    body = atom_feed("".join(entry(n, f"Release {n}.") for n in range(100_000)))
    routes["/feed.xml"] = lambda h: h.answer(body)
    config = web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml")
    report = build(config)
    # Over the size cap: refused before parsing. (Under it, only the first entries are read.)
    assert "larger than" in problem_about(report, f"{base}/feed.xml")
    assert report.posts_seen == 3


@pytest.mark.slow
def test_a_feed_under_the_size_cap_is_read_up_to_the_entry_limit(server, tmp_path, posts_dir):
    base, routes = server
    body = atom_feed("".join(entry(n, f"Release {n} is out with many fixes.") for n in range(5_000)))
    routes["/feed.xml"] = lambda h: h.answer(body)
    report = build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml"))
    assert "only the first" in problem_about(report, f"{base}/feed.xml")
    assert 3 < report.posts_seen <= 3 + 1000


def test_active_content_and_header_breaks_in_a_feed_reach_nothing(server, tmp_path, posts_dir):
    base, routes = server
    hostile_html = escape(
        '<p>Kite is out.</p><script>PWNED()</script><iframe src="//evil.example/PWNED"></iframe>'
        '<style>*{background:url(PWNED)}</style><img src=x onerror="PWNED()">'
        '<a href="javascript:PWNED()">x</a><a href="data:text/html,PWNED">y</a>'
        '<ul><li onclick="PWNED()">Faster</li></ul><h2 style="x:url(PWNED)">(Beta) Wings</h2>')
    entries = (entry(1, hostile_html, "Kite 2.0") +
               f"<entry><id>urn:hostile:2</id><title>Evil&#13;&#10;Bcc: victim@example.org</title>"
               f"<author><name>Eve&#10;X-PWNED: 1</name></author><link href=\"javascript:PWNED()\"/>"
               f"<updated>2026-11-01T00:00:00Z</updated><content type=\"html\">{hostile_html}</content></entry>")
    routes["/feed.xml"] = lambda h: h.answer(atom_feed(entries))
    report = build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml"))
    assert report.posts_seen == 5


@BOTH_BACKENDS
def test_nul_in_a_feed_and_its_validators_is_stored_on_both_backends(server, tmp_path, posts_dir, state):
    """PostgreSQL's text refuses NUL, which SQLite stores: a NUL from a source would fail
    every build there. No header value or post carries one on purpose."""
    base, routes = server
    answered: list[str | None] = []

    def feed(handler: Hostile) -> None:
        answered.append(handler.headers.get("If-None-Match"))
        body = atom_feed(entry(1, escape("<p>Kite adds maps.</p>"), "Kite 2.0").replace("urn:hostile:1", "urn:hostile:\x001"))
        handler.answer(body.replace(b"Kite adds", b"Kite\x00 adds"), headers={
            "ETag": '"v1\x00x"', "Last-Modified": "Sun, 01 Nov 2026 00:00:00 GMT\x00"})

    routes["/feed.xml"] = feed
    routes["/page"] = lambda h: h.answer(
        b"<html><head><title>Kite\x00 3.0</title></head><body><h1>Kite\x00 3.0</h1>"
        b"<p>Kite\x00 adds offline maps&#0;.</p><h2>(Beta) Sync&#x0;</h2><p>Syncs&#00; notes.</p><a href='/x\x00y'>more</a></body></html>", "text/html; charset=utf-8")
    for kind, path in (("feed", "/feed.xml"), ("page", "/page")):
        config = web_config(tmp_path, posts_dir, kind, f"{base}{path}", state=state)
        report = build(config)
        assert not [p for p in report.problems if "state database" in p], report.problems
    assert {"Kite 2.0", "Kite 3.0"} <= set(feed_titles(config.archive_dir / "posts.atom"))
    # The validators were not valid header text: dropped, the next fetch is unconditional.
    build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml", state=state))
    assert answered == [None, None]


@BOTH_BACKENDS
def test_a_nul_in_a_header_a_source_error_quotes_is_shown_escaped_and_stored(server, tmp_path, posts_dir, state):
    base, routes = server
    routes["/page"] = lambda h: h.answer(b"hello", "text/html", headers={"Content-Encoding": "x\x00y"})
    report = build(web_config(tmp_path, posts_dir, "page", f"{base}/page", state=state))
    assert problem_about(report, "/page").endswith("unsupported Content-Encoding (x\\x00y)")


# -- pages -----------------------------------------------------------------------------------------

def test_html_that_never_closes_its_tags(server, tmp_path, posts_dir):
    base, routes = server
    page = ("<html><head><title>Unclosed 1.0</title><body><h1>Unclosed 1.0<div><p>Intro "
            + "<div><span><ul><li>item <b><i>" * 3000 + "<h2>(Beta) Deep feature<p>text").encode()
    routes["/page"] = lambda h: h.answer(page, "text/html; charset=utf-8")
    report = build(web_config(tmp_path, posts_dir, "page", f"{base}/page"))
    assert report.posts_summarized == 4


@pytest.mark.slow
def test_a_server_that_drips_bytes_forever_is_cut_off(server, tmp_path, posts_dir):
    base, routes = server

    def drip(handler: Hostile) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        handler.wfile.write(b"<html><body><h1>Drip</h1>")
        while True:  # until the client hangs up
            handler.wfile.write(b"<p>.")
            handler.wfile.flush()
            time.sleep(0.05)

    routes["/drip"] = drip
    report = build(web_config(tmp_path, posts_dir, "page", f"{base}/drip"))
    assert "within" in problem_about(report, f"{base}/drip")


@pytest.mark.slow
def test_a_gzip_bomb_is_cut_off_at_the_size_cap(server, tmp_path, posts_dir):
    base, routes = server
    bomb = gzip.compress(b"<html><body><h1>Bomb</h1>" + b"\0" * (200 * MB), compresslevel=9)
    routes["/bomb"] = lambda h: h.answer(bomb, "text/html", headers={"Content-Encoding": "gzip"})
    report = build(web_config(tmp_path, posts_dir, "page", f"{base}/bomb"))
    assert "larger than" in problem_about(report, f"{base}/bomb")


@pytest.mark.parametrize("target", ["file:///etc/passwd", "javascript:alert(1)", "ftp://127.0.0.1/x",
                                    "data:text/html,<h1>x</h1>", "gopher://127.0.0.1:70/"])
def test_a_redirect_to_a_non_http_scheme_is_refused(server, tmp_path, posts_dir, target):
    base, routes = server
    routes["/moved"] = lambda h: h.answer(b"", "text/plain", 302, {"Location": target})
    config = web_config(tmp_path, posts_dir, "page", f"{base}/moved")
    report = build(config)
    assert "not an http(s) URL" in problem_about(report, f"{base}/moved")
    assert b"root:" not in (config.archive_dir / "posts.atom").read_bytes()


def test_a_flood_of_429_answers_is_given_up_quickly(server, tmp_path, posts_dir):
    base, routes = server
    hits = []

    def too_many(handler: Hostile) -> None:
        hits.append(handler.path)
        handler.answer(b"slow down", "text/plain", 429, {"Retry-After": "0"})

    routes["/feed.xml"] = lambda h: h.answer(atom_feed("".join(
        f'<entry><id>urn:e:{n}</id><title>E{n}</title><link href="{base}/post/{n}"/>'
        f"<updated>2026-11-01T00:00:00Z</updated><summary>teaser</summary></entry>" for n in range(50))))
    for n in range(50):
        routes[f"/post/{n}"] = too_many
    report = build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml"))
    assert any("429" in p for p in report.problems)
    # The host said "too many" and kept saying it: it is not asked for every entry.
    assert len(hits) < 50


@pytest.mark.slow
def test_a_feed_of_teasers_whose_pages_drip_is_cut_off_by_the_sources_time_budget(server, tmp_path, posts_dir):
    """Forty teasers, each page dripping its body: at 3 s a page they would hold the build for
    a minute; the source's budget of 2 s stops the requests, in one line."""
    base, routes = server
    asked = []

    def drip(handler: Hostile) -> None:
        asked.append(handler.path)
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        while True:  # until the client hangs up
            handler.wfile.write(b"<p>.")
            handler.wfile.flush()
            time.sleep(0.05)

    routes["/feed.xml"] = lambda h: h.answer(atom_feed("".join(
        f'<entry><id>urn:e:{n}</id><title>Teaser {n}</title><link href="{base}/post/{n}"/>'
        f"<updated>2026-11-01T00:00:00Z</updated><summary>Teaser {n}.</summary></entry>" for n in range(40))))
    for n in range(40):
        routes[f"/post/{n}"] = drip
    report = build(web_config(tmp_path, posts_dir, "feed", f"{base}/feed.xml", "source_budget = 2"))
    assert len(asked) <= 4
    [line] = [p for p in report.problems if "time budget" in p]
    assert line.startswith(f"{base}/feed.xml: ") and "entry pages not read" in line
    # The teasers are published from the feed's own text.
    assert {f"Teaser {n}" for n in range(40)} <= set(feed_titles(tmp_path / "archive" / "posts.atom"))
