"""A blog's address given as a feed source: its feed is found through the page's
<link rel="alternate">, and fetched under the rule for any URL found in content."""

from __future__ import annotations

import pytest
from helpers import NOW, write_config
from pytest_httpserver import HTTPServer

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.config import FeedSource, HttpConfig
from newsletter.sources.collect import collect

LONG = "Kite 2.0 brings offline maps, a faster sync engine and a new plugin API. " * 10


def blog_page(feed_href: str) -> str:
    return ('<!doctype html><html><head><title>Kite blog</title>'
            '<link rel="stylesheet" href="/style.css">'
            '<link rel="alternate" type="application/json" href="/feed.json">'
            f'<link rel="Alternate" type="application/rss+xml" title="Kite blog" href="{feed_href}">'
            "</head><body><h1>Kite blog</h1><p>Welcome.</p></body></html>")


def rss(link: str) -> str:
    return ('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>Kite blog</title>'
            f"<link>{link}</link><item><title>Kite 2.0</title><link>{link}posts/kite-2.0</link>"
            f"<guid>{link}posts/kite-2.0</guid><pubDate>Mon, 02 Nov 2026 08:00:00 GMT</pubDate>"
            f"<description>{LONG}</description></item></channel></rss>")


def collect_one(source: FeedSource):
    [result] = collect((source,), http=HttpConfig(timeout=5.0, retries=0))
    return result


def test_a_blog_page_given_as_a_feed_source_is_read_through_its_feed(httpserver):
    httpserver.expect_request("/blog/").respond_with_data(blog_page("feed.xml"), content_type="text/html")
    httpserver.expect_request("/blog/feed.xml").respond_with_data(
        rss(httpserver.url_for("/blog/")), content_type="application/rss+xml")
    result = collect_one(FeedSource(name="kite", url=httpserver.url_for("/blog/")))
    assert result.error is None and result.skipped == ()
    assert [post.title for post in result.posts] == ["Kite 2.0"]
    # The page is not kept as known: a later run reads it again to find the feed.
    assert set(result.validators) <= {httpserver.url_for("/blog/feed.xml")}


def test_a_second_build_asks_the_feed_whether_it_changed(tmp_path, httpserver):
    httpserver.expect_request("/blog/").respond_with_data(blog_page("/blog/feed.xml"), content_type="text/html")
    httpserver.expect_request("/blog/feed.xml").respond_with_data(
        rss(httpserver.url_for("/blog/")), content_type="application/rss+xml", headers={"ETag": '"v1"'})
    path = write_config(tmp_path, f"""
[[sources]]
name = "kite"
kind = "feed"
url = "{httpserver.url_for('/blog/')}"
""")
    config = config_module.load(path)
    assert pipeline.build(config, now=NOW).posts_seen == 1
    pipeline.build(config, now=NOW)
    feed_requests = [request for request, _ in httpserver.log if request.path == "/blog/feed.xml"]
    assert [r.headers.get("If-None-Match") for r in feed_requests] == [None, '"v1"']


def test_a_feed_found_on_another_private_origin_is_refused(httpserver):
    internal = HTTPServer(host="127.0.0.2", port=0)
    internal.expect_request("/feed.xml").respond_with_data(rss("http://127.0.0.2/"), content_type="application/rss+xml")
    internal.start()
    try:
        httpserver.expect_request("/blog/").respond_with_data(
            blog_page(f"http://127.0.0.2:{internal.port}/feed.xml"), content_type="text/html")
        result = collect_one(FeedSource(name="kite", url=httpserver.url_for("/blog/")))
        assert internal.log == []
    finally:
        internal.clear()
        internal.stop()
    assert result.posts == ()
    assert "\n" not in result.error
    assert "not fetched: 127.0.0.2 is a loopback address" in result.error and "allow_private" in result.error


@pytest.mark.parametrize("head", ["", '<link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">'])
def test_a_page_that_names_no_feed_is_one_line(httpserver, head):
    httpserver.expect_request("/blog/").respond_with_data(
        f"<html><head>{head}</head><body><p>Hello</p></body></html>", content_type="text/html")
    result = collect_one(FeedSource(name="kite", url=httpserver.url_for("/blog/")))
    assert result.posts == () and "\n" not in result.error
    assert result.error == (f"{httpserver.url_for('/blog/')}: neither a feed nor a page that names one in a"
                            ' <link rel="alternate">; to read a page as one post, use kind = "page"')
