import email
import os
from dataclasses import replace
from datetime import timedelta, timezone
from html import escape
from pathlib import Path

import feedparser
import pytest
from helpers import NOW, feed_config, held_elsewhere, write_config
from helpers.postgres import BOTH_BACKENDS, state_table
from helpers.servers import serve_document
from lxml import etree

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.errors import LockedError

ATOM = "{http://www.w3.org/2005/Atom}"


def entry_ids(feed: Path) -> list[str]:
    return [e.findtext(f"{ATOM}id") for e in etree.parse(str(feed)).getroot().iter(f"{ATOM}entry")]


@BOTH_BACKENDS
def test_a_build_writes_feeds_digest_and_index(config):
    report = pipeline.build(config, now=NOW)
    archive = config.archive_dir
    assert report.new_digest == "2026-11-02-1"
    assert report.posts_summarized == report.posts_seen == 3
    posts = feedparser.parse((archive / "posts.atom").read_bytes())
    # The German translation is a form of the English Lumen post: one entry for both.
    assert not posts.bozo and len(posts.entries) == 2
    lumen = next(e for e in posts.entries if "Lumen" in e.title)
    assert {link.get("hreflang") for link in lumen.links} == {"en", "de"}
    digests = feedparser.parse((archive / "digests.atom").read_bytes())
    assert not digests.bozo and len(digests.entries) == 1
    for suffix in ("html", "txt", "eml"):
        assert (archive / "digests" / f"2026-11-02-1.{suffix}").stat().st_size > 0
    message = email.message_from_bytes((archive / "digests" / "2026-11-02-1.eml").read_bytes())
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.get_payload()] == ["text/plain", "text/html"]
    assert "2026-11-02-1.html" in (archive / "index.html").read_text(encoding="utf-8")


@BOTH_BACKENDS
def test_a_second_build_with_nothing_new_makes_no_digest_and_keeps_ids(config):
    pipeline.build(config, now=NOW)
    feed = config.archive_dir / "posts.atom"
    first_ids, first_bytes = entry_ids(feed), feed.read_bytes()
    report = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert report.new_digest is None
    assert report.posts_summarized == 0
    assert entry_ids(feed) == first_ids
    assert feed.read_bytes() == first_bytes
    assert sorted(p.name for p in (config.archive_dir / "digests").iterdir()) == [
        "2026-11-02-1.eml", "2026-11-02-1.html", "2026-11-02-1.txt"]


@BOTH_BACKENDS
def test_only_a_changed_post_is_summarized_again_and_only_a_new_one_digested(config, posts_dir: Path):
    pipeline.build(config, now=NOW)
    post = posts_dir / "tern-0.9-scrape.txt"
    post.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    # An edit (a typo fixed) is not news: the post is summarized again, not mailed again.
    assert (report.posts_summarized, report.new_digest) == (1, None)

    (posts_dir / "kite-1.0.md").write_text("# Kite 1.0\n\nKite flies.\n", encoding="utf-8")
    report = pipeline.build(config, now=NOW + timedelta(days=2))
    assert (report.posts_summarized, report.new_digest) == (1, "2026-11-04-1")
    digest_text = (config.archive_dir / "digests" / "2026-11-04-1.txt").read_text(encoding="utf-8")
    assert "Kite" in digest_text and "Lumen" not in digest_text


@BOTH_BACKENDS
def test_since_makes_a_digest_of_posts_already_digested(config):
    pipeline.build(config, now=NOW)
    report = pipeline.build(config, now=NOW + timedelta(days=1), since=NOW - timedelta(days=1))
    assert report.new_digest == "2026-11-03-1"


@BOTH_BACKENDS
def test_since_compares_moments_not_their_spelling_in_another_offset(config):
    pipeline.build(config, now=NOW)
    # 05:30 at UTC-05:00 is 10:30 UTC, after the posts were seen at 09:30 UTC: nothing since.
    later = (NOW + timedelta(hours=1)).astimezone(timezone(timedelta(hours=-5)))
    assert later.isoformat() < NOW.isoformat()  # as text it would sort before
    assert pipeline.build(config, now=NOW + timedelta(days=1), since=later).new_digest is None


@BOTH_BACKENDS
def test_cleaning_up_leaves_other_programs_temporary_files_alone(config):
    """The archive may be a shared web root: only this program's own leftovers go."""
    others = [config.archive_dir / ".upload.tmp", config.archive_dir / "digests" / ".cache.tmp",
              config.archive_dir / "posts" / ".newsletter-.tmp", config.archive_dir / "newsletter-a1.html.tmp"]
    ours = [config.archive_dir / ".index.html.newsletter-a1b2c3.tmp",
            config.archive_dir / "posts" / ".kite-1.0.html.newsletter-staged.tmp"]
    for path in [*others, *ours]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x", encoding="utf-8")
    pipeline.build(config, now=NOW)
    assert all(path.exists() for path in others)
    assert not any(path.exists() for path in ours)


