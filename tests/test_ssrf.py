"""Server-side request forgery: a URL found in fetched content (a feed entry's link, a
redirect) reaches only the configured source's own origin or public addresses, checked
after the name is resolved, on every hop, and connected to as checked. `allow_private`
lifts the rule for one source.

Everything runs on loopback: the configured source is on 127.0.0.1, the "internal" server
on 127.0.0.2 (or another port of 127.0.0.1); public and private names are a resolver the
test passes in, and an audit hook sees every connection and every name lookup made.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import NOW, write_config
from pytest_httpserver import HTTPServer

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.config import FeedSource, HttpConfig, PageSource
from newsletter.errors import ConfigError, FetchError
from newsletter.models import SourceResult
from newsletter.sources import guard
from newsletter.sources.collect import collect
from newsletter.sources.http import Fetcher

SECRET = "INTERNAL-ONLY 7f3a: the admin token is hunter2"
LONG = "Kite 2.0 brings offline maps, a faster sync engine and a new plugin API. " * 10


# -- what the process does on the network, as the interpreter's audit events tell ------------

class _Network:
    """socket.connect and socket.getaddrinfo events while a test records them."""

    recording: _Network | None = None

    def __init__(self) -> None:
        self.connects: list[tuple] = []
        self.lookups: list[str] = []

    def hosts_connected(self) -> set[str]:
        return {address[0] for address in self.connects if isinstance(address, tuple)}


def _audit(event: str, args: tuple) -> None:
    network = _Network.recording
    if network is None:
        return
    if event == "socket.connect":
        network.connects.append(args[1])
    elif event == "socket.getaddrinfo":
        network.lookups.append(str(args[0]))


sys.addaudithook(_audit)


@pytest.fixture
def network() -> Iterator[_Network]:
    _Network.recording = _Network()
    try:
        yield _Network.recording
    finally:
        _Network.recording = None


@pytest.fixture
def internal() -> Iterator[HTTPServer]:
    """A server on another loopback address, standing for an internal service."""
    server = HTTPServer(host="127.0.0.2", port=0)
    server.expect_request("/secret").respond_with_data(
        f"<html><body><article><h1>Admin console hunter2</h1><p>{SECRET}</p><ul><li>{SECRET}</li></ul>"
        "</article></body></html>",
        content_type="text/html; charset=utf-8")
    server.start()
    try:
        yield server
    finally:
        server.clear()
        if server.is_running():
            server.stop()


def rss(*items: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Blog</title>'
            f"<link>http://127.0.0.1/</link>{''.join(items)}</channel></rss>")


def item(title: str, link: str, summary: str = "") -> str:
    return (f"<item><title>{title}</title><link>{link}</link><guid>{link}</guid>"
            f"<pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate><description>{summary}</description></item>")


def html_page(title: str) -> str:
    return (f"<html><head><title>{title}</title></head>"
            f"<body><article><h1>{title}</h1><p>{LONG}</p></article></body></html>")


def feed_with_link(httpserver, link: str) -> str:
    """A feed on 127.0.0.1 whose teaser entries link to `link` and to a page of its own."""
    httpserver.expect_request("/feed").respond_with_data(
        rss(item("Secret", link, "Teaser of the secret"), item("Kite 2.0", httpserver.url_for("/posts/kite"))),
        content_type="application/rss+xml")
    httpserver.expect_request("/posts/kite").respond_with_data(html_page("Kite 2.0"), content_type="text/html")
    return httpserver.url_for("/feed")


def collect_one(source, **fetcher) -> SourceResult:
    [result] = collect((source,), http=HttpConfig(timeout=5.0, retries=0), **fetcher)
    return result


# -- which addresses are public --------------------------------------------------------------

@pytest.mark.parametrize("address, problem", [
    ("127.0.0.2", "a loopback address"), ("::1", "a loopback address"),
    ("10.1.2.3", "a private address"), ("192.168.1.1", "a private address"), ("fc00::1", "a private address"),
    ("169.254.169.254", "a link-local address"), ("fe80::1%lo", "a link-local address"),
    ("100.64.0.1", "not a public address"), ("0.0.0.0", "an unspecified address"),
    ("224.0.0.1", "a multicast address"), ("::7f00:1", "a reserved address"),
    # IPv4 inside IPv6: mapped, NAT64, 6to4.
    ("::ffff:127.0.0.1", "a loopback address (127.0.0.1)"),
    ("64:ff9b::a9fe:a9fe", "a link-local address (169.254.169.254)"),
    ("2002:a00:1::", "a private address (10.0.0.1)"),
])
def test_loopback_private_link_local_and_special_addresses_are_not_public(address, problem):
    assert guard.address_problem(address) == problem


@pytest.mark.parametrize("address", ["93.184.215.14", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])
def test_public_addresses_pass(address):
    assert guard.address_problem(address) is None


def test_an_origin_is_scheme_host_and_port_with_the_default_filled_in():
    assert guard.origin("HTTP://Example.ORG/feed") == guard.origin("http://example.org:80/other") == (
        "http", "example.org", 80)
    assert guard.origin("https://example.org/") != guard.origin("http://example.org/")
    assert guard.origin("http://example.org:8080/") != guard.origin("http://example.org/")


# -- a feed entry's link ---------------------------------------------------------------------

@pytest.mark.parametrize("target", ["http://127.0.0.2:{port}/secret", "http://localhost:{port}/secret",
                                    "http://127.0.0.1:{port}/secret", "http://[::ffff:127.0.0.2]:{port}/secret"])
def test_an_entry_link_to_another_loopback_origin_is_refused_and_the_feed_is_still_read(
    httpserver, internal, network, target,
):
    link = target.format(port=internal.port)
    result = collect_one(FeedSource(name="blog", url=feed_with_link(httpserver, link)))
    assert result.error is None
    assert internal.log == []
    assert all(SECRET not in post.text for post in result.posts)
    # The other entry's page, on the feed's own origin, is read; the refused one keeps its summary.
    texts = {post.title: post.text for post in result.posts}
    assert "Kite 2.0 brings offline maps" in texts["Kite 2.0"] and texts["Secret"] == "Teaser of the secret"
    [(location, reason)] = result.skipped
    assert location == link and "\n" not in reason
    assert "not fetched:" in reason and "loopback address" in reason and "allow_private" in reason
    assert internal.port not in {address[1] for address in network.connects if isinstance(address, tuple)}


def test_a_connection_kept_open_for_one_sources_origin_serves_no_other_sources_link(httpserver, internal):
    """The internal server is one source's configured origin, and a link in another
    source's feed: the connection the first leaves open does not carry the second's request."""
    secret = internal.url_for("/secret")
    with Fetcher(HttpConfig(timeout=5.0, retries=0, per_host=1)) as fetcher:
        assert SECRET in fetcher.get(secret).text
        with pytest.raises(FetchError, match="not fetched: 127.0.0.2 is a loopback address"):
            fetcher.get(secret, source_url=httpserver.url_for("/feed"))
    assert len(internal.log) == 1


def test_allow_private_lets_a_source_reach_private_addresses(httpserver, internal):
    link = f"http://127.0.0.2:{internal.port}/secret"
    result = collect_one(FeedSource(name="blog", url=feed_with_link(httpserver, link), allow_private=True))
    assert result.skipped == ()
    assert SECRET in {post.title: post.text for post in result.posts}["Secret"]
    assert len(internal.log) == 1


def test_an_entry_link_on_the_feeds_own_origin_is_trusted(httpserver):
    # 127.0.0.1 is loopback: only its being the configured origin lets it through.
    result = collect_one(FeedSource(name="blog", url=feed_with_link(httpserver, httpserver.url_for("/posts/kite"))))
    assert result.skipped == () and len(result.posts) == 2


@pytest.mark.parametrize("answer", [["10.0.0.5"], ["93.184.215.14", "10.0.0.5"], ["169.254.169.254"]])
def test_a_name_that_resolves_to_a_private_address_is_refused_before_any_connection(
    httpserver, network, answer,
):
    asked: list[tuple[str, int]] = []

    def resolver(host: str, port: int) -> list[str]:
        asked.append((host, port))
        return answer

    link = "http://intranet.example/admin"
    result = collect_one(FeedSource(name="blog", url=feed_with_link(httpserver, link)), resolver=resolver)
    [(location, reason)] = result.skipped
    assert location == link
    assert "intranet.example resolves to" in reason and "not fetched" in reason
    assert asked == [("intranet.example", 80)]
    assert "intranet.example" not in network.lookups
    assert network.hosts_connected() <= {"127.0.0.1"}


def test_the_address_checked_is_the_address_connected_to(httpserver, network, monkeypatch):
    """A name answering a harmless address, then a private one (DNS rebinding), is looked
    up once, by the resolver the check uses, and connected to at the address checked; no
    proxy from the environment is asked (it would look the name up itself)."""
    answers = iter([["127.0.0.1"]])

    def rebinding(host: str, port: int) -> list[str]:
        return next(answers, ["10.9.9.9"])

    real_problem = guard.address_problem
    # Stand-in for a public address: loopback is the only place a test may connect to.
    monkeypatch.setattr(guard, "address_problem", lambda a: None if a == "127.0.0.1" else real_problem(a))
    for variable in ("http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.setenv(variable, "http://127.0.0.3:9")
    httpserver.expect_request("/page").respond_with_data(html_page("Rebound"), content_type="text/html")
    url = f"http://rebind.example:{httpserver.port}/page"
    with Fetcher(HttpConfig(timeout=5.0, retries=0), resolver=rebinding) as fetcher:
        response = fetcher.get(url, source_url="http://feeds.example.org/feed")
    assert "Rebound" in response.text
    [(request, _)] = httpserver.log
    assert request.headers["Host"] == f"rebind.example:{httpserver.port}"
    assert network.connects == [("127.0.0.1", httpserver.port)]
    assert "rebind.example" not in network.lookups


def test_a_checked_address_that_refuses_the_connection_is_reported_as_any_other(monkeypatch):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    real_problem = guard.address_problem
    monkeypatch.setattr(guard, "address_problem", lambda a: None if a == "127.0.0.1" else real_problem(a))
    with Fetcher(HttpConfig(timeout=5.0, retries=0), resolver=lambda host, port: ["127.0.0.1"]) as fetcher, \
            pytest.raises(FetchError) as failed:
        fetcher.get(f"http://closed.example:{port}/", source_url="http://feeds.example.org/feed")
    assert failed.value.problem == "cannot connect: Connection refused"


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        body = html_page("Over TLS").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args) -> None:
        pass


def self_signed(folder: Path, name: str) -> Path:
    """A certificate for `name` and its key in one PEM file, made by the openssl command."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    pem = folder / f"{name}.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-days", "1", "-subj", f"/CN={name}", "-addext", f"subjectAltName=DNS:{name}",
         "-keyout", str(pem), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True,
    )
    pem.write_text(pem.read_text() + (folder / "cert.pem").read_text())
    return pem


