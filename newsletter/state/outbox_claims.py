"""Claims on the outbox, so that several senders (`newsletter send` processes, workers, on
any hosts) share one digest's mailing and no message is in two senders' hands.

A sender takes the rows it will mail in batches: one statement claims up to BATCH rows that
are due (queued, deferred, or left pending by a sender that died) and that nobody holds,
writing its name and the end of its lease on each. On PostgreSQL the rows are picked with
FOR UPDATE SKIP LOCKED, so senders claiming at the same moment take different rows without
waiting for each other; SQLite lets one writer in at a time anyway. A thread renews the
sender's leases while it works (`kept`), so a claim lapses only when its holder stops: killed,
frozen, or cut off from the database for longer than LEASE. Its queued rows then go to
another sender, not repeated; a row it had marked pending is the one possible repeat (see
newsletter/mail/send.py), sent again with the same Message-ID.

A sender never claims again, in one run, a row it claimed: a message it deferred or whose
answer it lost is tried by a later run, as with one sender (or by another sender that is at
the mailing then: the run gives up its claims as it ends).
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from newsletter.errors import StoreError
from newsletter.state.store import OutboxState, Store

log = logging.getLogger(__name__)

# Long enough that a sender whose database connection stalls for a moment keeps its claims
# (the lease is renewed every third of it, so two renewals may fail in a row); short enough
# that the batch of a killed sender waits little for another to take it.
LEASE = timedelta(seconds=15)
RENEW_EVERY = LEASE / 3
# Rows per claim: enough that the claim is a small share of a batch's work (each message
# takes two transactions of its own) and that every SMTP connection of a sender has work;
# few enough that a killed sender strands few messages for a lease, and that senders end a
# mailing together instead of one working through a long last batch alone.
BATCH = 50

# Rows a sender may hand over; a deferred one is tried again by a later run only.
_IN_HAND = "('queued', 'pending')"


@dataclass(frozen=True, order=True)
class Claimed:
    recipient: str
    # As the row stood: "pending" means a sender died while handing it over.
    state: OutboxState


def sender_name() -> str:
    """A name of its own for one sending run: the host and process, for the operator who
    reads the outbox, and a random part, as a process id is used again."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def claim_batch(store: Store, digest_id: int, sender: str, now: datetime, *, alone: bool,
                size: int = BATCH) -> list[Claimed]:
    """Claim up to `size` due rows of the digest that nobody holds, in one statement, and
    return them. `alone`: the caller holds the state's lock file, so no other sender is
    alive and every other claim is a dead sender's, whatever its lease says."""
    lease_until = _stamp(now + LEASE)
    with store.transaction() as db:
        rows = db.execute(
            "UPDATE outbox SET claimed_by = ?, lease_until = ? WHERE digest_id = ? AND recipient IN ("
            " SELECT recipient FROM outbox WHERE digest_id = ? AND state IN ('queued', 'pending', 'deferred')"
            " AND coalesce(claimed_by, '') != ? AND (claimed_by IS NULL OR lease_until < ? OR ?)"
            f" ORDER BY recipient LIMIT ?{db.dialect.skip_locked}"
            ") RETURNING recipient, state",
            (sender, lease_until, digest_id, digest_id, sender, _stamp(now), alone, size),
        ).fetchall()
    return sorted(Claimed(recipient, state) for recipient, state in rows)


def held_elsewhere(store: Store, digest_id: int, sender: str) -> bool:
    """Whether another sender holds rows of the digest that it may still hand over: they
    are sent by it, or, if it stopped, by whoever claims them once its lease is out."""
    row = store.db.execute(
        f"SELECT 1 FROM outbox WHERE digest_id = ? AND state IN {_IN_HAND} AND claimed_by IS NOT NULL"
        " AND claimed_by != ? LIMIT 1",
        (digest_id, sender),
    ).fetchone()
    return row is not None


def unclaimed(store: Store, digest_id: int, now: datetime) -> bool:
    """Whether rows of the digest wait for a sender: queued or left pending, held by none."""
    row = store.db.execute(
        f"SELECT 1 FROM outbox WHERE digest_id = ? AND state IN {_IN_HAND}"
        " AND (claimed_by IS NULL OR lease_until < ?) LIMIT 1",
        (digest_id, _stamp(now)),
    ).fetchone()
    return row is not None


def waiting(store: Store) -> bool:
    """Whether any mailing has messages that a sender may still hand over."""
    return store.db.execute(f"SELECT 1 FROM outbox WHERE state IN {_IN_HAND} LIMIT 1").fetchone() is not None


def release(store: Store, digest_id: int, sender: str) -> None:
    """At the end of the sender's run, when none of its messages is in flight: give up the
    rows it did not finish, for any other sender, or the next run, to take at once: those it
    did not come to (queued), deferred, or left pending (its answer lost)."""
    with store.transaction() as db:
        db.execute(
            "UPDATE outbox SET claimed_by = NULL, lease_until = NULL"
            " WHERE digest_id = ? AND claimed_by = ? AND state IN ('queued', 'pending', 'deferred')",
            (digest_id, sender),
        )


def renew(store: Store, digest_id: int, sender: str, now: datetime) -> None:
    with store.transaction() as db:
        db.execute(
            f"UPDATE outbox SET lease_until = ? WHERE digest_id = ? AND claimed_by = ? AND state IN {_IN_HAND}",
            (_stamp(now + LEASE), digest_id, sender),
        )


@contextmanager
def kept(open_store: Callable[[], Store], digest_id: int, sender: str) -> Iterator[None]:
    """Renew the sender's leases on the digest's rows every RENEW_EVERY for the duration,
    from a thread with a database connection of its own, so a slow SMTP server (a message
    may take minutes of retries) never lets them lapse while the sender lives."""
    stop = threading.Event()

    def renew_until_stopped() -> None:
        try:
            with open_store() as store:
                while not stop.wait(RENEW_EVERY.total_seconds()):
                    try:
                        renew(store, digest_id, sender, datetime.now(UTC))
                    except StoreError as exc:  # tried again at the next turn, well within the lease
                        log.warning("cannot renew the claims on the outbox: %s", exc)
        except StoreError as exc:
            log.error("cannot renew the claims on the outbox; other senders may take them: %s", exc)

    thread = threading.Thread(target=renew_until_stopped, name="outbox-lease", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _stamp(moment: datetime) -> str:
    """UTC ISO text with microseconds always, whose text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
