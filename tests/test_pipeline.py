import email
from datetime import timedelta
from pathlib import Path

import feedparser
import pytest
from lxml import etree

from newsletter import lock, pipeline

from conftest import NOW, held_elsewhere

ATOM = "{http://www.w3.org/2005/Atom}"


def entry_ids(feed: Path) -> list[str]:
    return [e.findtext(f"{ATOM}id") for e in etree.parse(str(feed)).getroot().iter(f"{ATOM}entry")]


def test_a_build_writes_feeds_digest_and_index(config):
    report = pipeline.build(config, now=NOW)
    archive = config.archive_dir
    assert report.new_digest == "2026-11-02-1"
    assert report.posts_summarized == report.posts_seen == 3
    posts = feedparser.parse((archive / "posts.atom").read_bytes())
    assert not posts.bozo and len(posts.entries) == 3
    digests = feedparser.parse((archive / "digests.atom").read_bytes())
    assert not digests.bozo and len(digests.entries) == 1
    for suffix in ("html", "txt", "eml"):
        assert (archive / "digests" / f"2026-11-02-1.{suffix}").stat().st_size > 0
    message = email.message_from_bytes((archive / "digests" / "2026-11-02-1.eml").read_bytes())
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.get_payload()] == ["text/plain", "text/html"]
    assert "2026-11-02-1.html" in (archive / "index.html").read_text(encoding="utf-8")


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


def test_since_makes_a_digest_of_posts_already_digested(config):
    pipeline.build(config, now=NOW)
    report = pipeline.build(config, now=NOW + timedelta(days=1), since=NOW - timedelta(days=1))
    assert report.new_digest == "2026-11-03-1"


def test_a_bad_post_is_reported_and_the_others_are_published(config, posts_dir: Path):
    (posts_dir / "empty.md").write_bytes(b"")
    report = pipeline.build(config, now=NOW)
    assert any("empty.md: empty file" in p for p in report.problems)
    assert report.posts_summarized == 3


def test_a_second_build_at_the_same_time_is_refused_with_a_clear_message(config):
    with held_elsewhere(lock.for_state(config.state_path)):
        with pytest.raises(lock.LockedError, match="another newsletter run is using this state"):
            pipeline.build(config, now=NOW)
    assert pipeline.build(config, now=NOW).new_digest == "2026-11-02-1"
