import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS

from newsletter.errors import StoreError
from newsletter.models import EntryStamp, Feature, Summary
from newsletter.state.schema import BASELINE, SCHEMA_VERSION
from newsletter.state.store import Store

SUMMARY = Summary(
    title="Kite 1.0", author="Kite team", language="en", canonical_url=None,
    summary_bullets=("Faster",), features=(Feature("Wings", "beta", "Flight"),), format="markdown",
)


@BOTH_BACKENDS
def test_posts_round_trip_through_a_real_database(state):
    store = Store.open(state)
    store.save_post(source="s", location="a.md", url=None, content_hash="h1", summary=SUMMARY, now=NOW)
    store.close()

    reopened = Store.open(state)
    [post] = reopened.posts()
    assert (post.source, post.location, post.content_hash) == ("s", "a.md", "h1")
    assert post.summary == SUMMARY
    assert post.first_seen == post.changed == NOW
    assert reopened.content_hash("s", "a.md") == "h1"
    reopened.close()


def test_a_sqlite_database_is_in_wal_mode(tmp_path: Path):
    Store.open(tmp_path / "state.sqlite").close()
    assert sqlite3.connect(tmp_path / "state.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@BOTH_BACKENDS
def test_a_changed_post_keeps_its_first_sighting(state):
    store = Store.open(state)
    store.save_post(source="s", location="a.md", url=None, content_hash="h1", summary=SUMMARY, now=NOW)
    later = NOW + timedelta(days=1)
    store.save_post(source="s", location="a.md", url=None, content_hash="h2", summary=SUMMARY, now=later)
    [post] = store.posts()
    assert post.first_seen == NOW
    assert post.changed == later
    assert post.content_hash == "h2"


@BOTH_BACKENDS
def test_digests_record_their_entries_and_are_numbered_per_day(state):
    store = Store.open(state)
    store.save_post(source="s", location="a.md", url=None, content_hash="h", summary=SUMMARY, now=NOW)
    [post] = store.posts()
    entry = EntryStamp(post.id, "tag:x,2026:a", post.changed, (post.id,))

    for minutes, name in ((0, "2026-11-02-1"), (5, "2026-11-02-2")):
        moment = NOW + timedelta(minutes=minutes)
        assert store.digest_name(moment) == name
        store.add_digest(name, [entry], moment)
    assert store.digest_name(NOW, taken=lambda name: name == "2026-11-02-3") == "2026-11-02-4"
    assert store.post_ids_changed_since(NOW - timedelta(days=1)) == {post.id}
    assert store.post_ids_changed_since(NOW + timedelta(days=1)) == set()
    assert [(d.name, d.entry_count) for d in store.digest_heads()] == [("2026-11-02-1", 1), ("2026-11-02-2", 1)]


@BOTH_BACKENDS
def test_unchanged_sources_are_recorded_collected_at_once_and_their_posts_left_as_stored(state):
    store = Store.open(state)
    for source, location in (("feed-1", "a"), ("feed-1", "b"), ("feed-2", "c"), ("feed-3", "d")):
        store.save_post(source=source, location=location, url=None, content_hash="h", summary=SUMMARY, now=NOW)
    later = NOW + timedelta(hours=1)
    assert store.record_unchanged(["feed-1", "feed-2", "never-read"], later) == 3
    assert {p.last_seen for p in store.posts()} == {NOW}
    statuses = store.source_statuses()
    assert [statuses[s].last_success for s in ("feed-1", "feed-2", "never-read")] == [later] * 3
    assert statuses["feed-3"].last_success is None


@BOTH_BACKENDS
def test_a_failed_transaction_leaves_no_trace(state):
    store = Store.open(state)
    try:
        with store.transaction() as db:
            db.execute("INSERT INTO digests (name, created) VALUES ('x', 'y')")
            raise RuntimeError("killed")
    except RuntimeError:
        pass
    assert store.db.execute("SELECT count(*) FROM digests").fetchone()[0] == 0


def test_a_new_database_carries_the_schema_version(tmp_path: Path):
    path = tmp_path / "state.sqlite"
    with Store.open(path):
        pass
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_database_from_before_schema_versions_is_migrated_and_keeps_its_posts(tmp_path: Path):
    path = tmp_path / "state.sqlite"
    old = sqlite3.connect(path)
    old.executescript(BASELINE)
    old.close()
    with Store.open(path) as store:
        store.save_post(source="s", location="a.md", url=None, content_hash="h1", summary=SUMMARY, now=NOW)
    with Store.open(path) as store:
        assert [p.location for p in store.posts()] == ["a.md"]
        assert store.digest_copy(1) is None
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_digests_of_an_older_database_count_as_mailed_except_the_newest_unmailed(tmp_path: Path):
    path = tmp_path / "state.sqlite"
    old = sqlite3.connect(path)
    old.executescript(BASELINE)
    old.executemany("INSERT INTO digests (name, created) VALUES (?, ?)",
                    [("2026-11-01-1", "2026-11-01T09:00:00+00:00"), ("2026-11-02-1", "2026-11-02T09:00:00+00:00")])
    old.commit()
    old.close()
    with Store.open(path) as store:
        # Before mailing was recorded, a send mailed only the newest: the older one is not sent now.
        assert [head.name for head in store.digests_to_mail()] == ["2026-11-02-1"]


def test_a_database_made_by_a_newer_version_is_refused_in_one_line(tmp_path: Path):
    path = tmp_path / "state.sqlite"
    newer = sqlite3.connect(path)
    newer.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    newer.close()
    with pytest.raises(StoreError, match=f"{path}: .*schema version {SCHEMA_VERSION + 1}, made by a newer") as caught:
        Store.open(path)
    assert "\n" not in str(caught.value)
