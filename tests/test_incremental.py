"""A build does work in proportion to what changed: the index in pages, only the summaries a
written page shows loaded, no row of an unchanged post written, and a database of the
previous schema brought up to date without rewriting what it had published."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from helpers.posts import add_post

from newsletter import pipeline
from newsletter.publish import index_pages
from newsletter.publish.feed_items import FeedItem, entry_item
from newsletter.state.entry_index import EntryIndex
from newsletter.state.schema import BASELINE, MIGRATIONS
from newsletter.state.store import Store


def links(page: Path) -> dict[str, str]:
    html = page.read_text(encoding="utf-8")
    return dict(re.findall(r'<link rel="(prev|next)" href="([^"]+)">', html))


def digests_listed(page: Path) -> list[str]:
    return re.findall(r'<a href="digests/([^"]+)\.html">', page.read_text(encoding="utf-8"))


def built_with_posts(config, posts_dir: Path, count: int):
    """`config` with feeds of five entries, built once with `count` posts added."""
    config = replace(config, feed_size=5)
    for number in range(count):
        add_post(posts_dir, number)
    pipeline.build(config, now=NOW)
    return config


@BOTH_BACKENDS
def test_the_index_is_paged_and_a_full_page_stands(config, posts_dir: Path, monkeypatch):
    monkeypatch.setattr(index_pages, "PAGE_DIGESTS", 2)
    archive = config.archive_dir
    written = {}
    for day in range(5):
        if day:
            add_post(posts_dir, day)
        assert pipeline.build(config, now=NOW + timedelta(days=day)).new_digest
        written[day] = {page.name: page.stat().st_mtime_ns for page in archive.glob("index-*.html")}
    assert digests_listed(archive / "index.html") == ["2026-11-06-1"]
    assert links(archive / "index.html") == {"prev": "index-2.html"}
    assert digests_listed(archive / "index-2.html") == ["2026-11-05-1", "2026-11-04-1"]
    assert links(archive / "index-2.html") == {"prev": "index-1.html", "next": "index.html"}
    assert digests_listed(archive / "index-1.html") == ["2026-11-03-1", "2026-11-02-1"]
    assert links(archive / "index-1.html") == {"next": "index-2.html"}
    # Page 1 was written when it filled, and once more when page 2 filled after it.
    assert written[1]["index-1.html"] != written[3]["index-1.html"] == written[4]["index-1.html"]
    assert written[3]["index-2.html"] == written[4]["index-2.html"]


@BOTH_BACKENDS
def test_a_first_digest_of_many_posts_fills_its_page_at_once(config, posts_dir: Path, monkeypatch):
    monkeypatch.setattr(index_pages, "PAGE_POSTS", 2)
    archive = config.archive_dir
    pipeline.build(config, now=NOW)
    assert digests_listed(archive / "index.html") == digests_listed(archive / "index-1.html") == ["2026-11-02-1"]
    add_post(posts_dir, 1)
    pipeline.build(config, now=NOW + timedelta(days=1))
    assert digests_listed(archive / "index.html") == ["2026-11-03-1"]


@BOTH_BACKENDS
def test_one_new_post_loads_the_summaries_of_the_pages_it_changes_only(config, posts_dir: Path, monkeypatch):
    monkeypatch.setattr(index_pages, "PAGE_POSTS", 10)
    config = built_with_posts(config, posts_dir, 30)
    loaded: list[int] = []
    posts = Store.posts

    def counting(store, ids=None):
        found = posts(store, ids)
        loaded.extend(post.id for post in found)
        return found

    monkeypatch.setattr(Store, "posts", counting)
    add_post(posts_dir, 30)
    assert pipeline.build(config, now=NOW + timedelta(days=1)).new_digest == "2026-11-03-1"
    with Store.open(config.state) as store:
        newest = {post.id for post in posts(store) if post.first_seen > NOW}
    # The new post only: the posts.atom entries it joins keep their items (feed_item_cache).
    assert newest and set(loaded) == newest


@BOTH_BACKENDS
def test_the_feeds_after_one_new_post_are_a_fresh_builds_of_the_same_posts(config, posts_dir: Path, new_state):
    config = built_with_posts(config, posts_dir, 7)
    add_post(posts_dir, 7)
    pipeline.build(config, now=NOW)
    fresh = replace(config, state=new_state(), archive_dir=config.archive_dir.parent / "fresh")
    pipeline.build(fresh, now=NOW)
    for path in ("posts.atom", "posts.json", "feeds/posts-1.atom"):
        assert (config.archive_dir / path).read_bytes() == (fresh.archive_dir / path).read_bytes(), path
    # An entry of posts.atom edited: its item is made again.
    edited = posts_dir / "post-6.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("# Post 6", "# Post 6, edited"), encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(hours=1))
    assert "Post 6, edited" in (config.archive_dir / "posts.json").read_text(encoding="utf-8")
    with Store.open(config.state) as store:
        index = EntryIndex(store)
        kept = store.db.execute("SELECT entry, item, atom FROM feed_item_cache").fetchall()
        made = index.entries_by_key(key for key, _, _ in kept)
    # posts.atom's entries, each item as made from its entry, each element as posts.atom holds it.
    feed = (config.archive_dir / "posts.atom").read_text(encoding="utf-8")
    assert len(kept) == feed.count("</entry>") > 1
    for key, item, element in kept:
        assert FeedItem.from_json(json.loads(item)) == entry_item(config, made[key])
        assert element.startswith("  <entry") and element in feed
    assert sum("Post 6, edited" in element for _, _, element in kept) == 1


@BOTH_BACKENDS
def test_the_feeds_take_the_elements_they_kept_and_make_those_not_kept(config, posts_dir: Path):
    config = built_with_posts(config, posts_dir, 7)
    with Store.open(config.state) as store, store.transaction() as db:
        # Marked, to be told from elements made again; one left without, as by a database
        # from before elements were kept.
        for table in ("feed_item_cache", "digest_feed_entries"):
            db.execute(f"UPDATE {table} SET atom = replace(atom, '<title>', '<title>Kept: ')")
        newest = max(entry for (entry,) in db.execute("SELECT entry FROM feed_item_cache"))
        db.execute("UPDATE feed_item_cache SET atom = NULL WHERE entry = ?", (newest,))
    add_post(posts_dir, 7)
    pipeline.build(config, now=NOW + timedelta(days=1))
    # Of posts.atom's five: the new post's and the one without an element made, three kept.
    assert (config.archive_dir / "posts.atom").read_text(encoding="utf-8").count("<title>Kept: ") == 3
    # Of digests.atom's two: the new digest's made, the first one's kept.
    assert (config.archive_dir / "digests.atom").read_text(encoding="utf-8").count("<title>Kept: ") == 1
    with Store.open(config.state) as store:
        assert store.db.execute("SELECT count(*) FROM feed_item_cache WHERE atom IS NULL").fetchone()[0] == 0


@BOTH_BACKENDS
def test_digests_atom_takes_the_entries_it_kept_and_makes_those_of_changed_digests_again(config, posts_dir: Path):
    for day in range(3):
        add_post(posts_dir, 100 + day)
        assert pipeline.build(config, now=NOW + timedelta(days=day)).new_digest
    feed = (config.archive_dir / "digests.atom").read_bytes()
    with Store.open(config.state) as store, store.transaction() as db:
        kept = dict(db.execute("SELECT digest, atom FROM digest_feed_entries").fetchall())
        db.execute("DELETE FROM digest_feed_entries")
    assert len(kept) == 3 and all(element.encode() in feed for element in kept.values())
    # Made again from the digests' files: the same bytes.
    assert pipeline.build(config, now=NOW + timedelta(days=3)).new_digest is None
    assert (config.archive_dir / "digests.atom").read_bytes() == feed
    # A digest's file changed (by hand): its entry is made again from it, the others kept.
    page = config.archive_dir / "digests" / "2026-11-03-1.html"
    page.write_text(page.read_text(encoding="utf-8").replace("</body>", "<p>Edited by hand</p></body>"), encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(days=4))
    changed = (config.archive_dir / "digests.atom").read_text(encoding="utf-8")
    assert "Edited by hand" in changed and changed.count("</entry>") == 3
    assert sum(element in changed for element in kept.values()) == 2


def test_items_kept_by_a_program_whose_items_differ_are_made_again(config, posts_dir: Path):
    config = built_with_posts(config, posts_dir, 3)
    with Store.open(config.state) as store, store.transaction() as db:
        # As kept by a program whose items had a field fewer, under the same fingerprint.
        for entry, item in db.execute("SELECT entry, item FROM feed_item_cache").fetchall():
            db.execute("UPDATE feed_item_cache SET item = ? WHERE entry = ?",
                       (json.dumps({k: v for k, v in json.loads(item).items() if k != "language"}), entry))
    add_post(posts_dir, 3)
    pipeline.build(config, now=NOW + timedelta(hours=1))
    with Store.open(config.state) as store:
        kept = store.db.execute("SELECT entry, item FROM feed_item_cache").fetchall()
        made = EntryIndex(store).entries_by_key(key for key, _ in kept)
    assert len(kept) == (config.archive_dir / "posts.atom").read_text(encoding="utf-8").count("</entry>") > 3
    for key, item in kept:
        assert FeedItem.from_json(json.loads(item)) == entry_item(config, made[key])


@BOTH_BACKENDS
def test_the_posts_no_digest_carried_are_kept_as_posts_come_and_digests_or_the_backlog_take_them(
        config, posts_dir: Path):
    def undigested() -> set[int]:
        with Store.open(config.state) as store:
            kept = {post_id for (post_id,) in store.db.execute("SELECT post_id FROM undigested_posts")}
            assert kept == {post_id for (post_id,) in store.db.execute(
                "SELECT id FROM posts EXCEPT SELECT post_id FROM digest_posts EXCEPT SELECT post_id FROM backlog_posts")}
            return kept

    pipeline.build(config, now=NOW, make_digest=False)
    first = undigested()
    assert first
    pipeline.build(config, now=NOW + timedelta(hours=1))
    assert undigested() == set()
    add_post(posts_dir, 1)
    add_post(posts_dir, 2)
    pipeline.build(config, now=NOW + timedelta(hours=2), make_digest=False)
    new = undigested()
    assert len(new) == 2
    with Store.open(config.state) as store, store.transaction() as db:
        db.execute("INSERT INTO backlog_posts (post_id) VALUES (?)", (min(new),))
    assert undigested() == {max(new)}
    assert pipeline.build(config, now=NOW + timedelta(hours=3)).new_digest
    assert undigested() == set()


def test_a_build_writes_no_row_of_a_post_that_did_not_change(config, posts_dir: Path):
    pipeline.build(config, now=NOW)

    def last_seen() -> dict[str, str]:
        db = sqlite3.connect(config.state.path)
        try:
            return dict(db.execute("SELECT location, last_seen FROM posts"))
        finally:
            db.close()

    first = last_seen()
    pipeline.build(config, now=NOW + timedelta(hours=1))
    assert last_seen() == first
    # Read again (its time changed) and found the same: when it was last read is recorded.
    post = posts_dir / "lumen-2.0.md"
    post.write_text(post.read_text(encoding="utf-8"), encoding="utf-8")
    later = NOW + timedelta(hours=2)
    pipeline.build(config, now=later)
    assert last_seen() == {**first, "lumen-2.0.md": later.isoformat()}


def test_a_database_of_the_previous_version_is_grouped_without_rewriting_what_it_published(config, tmp_path):
    config = replace(config, feed_size=1)
    pipeline.build(config, now=NOW)
    archive = config.archive_dir
    published = {path: path.stat().st_mtime_ns for path in archive.rglob("posts*.atom")}
    # The same state as version 3 kept it: no entries, and feed_pages for archive_pages.
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript(BASELINE + MIGRATIONS[2] + MIGRATIONS[3] + "PRAGMA user_version = 3;")
    db.execute("ATTACH ? AS new", (str(config.state.path),))
    db.execute("INSERT INTO posts SELECT id, source, location, url, content_hash, first_seen, last_seen,"
               " changed, summary FROM new.posts")
    for table in ("digest_entries", "digest_posts", "validators"):
        db.execute(f"INSERT INTO {table} SELECT * FROM new.{table}")
    db.execute("INSERT INTO digest_copies SELECT digest_id, subject, text, html, unsubscribe_slot FROM new.digest_copies")
    db.execute("INSERT INTO digests SELECT id, name, created FROM new.digests")
    db.execute("INSERT INTO feed_pages SELECT * FROM new.archive_pages WHERE path LIKE '%.atom'")
    db.commit()
    db.close()
    shutil.copy(old, config.state.path)
    for suffix in ("-wal", "-shm"):
        Path(f"{config.state.path}{suffix}").unlink(missing_ok=True)

    report = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert (report.posts_summarized, report.new_digest) == (0, None)
    assert {path: path.stat().st_mtime_ns for path in archive.rglob("posts*.atom")} == published
    with Store.open(config.state) as store:
        assert store.db.execute("SELECT count(*) FROM ungrouped").fetchone() == (0,)
        assert store.db.execute("SELECT count(*) FROM entries").fetchone() == (2,)


def test_a_database_grouped_before_sources_kept_their_content_apart_is_grouped_again_and_changes_nothing(config):
    """Version 6 joined forms of different sources on content: the upgrade groups every post
    again with the keys of now, and what was published stays as it was."""
    pipeline.build(config, now=NOW)
    published = {path: path.read_bytes() for path in config.archive_dir.rglob("*") if path.is_file()}
    with Store.open(config.state) as store:
        triggers = [name for (name,) in store.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")]
        store.db.connection.executescript("".join(f"DROP TRIGGER {name}; " for name in triggers)
                               + "DROP TABLE touched_entries; DROP TABLE undigested_posts; DROP TABLE feed_item_cache; DROP TABLE digest_feed_entries;"
                               " ALTER TABLE ungrouped DROP COLUMN content_hash; DROP TABLE backlog_posts; ALTER TABLE posts DROP COLUMN text;"
                               " DROP TABLE over_budget; DROP TABLE feature_projects; DROP TABLE feature_entries; ALTER TABLE posts DROP COLUMN first_location;"
                               " DROP TABLE deliveries; DROP TABLE skipped_posts;"
                               " ALTER TABLE outbox DROP COLUMN claimed_by; ALTER TABLE outbox DROP COLUMN lease_until;"
                               " DROP TABLE digest_snapshots; DROP TABLE digest_snapshot_entries; DROP TABLE digest_slices;"
                               " ALTER TABLE subscribers DROP COLUMN slice; ALTER TABLE digest_copies DROP COLUMN preferences_slot;"
                               " DELETE FROM archive_marks WHERE name = 'entry id site'; PRAGMA user_version = 6;")
    with Store.open(config.state) as store:
        waiting = store.db.execute("SELECT count(*) FROM ungrouped").fetchone()[0]
        assert waiting == store.db.execute("SELECT count(*) FROM posts").fetchone()[0] == 3
    report = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert (report.posts_summarized, report.new_digest) == (0, None)
    assert {path: path.read_bytes() for path in config.archive_dir.rglob("*") if path.is_file()} == published