@BOTH_BACKENDS
def test_a_bad_post_is_reported_and_the_others_are_published(config, posts_dir: Path):
    (posts_dir / "empty.md").write_bytes(b"")
    report = pipeline.build(config, now=NOW)
    assert any("empty.md: empty file" in p for p in report.problems)
    assert report.posts_summarized == 3


@BOTH_BACKENDS
def test_a_second_build_at_the_same_time_is_refused_with_a_clear_message(config):
    with held_elsewhere(config.state):
        with pytest.raises(LockedError, match="another newsletter run is using this state"):
            pipeline.build(config, now=NOW)
    assert pipeline.build(config, now=NOW).new_digest == "2026-11-02-1"


def web_config(tmp_path: Path, server) -> config_module.Config:
    """A page source and a feed source on a loopback server; the feed links to the page."""
    serve_document(server, "/feed", f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Blog</title><link>{server.url_for("/")}</link>
<item><title>Kite 2.0</title><link>{server.url_for("/posts/kite")}?utm_source=rss</link>
<description>Kite 2.0 is out.</description></item>
<item><title>Tern 0.9</title><link>{server.url_for("/posts/tern")}</link>
<description>Tern 0.9 is out.</description></item>
</channel></rss>""", "application/rss+xml")
    for name, title in (("kite", "Kite 2.0"), ("tern", "Tern 0.9")):
        serve_document(server, f"/posts/{name}", f"<html><head><title>{title}</title></head><body>"
                       f"<h1>{title}</h1><p>{title} is out, with much to tell.</p></body></html>")
    return config_module.load(write_config(tmp_path, f"""
[site]
title = "Test digest"
url = "https://digest.example.org/"
author = "Test team"

[[sources]]
name = "kite-page"
kind = "page"
url = "{server.url_for("/posts/kite")}"

[[sources]]
name = "blog"
kind = "feed"
url = "{server.url_for("/feed")}"

[http]
timeout = 5
retries = 0
"""))


def test_a_post_reached_from_a_page_and_a_feed_is_one_entry(tmp_path: Path, httpserver):
    config = web_config(tmp_path, httpserver)
    report = pipeline.build(config, now=NOW)
    assert report.problems == () and report.posts_summarized == 3
    assert sorted(entry_ids(config.archive_dir / "posts.atom")) == [
        httpserver.url_for("/posts/kite"), httpserver.url_for("/posts/tern")]


def test_a_full_text_feed_entry_keeps_its_own_title_and_author(tmp_path: Path, httpserver):
    """An entry whose text does not repeat its title (most full-content feeds) is published
    under the entry's title and author, not its URL."""
    body = "<p>" + "This release makes the planner faster and the logs quieter. " * 12 + "</p>"
    serve_document(httpserver, "/feed", f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:blog</id><updated>2026-11-01T00:00:00Z</updated>
<entry><title>Heron 4.2 released</title><id>urn:heron</id><updated>2026-11-01T00:00:00Z</updated>
<author><name>Heron maintainers</name></author><link href="{httpserver.url_for("/heron")}"/>
<content type="html">{escape(body)}</content></entry></feed>""", "application/atom+xml")
    config = feed_config(tmp_path, httpserver.url_for("/feed"))
    pipeline.build(config, now=NOW)
    [entry] = feedparser.parse(config.archive_dir / "posts.atom").entries
    assert entry.title == "Heron 4.2 released"
    assert entry.author == "Heron maintainers"


@BOTH_BACKENDS
@pytest.mark.parametrize("date", ["9999-12-31", "1900-01-01"])
def test_an_implausible_date_counts_as_no_date(config, posts_dir: Path, date: str):
    (posts_dir / "odd.md").write_text(f"---\ntitle: Odd date\ndate: {date}\n---\n\nText.\n", encoding="utf-8")
    pipeline.build(config, now=NOW)
    entries = {e.title: e for e in feedparser.parse(config.archive_dir / "posts.atom").entries}
    # Sorted by when it was first seen, but with no made-up publication date.
    assert "published" not in entries["Odd date"] and entries["Odd date"].updated == NOW.isoformat()


def test_building_twice_against_an_unchanged_server_downloads_nothing_again(tmp_path: Path, httpserver):
    config = web_config(tmp_path, httpserver)
    pipeline.build(config, now=NOW)
    feed = config.archive_dir / "posts.atom"
    first = feed.read_bytes()

    httpserver.clear_log()
    report = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert (report.posts_seen, report.posts_summarized, report.new_digest) == (3, 0, None)
    assert feed.read_bytes() == first
    # The page and the feed were asked "changed since?", and nothing came back but 304s.
    assert sorted(request.path for request, _ in httpserver.log) == ["/feed", "/posts/kite"]
    assert all(request.headers.get("If-None-Match") for request, _ in httpserver.log)
    assert [answer.status_code for _, answer in httpserver.log] == [304, 304]


def test_refetch_reads_every_source_in_full_once_more(tmp_path: Path, httpserver):
    config = web_config(tmp_path, httpserver)
    pipeline.build(config, now=NOW)
    httpserver.clear_log()
    report = pipeline.build(config, now=NOW + timedelta(hours=1), refetch=True)
    assert not any(request.headers.get("If-None-Match") for request, _ in httpserver.log)
    assert {answer.status_code for _, answer in httpserver.log} == {200}
    # Read again, but unchanged: nothing is summarized again and no digest is made.
    assert (report.posts_summarized, report.new_digest) == (0, None)


@BOTH_BACKENDS
def test_a_new_post_rewrites_only_the_feed_pages_it_changes(config, posts_dir: Path):
    config = replace(config, feed_size=1)
    pipeline.build(config, now=NOW)
    oldest = config.archive_dir / "feeds" / "posts-1.atom"
    first_write = oldest.stat().st_mtime_ns
    (posts_dir / "kite-1.0.md").write_text("# Kite 1.0\n\nKite flies.\n", encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(days=1))
    assert oldest.stat().st_mtime_ns == first_write
    assert (config.archive_dir / "feeds" / "posts-2.atom").exists()
    assert "Kite 1.0" in (config.archive_dir / "posts.atom").read_text(encoding="utf-8")

    oldest.unlink()
    pipeline.build(config, now=NOW + timedelta(days=2))
    assert oldest.exists()


@BOTH_BACKENDS
def test_a_folder_post_whose_size_and_time_are_unchanged_is_not_read_again(config, posts_dir: Path):
    pipeline.build(config, now=NOW)
    post = posts_dir / "lumen-2.0.md"
    before = post.stat()
    post.write_text(post.read_text(encoding="utf-8").replace("Lumen", "Lumex"), encoding="utf-8")
    os.utime(post, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert pipeline.build(config, now=NOW + timedelta(hours=1)).posts_summarized == 0

    os.utime(post, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    assert pipeline.build(config, now=NOW + timedelta(hours=2)).posts_summarized == 1


def folder_config(tmp_path: Path, state: config_module.StateLocation, *folders: tuple[str, str]) -> config_module.Config:
    """Folder sources, as (name, folder) pairs, under the `config` fixture's site, on `state`."""
    sources = "".join(f'\n[[sources]]\nname = "{name}"\nkind = "folder"\npath = "{folder}"\n' for name, folder in folders)
    return config_module.load(write_config(tmp_path, f"""
[site]
title = "Test digest"
url = "https://digest.example.org/"
author = "Test team"
{sources}{state_table(state)}"""))


@BOTH_BACKENDS
def test_renaming_a_source_mails_none_of_its_posts_again(config, tmp_path: Path, posts_dir: Path):
    pipeline.build(config, now=NOW)
    feed = config.archive_dir / "posts.atom"
    ids = entry_ids(feed)
    renamed = folder_config(tmp_path, config.state, ("release-notes", posts_dir.name))
    report = pipeline.build(renamed, now=NOW + timedelta(days=1))
    assert report.posts_summarized == 3
    # The renamed source's posts are the posts already published: no digest, no new entry.
    assert report.new_digest is None
    assert entry_ids(feed) == ids


@BOTH_BACKENDS
@pytest.mark.parametrize("canonical", ["https://evil.example/lumen/", "https://lumen.example.org/blog/lumen-2.0/"])
def test_a_copy_in_another_source_never_takes_over_a_published_entry(
    config, tmp_path: Path, posts_dir: Path, canonical: str,
):
    """A copy with the same highlights and more features, in another source: with its own
    address it is its own entry; naming the original's address, it joins the entry without
    leading it. Either way the Lumen entry keeps its link and no digest mails it again."""
    pipeline.build(config, now=NOW)
    copies = tmp_path / "copies"
    copies.mkdir()
    original = (posts_dir / "lumen-2.0.md").read_text(encoding="utf-8")
    copy = original.replace("https://lumen.example.org/blog/lumen-2.0/", canonical)
    (copies / "lumen.md").write_text(copy + "\n## Extras\n\n### Buy our course\n\n### Our sponsor\n", encoding="utf-8")
    both = folder_config(tmp_path, config.state, ("posts", posts_dir.name), ("copies", copies.name))
    report = pipeline.build(both, now=NOW + timedelta(days=1))
    entries = feedparser.parse(both.archive_dir / "posts.atom").entries
    [lumen] = [e for e in entries if "lumen.example.org" in e.id]
    assert lumen.link == "https://lumen.example.org/blog/lumen-2.0/"
    assert "Buy our course" not in lumen.summary
    if canonical.startswith("https://evil"):
        assert report.new_digest is not None
        digest = (both.archive_dir / "digests" / f"{report.new_digest}.txt").read_text(encoding="utf-8")
        assert "evil.example" in digest and "lumen.example.org/blog" not in digest
    else:
        assert report.new_digest is None and len(entries) == 2
        assert "https://evil.example/lumen/" not in (both.archive_dir / "posts.atom").read_text(encoding="utf-8")


@BOTH_BACKENDS
def test_moving_the_site_to_another_address_changes_no_entry_id(config, tmp_path: Path, posts_dir: Path):
    pipeline.build(config, now=NOW)
    ids = entry_ids(config.archive_dir / "posts.atom")
    assert any(i.startswith("tag:digest.example.org,") for i in ids)
    moved = config_module.load(write_config(tmp_path, config.path.read_text(encoding="utf-8").replace(
        "https://digest.example.org/", "https://news.example.net/")))
    (posts_dir / "kite-1.0.md").write_text("# Kite 1.0\n\nKite flies.\n", encoding="utf-8")
    report = pipeline.build(moved, now=NOW + timedelta(days=1))
    assert report.new_digest is not None
    after = entry_ids(moved.archive_dir / "posts.atom")
    assert set(ids) < set(after)
    # The new post's id is made under the first address too: ids never say where the site is.
    assert "tag:digest.example.org,2026-11-03:posts/kite-1.0.md" in after


def test_two_feed_entries_with_one_id_are_both_kept_and_stay_as_they_are(tmp_path: Path, httpserver):
    def entry(title: str) -> str:
        return (f"<entry><title>{title}</title><id>urn:same</id><updated>2026-11-01T00:00:00Z</updated>"
                f"<content type=\"text\">{title} is out, with more to say than a line.</content></entry>")

    serve_document(httpserver, "/feed", f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title><id>urn:blog</id><updated>2026-11-01T00:00:00Z</updated>
{entry("Heron 4.2")}{entry("Ibis 1.0")}{entry("Heron 4.2")}</feed>""", "application/atom+xml")
    config = feed_config(tmp_path, httpserver.url_for("/feed"))
    report = pipeline.build(config, now=NOW)
    assert report.posts_summarized == 2
    assert [p for p in report.problems if "the same id and title as an earlier entry, skipped" in p] != []
    feed = config.archive_dir / "posts.atom"
    assert sorted(e.title for e in feedparser.parse(feed).entries) == ["Heron 4.2", "Ibis 1.0"]
    first = feed.read_bytes()
    report = pipeline.build(config, now=NOW + timedelta(hours=1), refetch=True)
    assert report.posts_summarized == 0
    assert feed.read_bytes() == first


def test_a_feed_minting_new_ids_on_every_request_keeps_at_most_max_posts(tmp_path: Path, httpserver):
    from werkzeug import Response

    served = iter(range(1_000_000))

    def minting(_request) -> Response:
        entries = "".join(
            f"<entry><title>Release {n}</title><id>urn:release:{n}</id><updated>2026-11-01T00:00:00Z</updated>"
            f"<content type=\"text\">Release {n} is out, with more to say than a line.</content></entry>"
            for n in (next(served) for _ in range(3)))
        return Response(f"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">
<title>Blog</title><id>urn:blog</id><updated>2026-11-01T00:00:00Z</updated>{entries}</feed>""",
                        content_type="application/atom+xml")

    httpserver.expect_request("/feed").respond_with_handler(minting)
    config = config_module.load(write_config(tmp_path, f"""
[site]
title = "Test digest"
url = "https://digest.example.org/"

[[sources]]
name = "minting"
kind = "feed"
url = "{httpserver.url_for("/feed")}"
max_posts = 5
"""))
    kept = []
    for hour in range(4):
        report = pipeline.build(config, now=NOW + timedelta(hours=hour))
        kept.append(report.posts_summarized)
    assert kept == [3, 2, 0, 0]
    assert "source 'minting': 3 new posts not kept: it keeps 5 posts at most (max_posts)" in report.problems
    assert len(feedparser.parse(config.archive_dir / "posts.atom").entries) == 5
