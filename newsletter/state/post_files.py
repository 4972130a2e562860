"""What the state database remembers of post texts and files beyond their summaries: texts
the summarizer gave up on, and the posts of a folder whose files are gone (which a renamed
file may continue)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from newsletter.state.store import Store


@dataclass(frozen=True)
class GonePost:
    """A post of a folder source whose file the folder no longer has."""

    id: int
    location: str
    content_hash: str
    title: str | None


def over_budget(store: Store, content_hash: str) -> bool:
    """Whether this very text ran over the summarizing budget in an earlier build."""
    row = store.db.execute("SELECT 1 FROM over_budget WHERE content_hash = ?", (content_hash,)).fetchone()
    return row is not None


def remember_over_budget(store: Store, content_hash: str, location: str, now: datetime) -> None:
    with store.transaction() as db:
        db.execute("INSERT INTO over_budget (content_hash, location, seen) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                   (content_hash, location, now.isoformat()))


def gone_posts(store: Store, source: str, gone: Collection[str]) -> list[GonePost]:
    """The posts of `source` at the locations its folder had at its last collection and does
    not list now (`gone`). A file deleted in an earlier build is long gone, not renamed now:
    its validators went with it (forget_gone_files), so it is not among `gone`."""
    dialect = store.db.dialect
    return [GonePost(*row) for row in store.db.execute(
        f"""SELECT id, location, content_hash, {dialect.json_text('summary', 'title')} FROM posts
           WHERE source = ? AND location IN ({dialect.texts}) ORDER BY id""",
        (source, json.dumps(list(gone))),
    )]


def forget_gone_files(store: Store, source: str, gone: Collection[str]) -> None:
    """Once a folder's collection is saved: the validators of the files it no longer lists
    go, so that only a file gone since the last collection counts as gone (gone_posts)."""
    with store.transaction() as db:
        db.execute(f"DELETE FROM validators WHERE source = ? AND location IN ({db.dialect.texts})",
                   (source, json.dumps(list(gone))))


def move_post(store: Store, post_id: int, source: str, location: str) -> None:
    """The post's file is now at `location`: the post keeps its row (its id, its entry, the
    digests that carried it), and its entry's id keeps naming where it was first read. The
    validators of its old file go with the file. Its text's hash is cleared with the move, so
    the post is saved again as changed even if this build stops before saving it: its pages
    and links must come to name the new file."""
    with store.transaction() as db:
        db.execute("DELETE FROM validators WHERE source = ? AND location = (SELECT location FROM posts WHERE id = ?)",
                   (source, post_id))
        db.execute("UPDATE posts SET first_location = coalesce(first_location, location), location = ?,"
                   " content_hash = '' WHERE id = ?", (location, post_id))


def continued_by(title: str | None, gone: list[GonePost]) -> GonePost | None:
    """The gone post that a new file of its folder, titled `title`, continues (renamed, and
    edited in the same build or since): the one gone post of that title. None when no gone
    post or several have it, or the new file has no title: two posts are never joined on a
    guess. (The same text under a new name is found before summarizing, by its hash.)"""
    key = _title_key(title)
    if not key:
        return None
    same_title = [post for post in gone if _title_key(post.title) == key]
    return same_title[0] if len(same_title) == 1 else None


def _title_key(title: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", title or "").casefold().split())
