"""What a mailing makes its messages of: the build's copy of each digest, the entries and
graduations it was rendered from (its snapshot), and the copies rendered from that snapshot
for subscribers who asked for a slice of it (newsletter/publish/slices.py).

Why a snapshot rather than the posts' rows: a post edited while a digest is being mailed
must not change the digest, and a slice rendered at send time from the current rows would
carry the edit to the subscribers mailed after it. The snapshot is written in the same
transaction as the copy, so there is never one without the other. A slice's copy is kept
once rendered: a mailing killed half-way and started again sends the very same bytes, and
each slice is rendered once per digest, however many subscribers share it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from newsletter.models import Entry, Graduation, RenderedDigest, StoredPost, Summary

if TYPE_CHECKING:
    from newsletter.state.database import Database
    from newsletter.state.store import Store


@dataclass(frozen=True)
class DigestSnapshot:
    """A digest's entries and the changes of label they made, as the build saw them."""

    # A build's digest may carry thousands: read as they are saved (EntryIndex.loaded).
    entries: Sequence[Entry]
    graduations: tuple[Graduation, ...]


def write(db: Database, digest_id: int, rendered: RenderedDigest, snapshot: DigestSnapshot | None) -> None:
    """Save the build's copy, with its snapshot if it has one, inside the caller's transaction."""
    db.execute(
        "INSERT INTO digest_copies (digest_id, subject, text, html, unsubscribe_slot, preferences_slot)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (digest_id) DO UPDATE SET subject = excluded.subject,"
        " text = excluded.text, html = excluded.html, unsubscribe_slot = excluded.unsubscribe_slot,"
        " preferences_slot = excluded.preferences_slot",
        (digest_id, rendered.subject, rendered.text, rendered.html, rendered.unsubscribe_slot,
         rendered.preferences_slot),
    )
    if snapshot is not None:
        db.execute("INSERT INTO digest_snapshots (digest_id, graduations) VALUES (?, ?)"
                   " ON CONFLICT (digest_id) DO UPDATE SET graduations = excluded.graduations",
                   (digest_id, json.dumps([g.__dict__ for g in snapshot.graduations], ensure_ascii=False)))
        db.execute("DELETE FROM digest_snapshot_entries WHERE digest_id = ?", (digest_id,))
        # One entry at a time, as they are read: a first build's digest may carry thousands.
        db.executemany(
            "INSERT INTO digest_snapshot_entries (digest_id, position, entry) VALUES (?, ?, ?)",
            ((digest_id, position, json.dumps(_entry_json(entry), ensure_ascii=False))
             for position, entry in enumerate(snapshot.entries)),
        )


def build_copy(store: Store, digest_id: int) -> RenderedDigest | None:
    """The digest as the build rendered it for mail, if it has."""
    row = store.db.execute(
        "SELECT html, text, subject, unsubscribe_slot, preferences_slot FROM digest_copies WHERE digest_id = ?",
        (digest_id,),
    ).fetchone()
    return RenderedDigest(*row) if row else None


def snapshot(store: Store, digest_id: int) -> DigestSnapshot | None:
    """What the digest was rendered from; None for a digest built before snapshots were kept."""
    row = store.db.execute("SELECT graduations FROM digest_snapshots WHERE digest_id = ?", (digest_id,)).fetchone()
    if row is None:
        return None
    entries = store.db.execute(
        "SELECT entry FROM digest_snapshot_entries WHERE digest_id = ? ORDER BY position", (digest_id,))
    return DigestSnapshot(tuple(_entry(json.loads(entry)) for (entry,) in entries),
                          tuple(Graduation(**g) for g in json.loads(row[0])))


def recent_entries(store: Store, digests: int, most: int) -> list[Entry]:
    """The entries of the newest `digests` digests that have snapshots, newest first, at most
    `most` of them (a first build's digest may carry thousands)."""
    rows = store.db.execute(
        "SELECT entry FROM digest_snapshot_entries WHERE digest_id IN"
        " (SELECT digest_id FROM digest_snapshots ORDER BY digest_id DESC LIMIT ?)"
        " ORDER BY digest_id DESC, position LIMIT ?", (digests, most),
    )
    return [_entry(json.loads(entry)) for (entry,) in rows]


def slice_copy(store: Store, digest_id: int, slice_key: str) -> RenderedDigest | None:
    row = store.db.execute(
        "SELECT html, text, subject, unsubscribe_slot, preferences_slot FROM digest_slices"
        " WHERE digest_id = ? AND slice = ?", (digest_id, slice_key),
    ).fetchone()
    return RenderedDigest(*row) if row else None


def save_slice_copy(store: Store, digest_id: int, slice_key: str, rendered: RenderedDigest) -> None:
    with store.transaction() as db:
        db.execute(
            "INSERT INTO digest_slices (digest_id, slice, subject, text, html, unsubscribe_slot,"
            " preferences_slot) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (digest_id, slice) DO UPDATE SET"
            " subject = excluded.subject, text = excluded.text, html = excluded.html,"
            " unsubscribe_slot = excluded.unsubscribe_slot, preferences_slot = excluded.preferences_slot",
            (digest_id, slice_key, rendered.subject, rendered.text, rendered.html, rendered.unsubscribe_slot,
             rendered.preferences_slot),
        )


def forget_slice_copies(store: Store, mailing: Collection[int]) -> None:
    """Drop the slice copies of every digest but those still `mailing`: a copy serves only
    to send the same bytes again within its mailing, and each is as large as a digest."""
    with store.transaction() as db:
        db.execute(f"DELETE FROM digest_slices WHERE digest_id NOT IN ({db.dialect.ids})",
                   (json.dumps(sorted(mailing)),))


def _entry_json(entry: Entry) -> dict[str, Any]:
    return {"id": entry.id, "forms": [{
        "id": form.id, "source": form.source, "location": form.location, "url": form.url,
        "content_hash": form.content_hash, "first_seen": form.first_seen.isoformat(),
        "last_seen": form.last_seen.isoformat(), "changed": form.changed.isoformat(),
        "summary": form.summary.to_json(),
    } for form in entry.forms]}


def _entry(data: dict[str, Any]) -> Entry:
    primary, *alternates = (StoredPost(
        id=form["id"], source=form["source"], location=form["location"], url=form["url"],
        content_hash=form["content_hash"], first_seen=datetime.fromisoformat(form["first_seen"]),
        last_seen=datetime.fromisoformat(form["last_seen"]), changed=datetime.fromisoformat(form["changed"]),
        summary=Summary.from_json(form["summary"]),
    ) for form in data["forms"])
    return Entry(data["id"], primary, tuple(alternates))
