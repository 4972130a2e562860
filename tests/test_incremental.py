"""A build does work in proportion to what changed: a database of the previous schema is
brought up to date without rewriting what it had published."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from helpers import NOW

from newsletter import pipeline
from newsletter.state.schema import BASELINE, MIGRATIONS
from newsletter.state.store import Store


def test_a_database_of_the_previous_version_is_grouped_without_rewriting_what_it_published(config, tmp_path):
    config = replace(config, feed_size=1)
    pipeline.build(config, now=NOW)
    archive = config.archive_dir
    published = {path: path.stat().st_mtime_ns for path in archive.rglob("posts*.atom")}
    # The same state as version 3 kept it: no entries, and feed_pages for archive_pages.
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.executescript(BASELINE + MIGRATIONS[2] + MIGRATIONS[3] + "PRAGMA user_version = 3;")
    db.execute("ATTACH ? AS new", (str(config.state_path),))
    for table in ("posts", "digests", "digest_entries", "digest_posts", "digest_copies", "validators"):
        db.execute(f"INSERT INTO {table} SELECT * FROM new.{table}")
    db.execute("INSERT INTO feed_pages SELECT * FROM new.archive_pages WHERE path LIKE '%.atom'")
    db.commit()
    db.close()
    shutil.copy(old, config.state_path)
    for suffix in ("-wal", "-shm"):
        Path(f"{config.state_path}{suffix}").unlink(missing_ok=True)

    report = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert (report.posts_summarized, report.new_digest) == (0, None)
    assert {path: path.stat().st_mtime_ns for path in archive.rglob("posts*.atom")} == published
    with Store.open(config.state_path) as store:
        assert store.db.execute("SELECT count(*) FROM ungrouped").fetchone() == (0,)
        assert store.db.execute("SELECT count(*) FROM entries").fetchone() == (2,)
