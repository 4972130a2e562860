import gzip
import re
import socket
import threading
import zlib

import pytest
import werkzeug
from helpers.servers import serve_document

from newsletter.config import HttpConfig
from newsletter.errors import FetchError
from newsletter.models import CacheValidators
from newsletter.sources.http import BACKOFF, Fetcher, normalize_url
from newsletter.version import __version__


class Sleeps(list):
    """Stands in for time.sleep: records each wait asked for, waits for none."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def make_fetcher(sleeps: Sleeps):
    fetchers = []

    def make(**settings) -> Fetcher:
        fetchers.append(Fetcher(HttpConfig(**{"timeout": 5.0, **settings}), sleep=sleeps))
        return fetchers[-1]

    yield make
    for fetcher in fetchers:
        fetcher.close()


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# -- answers ---------------------------------------------------------------------


def test_a_document_comes_with_its_type_charset_validators_and_our_name(httpserver, make_fetcher):
    httpserver.expect_request("/post").respond_with_data(
        "Café", content_type="text/html; charset=utf-8",
        headers={"ETag": '"v1"', "Last-Modified": "Mon, 02 Nov 2026 08:00:00 GMT"},
    )
    response = make_fetcher().get(httpserver.url_for("/post"))
    assert (response.text, response.media_type, response.charset) == ("Café", "text/html", "utf-8")
    assert response.validators == CacheValidators('"v1"', "Mon, 02 Nov 2026 08:00:00 GMT")
    request = httpserver.log[0][0]
    assert request.headers["User-Agent"].startswith(f"newsletter/{__version__} ")
    assert request.headers["Accept-Encoding"] == "gzip, deflate"


def test_validators_make_the_request_conditional_and_a_304_brings_no_body(httpserver, make_fetcher):
    serve_document(httpserver, "/post", "<p>Hello</p>")
    fetcher, url = make_fetcher(), httpserver.url_for("/post")
    first = fetcher.get(url)
    second = fetcher.get(url, first.validators)
    assert first.body == b"<p>Hello</p>" and not first.not_modified
    assert second.not_modified and second.body == b""
    request, answer = httpserver.log[1]
    assert request.headers["If-None-Match"] == first.validators.etag
    assert request.headers["If-Modified-Since"] == first.validators.last_modified
    assert answer.status_code == 304


@pytest.mark.parametrize("status, phrase", [(404, "Not Found"), (410, "Gone")])
def test_a_missing_document_fails_at_once(httpserver, make_fetcher, sleeps, status, phrase):
    httpserver.expect_request("/post").respond_with_data("no", status=status)
    url = httpserver.url_for("/post")
    with pytest.raises(FetchError) as failure:
        make_fetcher().get(url)
    assert str(failure.value) == f"{url}: {status} {phrase}"
    assert len(httpserver.log) == 1 and sleeps == []


# -- retries ---------------------------------------------------------------------


def test_a_server_error_is_retried_after_a_backoff(httpserver, make_fetcher, sleeps):
    httpserver.expect_ordered_request("/post").respond_with_data("busy", status=500)
    httpserver.expect_ordered_request("/post").respond_with_data("ok")
    assert make_fetcher().get(httpserver.url_for("/post")).body == b"ok"
    assert sleeps == [pytest.approx(BACKOFF, abs=0.5)]


def test_429_waits_as_long_as_retry_after_says(httpserver, make_fetcher, sleeps):
    httpserver.expect_ordered_request("/post").respond_with_data("", status=429, headers={"Retry-After": "3"})
    httpserver.expect_ordered_request("/post").respond_with_data("ok")
    assert make_fetcher().get(httpserver.url_for("/post")).body == b"ok"
    assert sleeps == [pytest.approx(3, abs=0.5)]


def test_a_host_that_keeps_answering_429_is_not_asked_again_in_the_run(httpserver, make_fetcher, sleeps):
    httpserver.expect_request("/a").respond_with_data("", status=429, headers={"Retry-After": "1"})
    fetcher = make_fetcher(retries=2)
    with pytest.raises(FetchError, match=r"429 Too Many Requests \(after 3 attempts\)$"):
        fetcher.get(httpserver.url_for("/a"))
    with pytest.raises(FetchError, match="keeps answering 429"):
        fetcher.get(httpserver.url_for("/b"))
    assert [request.path for request, _ in httpserver.log] == ["/a", "/a", "/a"]
    assert len(sleeps) == 2


def test_a_retry_after_beyond_reason_is_not_waited_for(httpserver, make_fetcher, sleeps):
    httpserver.expect_request("/post").respond_with_data("", status=503, headers={"Retry-After": "3600"})
    with pytest.raises(FetchError, match="503 Service Unavailable, asks to retry after 3600 s$"):
        make_fetcher().get(httpserver.url_for("/post"))
    assert len(httpserver.log) == 1 and sleeps == []


def test_a_refused_connection_is_retried_then_reported_in_a_few_words(make_fetcher, sleeps):
    url = f"http://127.0.0.1:{unused_port()}/feed"
    with pytest.raises(FetchError) as failure:
        make_fetcher(retries=2).get(url)
    assert str(failure.value) == f"{url}: cannot connect: Connection refused (after 3 attempts)"
    assert sleeps == [pytest.approx(BACKOFF, abs=0.5), pytest.approx(2 * BACKOFF, abs=0.5)]


# -- redirects -------------------------------------------------------------------


def test_a_redirect_is_followed_to_the_final_url(httpserver, make_fetcher):
    httpserver.expect_request("/old").respond_with_data("", status=301, headers={"Location": "/new"})
    httpserver.expect_request("/new").respond_with_data("moved here")
    response = make_fetcher().get(httpserver.url_for("/old"))
    assert (response.url, response.body) == (httpserver.url_for("/new"), b"moved here")


def test_a_redirect_loop_ends_after_a_few_hops(httpserver, make_fetcher, sleeps):
    httpserver.expect_request("/a").respond_with_data("", status=302, headers={"Location": "/b"})
    httpserver.expect_request("/b").respond_with_data("", status=302, headers={"Location": "/a"})
    with pytest.raises(FetchError, match="more than 5 redirects$"):
        make_fetcher().get(httpserver.url_for("/a"))
    assert len(httpserver.log) == 6 and sleeps == []


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://127.0.0.1/x", "javascript:alert(1)"])
def test_a_redirect_out_of_http_is_refused(httpserver, make_fetcher, target):
    httpserver.expect_request("/post").respond_with_data("", status=302, headers={"Location": target})
    with pytest.raises(FetchError, match=re.escape(f"redirected to '{target}', not an http(s) URL")):
        make_fetcher().get(httpserver.url_for("/post"))
    assert len(httpserver.log) == 1


# -- what the environment says for configured URLs --------------------------------


@pytest.fixture
def no_proxy_settings(monkeypatch):
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "NETRC"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    return monkeypatch


def test_a_configured_url_goes_through_the_proxy_the_environment_names(httpserver, make_fetcher, no_proxy_settings):
    no_proxy_settings.setenv("http_proxy", httpserver.url_for("/"))
    httpserver.expect_request("/feed").respond_with_data("through the proxy")
    response = make_fetcher().get("http://feeds.example.test/feed")
    assert response.body == b"through the proxy"
    [(request, _)] = httpserver.log
    assert request.headers["Host"] == "feeds.example.test"


def test_no_proxy_exempts_a_host(httpserver, make_fetcher, no_proxy_settings):
    no_proxy_settings.setenv("http_proxy", f"http://127.0.0.1:{unused_port()}")
    no_proxy_settings.setenv("no_proxy", "localhost,127.0.0.1")
    httpserver.expect_request("/feed").respond_with_data("straight")
    assert make_fetcher(retries=0).get(httpserver.url_for("/feed")).body == b"straight"


def test_the_netrc_login_for_the_host_is_sent(httpserver, make_fetcher, no_proxy_settings, tmp_path):
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login ada password s3cret\n", encoding="utf-8")
    netrc.chmod(0o600)
    no_proxy_settings.setenv("NETRC", str(netrc))
    httpserver.expect_request("/feed").respond_with_data("members only")
    make_fetcher().get(httpserver.url_for("/feed"))
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Basic YWRhOnMzY3JldA=="  # ada:s3cret


# -- slow and large bodies -------------------------------------------------------


def test_a_server_that_never_answers_times_out(make_fetcher, sleeps):
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)  # connections are queued, never answered
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/feed"
        with pytest.raises(FetchError, match="no answer within 0.3 s$"):
            make_fetcher(timeout=0.3).get(url)
    assert sleeps == []


@pytest.fixture
def dripping_server():
    """A server that promises a large body, then sends it one byte at a time, forever."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    stop = threading.Event()

    def drip() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            while not stop.wait(0.02):
                try:
                    connection.sendall(b"x")
                except OSError:
                    return

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/feed"
    stop.set()
    thread.join(timeout=5)
    listener.close()


