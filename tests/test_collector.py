import http.server
import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.servers import KeepAliveServer, serve_document

from newsletter.config import FeedSource, FolderSource, HttpConfig, PageSource
from newsletter.models import CacheValidators
from newsletter.sources.collect import collect
from newsletter.sources.feed import MAX_FEED_ENTRIES


def folder_source(path: Path, glob: str = "**/*") -> FolderSource:
    return FolderSource(name="posts", path=path, glob=glob)


def test_a_folder_yields_one_post_per_file_with_relative_locations(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "sub" / "b.txt").write_text("B\n", encoding="utf-8")
    (tmp_path / ".hidden").write_text("x", encoding="utf-8")
    [result] = collect((folder_source(tmp_path),))
    assert result.error is None
    posts = list(result.posts)
    assert [p.location for p in posts] == ["a.md", "sub/b.txt"]
    assert posts[0].text == "# A\n"


def test_every_file_is_found_as_pathlib_globs_it_into_folders_but_not_through_links_to_them(tmp_path: Path):
    folder = tmp_path / "posts"
    for name in ("a.md", "a-b.md", "a/b.md", "a/c/d.md", "b/a.md", "Z.md", "é.md", ".hidden/x.md", "a b/c.md"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n", encoding="utf-8")
    os.symlink(folder / "a", folder / "linked")
    os.symlink(folder / "loop", folder / "loop")
    found = sorted((path.relative_to(folder).as_posix() for path in folder.glob("**/*")), key=lambda p: p.split("/"))
    # Its last collection had every file pathlib finds and one deleted since: only that one
    # is gone, so every other was listed.
    last_collection = {location: CacheValidators(etag="1-1") for location in [*found, "deleted.md"]}
    [result] = collect((folder_source(folder),), known={"posts": last_collection})
    assert result.gone == frozenset({"deleted.md"})
    assert [post.location for post in result.posts] == [
        location for location in found if (folder / location).is_file() and not (folder / location).is_symlink()
        and not location.startswith(".")]


def test_the_glob_selects_files(tmp_path: Path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("B\n", encoding="utf-8")
    [result] = collect((folder_source(tmp_path, "*.md"),))
    assert [p.location for p in result.posts] == ["a.md"]


def test_a_link_out_of_the_folder_and_an_empty_file_are_skipped_with_reasons(tmp_path: Path):
    outside = tmp_path / "secret.txt"
    outside.write_text("secret", encoding="utf-8")
    folder = tmp_path / "posts"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n", encoding="utf-8")
    (folder / "empty.md").write_text("", encoding="utf-8")
    os.symlink(outside, folder / "link.md")
    [result] = collect((folder_source(folder),))
    assert [p.location for p in result.posts] == ["good.md"]
    # Read after the posts: a folder finds the files it cannot read as it reads them.
    reasons = dict((Path(loc).name, why) for loc, why in result.skipped)
    assert reasons == {"empty.md": "empty file", "link.md": "a link that leaves the folder, not read"}


def test_a_missing_folder_is_an_error_of_that_source_only(tmp_path: Path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.md").write_text("# A\n", encoding="utf-8")
    missing, ok = collect((folder_source(tmp_path / "nope"), folder_source(tmp_path / "ok")))
    assert "not a folder" in missing.error
    assert len(list(ok.posts)) == 1


def test_a_folder_reads_each_file_only_when_its_post_is_asked_for(tmp_path: Path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    [result] = collect((folder_source(tmp_path),))
    # Changed after the listing: the post is what the file holds when the post is asked for.
    (tmp_path / "a.md").write_text("# Z\n", encoding="utf-8")
    posts = iter(result.posts)
    assert next(posts).text == "# Z\n"
    assert set(result.validators) == {"a.md"}

    (tmp_path / "b.md").unlink()
    assert list(posts) == []
    assert [(Path(loc).name, why) for loc, why in result.skipped] == [
        ("b.md", "cannot read: No such file or directory"),
    ]
    assert set(result.validators) == {"a.md"}


# -- web sources -----------------------------------------------------------------

LONG = "Kite 2.0 brings offline maps, a faster sync engine and a new plugin API. " * 10


def page_source(url: str, name: str = "page") -> PageSource:
    return PageSource(name=name, url=url)


def feed_source(url: str, name: str = "feed") -> FeedSource:
    return FeedSource(name=name, url=url)


def rss(*items: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">'
        f"<channel><title>Blog</title><link>http://127.0.0.1/</link>{''.join(items)}</channel></rss>"
    )


def item(link: str, summary: str = "", content: str = "", date: str = "Mon, 02 Nov 2026 08:00:00 GMT") -> str:
    encoded = f"<content:encoded><![CDATA[{content}]]></content:encoded>" if content else ""
    return (
        f"<item><title>A post</title><link>{link}</link><pubDate>{date}</pubDate>"
        f"<description>{summary}</description>{encoded}</item>"
    )


def html_page(title: str) -> str:
    return (f"<html><head><title>{title}</title></head>"
            f"<body><article><h1>{title}</h1><p>{LONG}</p></article></body></html>")


def requested_paths(server) -> list[str]:
    return [request.full_path.rstrip("?") for request, _ in server.log]


def test_a_page_is_one_post_carrying_its_html_and_normalized_final_url(httpserver):
    httpserver.expect_request("/old").respond_with_data(
        "", status=301, headers={"Location": "/posts/kite?utm_source=rss"})
    serve_document(httpserver, "/posts/kite", html_page("Kite 2.0"))
    url = httpserver.url_for("/old")
    [result] = collect((page_source(url),))
    [post] = result.posts
    assert (post.location, post.url, post.media_type) == (url, httpserver.url_for("/posts/kite"), "text/html")
    assert "<h1>Kite 2.0</h1>" in post.text
    assert dict(result.validators)[url].etag


def test_a_failing_source_is_its_own_error_and_results_keep_the_config_order(httpserver, tmp_path: Path):
    httpserver.expect_request("/gone").respond_with_data("", status=410)
    serve_document(httpserver, "/ok", html_page("Fine"))
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    gone = httpserver.url_for("/gone")
    results = collect((
        page_source(gone, "gone"), folder_source(tmp_path), page_source(httpserver.url_for("/ok"), "ok"),
    ))
    assert [r.source for r in results] == ["gone", "posts", "ok"]
    assert results[0].error == f"{gone}: 410 Gone"
    assert [len(list(r.posts)) for r in results] == [0, 1, 1]


def test_feed_entries_with_their_full_text_become_posts_without_more_requests(httpserver):
    httpserver.expect_request("/feed").respond_with_data(
        rss(item("/posts/kite", content=f"<p>{LONG}</p>")), content_type="application/rss+xml")
    [result] = collect((feed_source(httpserver.url_for("/feed")),))
    [post] = result.posts
    assert post.location == post.url == httpserver.url_for("/posts/kite")
    assert post.published == datetime(2026, 11, 2, 8, 0, tzinfo=UTC)
    assert LONG in post.text and post.media_type == "text/html"
    assert requested_paths(httpserver) == ["/feed"]


def test_feed_entries_that_only_link_to_pages_are_read_from_those_pages(httpserver):
    httpserver.expect_request("/feed").respond_with_data(rss(
        item("/posts/kite?utm_source=rss", summary="Kite 2.0 is out."),
        item("/posts/tern", summary="Read more"),
    ), content_type="application/rss+xml")
    serve_document(httpserver, "/posts/kite", html_page("Kite 2.0"))
    serve_document(httpserver, "/posts/tern", html_page("Tern 0.9"))
    [result] = collect((feed_source(httpserver.url_for("/feed")),))
    assert [p.url for p in result.posts] == [httpserver.url_for("/posts/kite"), httpserver.url_for("/posts/tern")]
    assert "<h1>Kite 2.0</h1>" in result.posts[0].text and "<h1>Tern 0.9</h1>" in result.posts[1].text
    assert sorted(requested_paths(httpserver)) == ["/feed", "/posts/kite?utm_source=rss", "/posts/tern"]


def test_an_entry_page_that_cannot_be_read_leaves_the_summary_and_one_line(httpserver):
    httpserver.expect_request("/feed").respond_with_data(
        rss(item("/posts/kite", summary="Kite 2.0 is out.")), content_type="application/rss+xml")
    httpserver.expect_request("/posts/kite").respond_with_data("", status=404)
    [result] = collect((feed_source(httpserver.url_for("/feed")),))
    [post] = result.posts
    assert post.text == "Kite 2.0 is out."
    link = httpserver.url_for("/posts/kite")
    assert result.skipped == ((link, "entry page not read (404 Not Found), the feed's summary is used"),)


def test_a_malformed_feed_gives_what_could_be_read_and_one_line(httpserver):
    broken = rss(item("/posts/kite", content=LONG)).replace("</channel>", "<oops & </channel>")
    httpserver.expect_request("/feed").respond_with_data(broken, content_type="application/rss+xml")
    url = httpserver.url_for("/feed")
    [result] = collect((feed_source(url),))
    assert result.error is None and len(result.posts) == 1
    [(location, reason)] = result.skipped
    assert location == url and reason.startswith("malformed feed, its readable entries are used: ")


def test_a_document_that_is_no_feed_is_an_error_of_its_source(httpserver):
    httpserver.expect_request("/feed").respond_with_data("<html><p>Hello", content_type="text/html")
    url = httpserver.url_for("/feed")
    [result] = collect((feed_source(url),))
    assert result.error.startswith(f"{url}: neither a feed nor a page that names one")

    httpserver.expect_request("/broken").respond_with_data("<?xml version='1.0'?><rss><channel></rss>", content_type="application/xml")
    [result] = collect((feed_source(httpserver.url_for("/broken")),))
    assert result.error.startswith(f"{httpserver.url_for('/broken')}: not a readable feed: ")


def test_xml_entities_in_a_feed_are_neither_expanded_nor_fetched(httpserver):
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 9))
    hostile = rss(item("/posts/a", content=f"&l8; &secret; {LONG}")).replace(
        "<rss", f'<!DOCTYPE rss [<!ENTITY l0 "lol">{laughs}<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n<rss', 1)
    httpserver.expect_request("/feed").respond_with_data(hostile, content_type="application/rss+xml")
    [result] = collect((feed_source(httpserver.url_for("/feed")),))
    [post] = result.posts
    assert LONG.strip() in post.text
    assert "lollol" not in post.text and "root:" not in post.text


def test_a_feed_of_many_entries_is_read_up_to_a_limit_with_one_line(httpserver):
    items = [item(f"/posts/{n}", content=LONG) for n in range(MAX_FEED_ENTRIES + 50)]
    httpserver.expect_request("/feed").respond_with_data(rss(*items), content_type="application/rss+xml")
    url = httpserver.url_for("/feed")
    [result] = collect((feed_source(url),))
    assert len(result.posts) == MAX_FEED_ENTRIES
    assert result.skipped == ((url, f"{MAX_FEED_ENTRIES + 50} entries, only the first {MAX_FEED_ENTRIES} are read"),)


def test_known_validators_make_unchanged_pages_and_feeds_cost_a_304(httpserver):
    serve_document(httpserver, "/feed", rss(item("/posts/kite", summary="Kite 2.0 is out.")), "application/rss+xml")
    serve_document(httpserver, "/posts/kite", html_page("Kite 2.0"))
    serve_document(httpserver, "/posts/tern", html_page("Tern 0.9"))
    sources = (feed_source(httpserver.url_for("/feed")), page_source(httpserver.url_for("/posts/tern")))
    first = collect(sources)
    known = {r.source: dict(r.validators) for r in first}
    assert [len(r.posts) for r in first] == [1, 1]

    httpserver.clear_log()
    second = collect(sources, known=known)
    assert [r.not_modified for r in second] == [True, True]
    assert all(r.posts == () for r in second)
    assert [answer.status_code for _, answer in httpserver.log] == [304, 304]


def test_a_changed_feed_reads_only_its_changed_entry_pages(httpserver):
    serve_document(httpserver, "/feed", rss(item("/posts/kite", summary="Kite")), "application/rss+xml")
    serve_document(httpserver, "/posts/kite", html_page("Kite 2.0"))
    serve_document(httpserver, "/posts/tern", html_page("Tern 0.9"))
    source = feed_source(httpserver.url_for("/feed"))
    [first] = collect((source,))

    httpserver.clear()
    serve_document(httpserver, "/feed", rss(item("/posts/tern", summary="Tern"), item("/posts/kite", summary="Kite")),
                   "application/rss+xml")
    serve_document(httpserver, "/posts/kite", html_page("Kite 2.0"))
    serve_document(httpserver, "/posts/tern", html_page("Tern 0.9"))
    [second] = collect((source,), known={source.name: dict(first.validators)})
    assert [p.location for p in second.posts] == [httpserver.url_for("/posts/tern")]
    assert second.unchanged == (httpserver.url_for("/posts/kite"),)


@pytest.fixture
def counting_server():
    """A threaded server that answers slowly and counts the requests it serves at once."""
    in_flight = {"now": 0, "most": 0}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with lock:
                in_flight["now"] += 1
                in_flight["most"] = max(in_flight["most"], in_flight["now"])
            time.sleep(0.05)
            body = html_page(self.path).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            with lock:
                in_flight["now"] -= 1

        def log_message(self, *_args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", in_flight
    server.shutdown()
    server.server_close()


def test_sources_on_one_host_are_fetched_a_few_at_a_time_and_returned_in_order(counting_server):
    base, in_flight = counting_server
    sources = tuple(page_source(f"{base}/posts/{n}", f"page-{n}") for n in range(6))
    results = collect(sources, http=HttpConfig(per_host=2))
    assert [r.source for r in results] == [f"page-{n}" for n in range(6)]
    assert [r.posts[0].url for r in results] == [f"{base}/posts/{n}" for n in range(6)]
    assert in_flight["most"] <= 2


def test_unchanged_sources_cost_a_304_each_over_connections_kept_open():
    pages = {f"/posts/{n}": html_page(f"Post {n}") for n in range(6)}
    with KeepAliveServer(pages) as server:
        sources = tuple(page_source(server.url(path), f"page-{n}") for n, path in enumerate(pages))
        first = collect(sources, http=HttpConfig(per_host=2))
        server.connections = 0
        second = collect(sources, http=HttpConfig(per_host=2), known={r.source: dict(r.validators) for r in first})
    assert all(r.not_modified for r in second)
    assert [s.status for s in server.served] == [200] * 6 + [304] * 6
    # One connection per request slot, each reused for the next source.
    assert server.connections <= 2


def test_hosts_are_collected_in_parallel_each_within_its_own_limit():
    """A host listed after many sources of another is not kept waiting behind them."""
    busy_pages = {f"/posts/{n}": html_page(f"Busy {n}") for n in range(8)}
    with KeepAliveServer(busy_pages, delay=0.1) as busy, \
            KeepAliveServer({"/a": html_page("A"), "/b": html_page("B")}, delay=0.1) as quiet:
        sources = (*(page_source(busy.url(path), f"busy-{n}") for n, path in enumerate(busy_pages)),
                   page_source(quiet.url("/a"), "quiet-a"), page_source(quiet.url("/b"), "quiet-b"))
        results = collect(sources, http=HttpConfig(per_host=2))
    assert [r.source for r in results] == [s.name for s in sources]
    assert all(len(r.posts) == 1 for r in results)
    assert busy.most_at_once() <= 2 and quiet.most_at_once() <= 2
    assert min(s.start for s in quiet.served) < min(s.end for s in busy.served)