@pytest.mark.slow  # runs the openssl command
@pytest.mark.parametrize("certified", ["rebind.example", "other.example"])
def test_over_https_the_checked_address_is_verified_as_the_urls_host(tmp_path, monkeypatch, certified):
    """TLS wraps the socket to the checked address but names (SNI) and verifies the URL's
    host: a certificate for another name is refused."""
    pem = self_signed(tmp_path, certified)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(pem)
    names: list[str | None] = []
    context.sni_callback = lambda _sock, name, _context: names.append(name)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    real_problem = guard.address_problem
    monkeypatch.setattr(guard, "address_problem", lambda a: None if a == "127.0.0.1" else real_problem(a))
    url = f"https://rebind.example:{httpd.server_address[1]}/page"
    try:
        with Fetcher(HttpConfig(timeout=5.0, retries=0), resolver=lambda host, port: ["127.0.0.1"]) as fetcher:
            fetcher.guarded.connection_pool_kw["ca_certs"] = str(pem)
            if certified == "rebind.example":
                assert "Over TLS" in fetcher.get(url, source_url="https://feeds.example.org/feed").text
            else:
                with pytest.raises(FetchError, match="rebind.example.*(match|certificate)"):
                    fetcher.get(url, source_url="https://feeds.example.org/feed")
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert names and set(names) == {"rebind.example"}


