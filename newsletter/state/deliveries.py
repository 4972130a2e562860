"""The outbox of chat and webhook deliveries: which digest each delivery is owed, and how
posting it went.

A delivery is owed every digest made after the last one it was given, and any whose post is
unfinished; a delivery new to the database starts with the newest digest, so adding one to
an old archive does not post its backlog. A delivery that comes back after a pause gets the
digests it missed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from newsletter.models import DigestHead
from newsletter.state.store import Store

DeliveryState = Literal["queued", "pending", "sent", "failed", "deferred", "skipped"]
# States whose post a later run still makes.
UNFINISHED: tuple[DeliveryState, ...] = ("queued", "pending", "deferred")


@dataclass(frozen=True)
class DeliveryRow:
    # The idempotency key or transaction id the post goes under, every time it is made.
    key: str
    # The request body, as made when the row was queued.
    body: str
    state: DeliveryState


def digests_owed(store: Store, delivery: str) -> list[DigestHead]:
    """The digests `delivery` is owed, oldest first (by id: the clock may have gone back)."""
    rows = store.db.execute(
        f"""SELECT id, name, created, (SELECT count(*) FROM digest_entries WHERE digest_id = digests.id)
        FROM digests
        WHERE id IN (SELECT digest_id FROM deliveries WHERE delivery = ? AND state IN {UNFINISHED})
           OR id > (SELECT max(digest_id) FROM deliveries WHERE delivery = ?)
           OR (NOT EXISTS (SELECT 1 FROM deliveries WHERE delivery = ?)
               AND id = (SELECT max(id) FROM digests))
        ORDER BY id""",
        (delivery, delivery, delivery),
    )
    return [DigestHead(i, name, datetime.fromisoformat(created), n) for i, name, created, n in rows]


def row(store: Store, digest_id: int, delivery: str) -> DeliveryRow | None:
    found = store.db.execute(
        "SELECT key, body, state FROM deliveries WHERE digest_id = ? AND delivery = ?",
        (digest_id, delivery),
    ).fetchone()
    return DeliveryRow(*found) if found else None


def queue(store: Store, digest_id: int, delivery: str, key: str, body: str, now: datetime,
          state: DeliveryState = "queued") -> None:
    """Record the post of a digest to a delivery, with the body it is made with, unless
    recorded already."""
    with store.transaction() as db:
        db.execute(
            "INSERT INTO deliveries (digest_id, delivery, key, body, state, updated)"
            " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (digest_id, delivery, key, body, state, now.isoformat()),
        )


def set_state(store: Store, digest_id: int, delivery: str, state: DeliveryState, now: datetime,
              error: str | None = None) -> None:
    """Move one post to `state` in its own transaction; `pending` counts an attempt."""
    with store.transaction() as db:
        db.execute(
            "UPDATE deliveries SET state = ?, updated = ?, error = ?,"
            " attempts = attempts + CASE WHEN ? = 'pending' THEN 1 ELSE 0 END"
            " WHERE digest_id = ? AND delivery = ?",
            (state, now.isoformat(), error, state, digest_id, delivery),
        )