def test_a_server_dripping_bytes_is_cut_at_the_deadline(dripping_server, make_fetcher):
    with pytest.raises(FetchError, match="not received in full within 0.3 s$"):
        make_fetcher(timeout=0.3).get(dripping_server)


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "streamed"])
def test_a_body_over_the_cap_is_not_read(httpserver, make_fetcher, declared):
    body = b"x" * 5000
    httpserver.expect_request("/big").respond_with_response(
        werkzeug.Response(body if declared else iter([body[:2500], body[2500:]]))
    )
    with pytest.raises(FetchError, match="larger than 1000 bytes, not read$"):
        make_fetcher(max_bytes=1000).get(httpserver.url_for("/big"))


@pytest.mark.parametrize("encoding, compress", [("gzip", gzip.compress), ("deflate", zlib.compress)])
def test_compressed_bodies_are_decompressed(httpserver, make_fetcher, encoding, compress):
    text = "<p>Release notes</p>" * 100
    httpserver.expect_request("/post").respond_with_data(
        compress(text.encode()), content_type="text/html", headers={"Content-Encoding": encoding},
    )
    assert make_fetcher().get(httpserver.url_for("/post")).text == text


def test_a_gzip_bomb_stops_at_the_cap(httpserver, make_fetcher):
    bomb = gzip.compress(bytes(20_000_000))
    assert len(bomb) < 100_000
    httpserver.expect_request("/bomb").respond_with_data(bomb, headers={"Content-Encoding": "gzip"})
    with pytest.raises(FetchError, match="larger than 100000 bytes, not read$"):
        make_fetcher(max_bytes=100_000).get(httpserver.url_for("/bomb"))