# -- redirects -------------------------------------------------------------------------------

def test_a_redirect_within_the_configured_origin_is_followed(httpserver):
    httpserver.expect_request("/old").respond_with_data("", status=301, headers={"Location": "/posts/kite"})
    httpserver.expect_request("/posts/kite").respond_with_data(html_page("Kite 2.0"), content_type="text/html")
    result = collect_one(PageSource(name="page", url=httpserver.url_for("/old")))
    [post] = result.posts
    assert post.url == httpserver.url_for("/posts/kite")


def test_a_redirect_to_another_port_is_refused_unless_the_source_allows_private(httpserver, internal):
    target = f"http://127.0.0.2:{internal.port}/secret"
    httpserver.expect_request("/page").respond_with_data("", status=302, headers={"Location": target})
    url = httpserver.url_for("/page")
    refused = collect_one(PageSource(name="page", url=url))
    assert refused.posts == () and internal.log == []
    assert refused.error.startswith(f"{url}: redirected to '{target}', not fetched: 127.0.0.2 is a loopback address")
    allowed = collect_one(PageSource(name="page", url=url, allow_private=True))
    [post] = allowed.posts
    assert SECRET in post.text


def test_a_redirect_to_the_metadata_address_is_refused_without_connecting_to_it(httpserver, network):
    metadata = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    httpserver.expect_request("/feed").respond_with_data("", status=302, headers={"Location": metadata})
    url = httpserver.url_for("/feed")
    with Fetcher(HttpConfig(timeout=5.0, retries=0)) as fetcher, pytest.raises(FetchError) as refused:
        fetcher.get(url)
    assert refused.value.problem.startswith(f"redirected to '{metadata}', not fetched: "
                                            "169.254.169.254 is a link-local address")
    assert "169.254.169.254" not in network.hosts_connected()
    assert network.hosts_connected() == {"127.0.0.1"}


def test_each_hop_of_an_entry_links_redirects_is_checked(httpserver, internal):
    """An entry link on the feed's own origin that redirects elsewhere: the hop is checked."""
    hop = f"http://127.0.0.2:{internal.port}/secret"
    httpserver.expect_request("/go").respond_with_data("", status=302, headers={"Location": hop})
    link = httpserver.url_for("/go")
    result = collect_one(FeedSource(name="blog", url=feed_with_link(httpserver, link)))
    [(location, reason)] = result.skipped
    assert location == link and f"redirected to '{hop}', not fetched: 127.0.0.2 is a loopback address" in reason
    assert internal.log == []


# -- a whole build, and the config ------------------------------------------------------------

def build_config(tmp_path: Path, posts_dir: Path, feed_url: str, extra: str = "") -> config_module.Config:
    return config_module.load(write_config(tmp_path, f"""
[site]
title = "Test digest"
url = "https://digest.example.org/"

[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"

[[sources]]
name = "blog"
kind = "feed"
url = "{feed_url}"
{extra}

[http]
timeout = 5
retries = 0
"""))


def published(archive: Path) -> str:
    return "".join(path.read_text(encoding="utf-8", errors="replace") for path in archive.rglob("*") if path.is_file())


def test_a_build_publishes_no_internal_page_and_says_why_in_one_line(httpserver, internal, tmp_path, posts_dir):
    link = f"http://127.0.0.2:{internal.port}/secret"
    config = build_config(tmp_path, posts_dir, feed_with_link(httpserver, link))
    report = pipeline.build(config, now=NOW)
    [line] = [problem for problem in report.problems if link in problem]
    assert "not fetched: 127.0.0.2 is a loopback address" in line and "\n" not in line
    # Both entries are published, the refused one from the feed's own words.
    feed = (config.archive_dir / "posts.atom").read_text(encoding="utf-8")
    assert "<title>Secret</title>" in feed and "<title>Kite 2.0</title>" in feed
    assert "hunter2" not in published(config.archive_dir) and internal.log == []


def test_a_build_with_allow_private_publishes_the_internal_page(httpserver, internal, tmp_path, posts_dir):
    link = f"http://127.0.0.2:{internal.port}/secret"
    config = build_config(tmp_path, posts_dir, feed_with_link(httpserver, link), "allow_private = true")
    report = pipeline.build(config, now=NOW)
    assert not [problem for problem in report.problems if link in problem]
    assert "hunter2" in published(config.archive_dir)


def test_allow_private_is_true_or_false_and_only_for_web_sources(tmp_path, posts_dir):
    with pytest.raises(ConfigError, match=r"sources\[1\]\.allow_private: must be true or false"):
        build_config(tmp_path, posts_dir, "https://example.org/feed", 'allow_private = "yes"')
    with pytest.raises(ConfigError, match=r"sources\[0\]\.allow_private: is for page and feed sources"):
        config_module.load(write_config(tmp_path, f"""
[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"
allow_private = true
"""))
    with pytest.raises(ConfigError, match=r"sources\.blog\.allow_private: must be true or false"):
        FeedSource(name="blog", url="https://example.org/feed", allow_private="yes")  # type: ignore[arg-type]
    assert build_config(tmp_path, posts_dir, "https://example.org/feed", "allow_private = true").sources[1] == (
        FeedSource(name="blog", url="https://example.org/feed", allow_private=True))