def test_an_unannounced_encoding_is_refused(httpserver, make_fetcher):
    httpserver.expect_request("/post").respond_with_data(b"\x0b\x02\x80", headers={"Content-Encoding": "br"})
    with pytest.raises(FetchError, match=r"unsupported Content-Encoding \(br\)$"):
        make_fetcher().get(httpserver.url_for("/post"))


# -- charsets --------------------------------------------------------------------


def test_a_missing_charset_is_not_taken_for_latin_1(httpserver, make_fetcher):
    # HTTP/1.1's old default for text/* is ISO-8859-1; most pages are UTF-8.
    httpserver.expect_request("/post").respond_with_data("Café ünïcode".encode(), content_type="text/html")
    response = make_fetcher().get(httpserver.url_for("/post"))
    assert response.charset is None and response.text == "Café ünïcode"


def test_a_declared_charset_is_used(httpserver, make_fetcher):
    httpserver.expect_request("/post").respond_with_data(
        "Café".encode("iso-8859-1"), content_type="text/plain; charset=ISO-8859-1",
    )
    assert make_fetcher().get(httpserver.url_for("/post")).text == "Café"


@pytest.mark.parametrize("declared", ["utf-8", "no-such-charset"])
def test_a_charset_that_does_not_decode_the_body_is_dropped(httpserver, make_fetcher, declared):
    httpserver.expect_request("/post").respond_with_data(
        "Café".encode("iso-8859-1"), content_type=f"text/html; charset={declared}",
    )
    # Dropped, the document's own declaration or detection decides.
    assert make_fetcher().get(httpserver.url_for("/post")).charset is None


# -- URLs ------------------------------------------------------------------------


@pytest.mark.parametrize("url, normal", [
    ("HTTPS://Example.ORG:443/a?b=1#part", "https://example.org/a?b=1"),
    ("http://example.org:80", "http://example.org/"),
    ("http://example.org:8080/x", "http://example.org:8080/x"),
    ("https://example.org/p?utm_source=rss&id=7&utm_medium=feed", "https://example.org/p?id=7"),
])
def test_normalize_url(url, normal):
    assert normalize_url(url) == normal
