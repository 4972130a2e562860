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
the mailing then: the run gives up its claims as it ends). Its leases on those rows are
renewed with the rest, so no other sender takes them while it lives, and no sender waits for
them either: only rows still queued are waited for (`held_elsewhere`).

A sender that cannot renew its leases for long stops claiming (GIVE_UP_AFTER, `Lease.lapsing`),
and marks a message pending only while its lease has a margin left (`must_hold_past`), so it
never hands over a message whose claim another sender may take meanwhile.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
import time
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

# Rows a sender may hand over. A deferred one is not among them: it waits for its holder's
# release at the end of its run, and is then claimed again like the rest (claim_batch).
_IN_HAND = "('queued', 'pending')"
# Rows a sender holds until its release: also those it deferred or whose answer it lost.
_HELD = "('queued', 'pending', 'deferred')"
# Left of a lease when a message is marked pending: a renewal (every RENEW_EVERY) has the
# time to come before it runs out, so a hand-over never starts on a lease about to lapse.
MARGIN = RENEW_EVERY
# Renewals failing for this long: the sender stops, while its claims still hold.
GIVE_UP_AFTER = LEASE / 2


# Called with the moment from which rows of a mailing wait that no sender holds: a worker
# has another worker take them then (newsletter/schedule/worker.py).
Unclaimed = Callable[[datetime], object]


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
    """Whether another sender holds queued rows of the digest: they are sent by it, or, if it
    stopped, by whoever claims them once its lease is out. Its pending rows are not waited
    for: one it is handing over now ends sent or deferred by it, and one whose answer it lost
    stays with it until its run ends (waiting for those, two senders would wait for each
    other for ever); a dead sender's go with its queued ones, or to the next run."""
    row = store.db.execute(
        "SELECT 1 FROM outbox WHERE digest_id = ? AND state = 'queued' AND claimed_by IS NOT NULL"
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


def next_lapse(store: Store, digest_id: int, sender: str) -> datetime | None:
    """When the first lease of another sender on a row it was handing over will have run out,
    if any: the row is then for whoever claims it. Nobody waits for such a row
    (`held_elsewhere`), so a sender ending its run with one left says when it may be taken,
    lest it wait for the next mailing's run: its holder may have died. A second past the
    lease, as a claim needs the lease behind it by the clock that compares them."""
    row = store.db.execute(
        "SELECT min(lease_until) FROM outbox WHERE digest_id = ? AND state = 'pending'"
        " AND claimed_by IS NOT NULL AND claimed_by != ?",
        (digest_id, sender),
    ).fetchone()
    return datetime.fromisoformat(row[0]) + timedelta(seconds=1) if row and row[0] else None


def waiting(store: Store) -> bool:
    """Whether any mailing has messages that a sender may still hand over."""
    return store.db.execute(f"SELECT 1 FROM outbox WHERE state IN {_IN_HAND} LIMIT 1").fetchone() is not None


def drop_unheld(store: Store, digest_id: int, recipient: str, sender: str, now: datetime, reason: str) -> None:
    """Drop an unfinished row of an address the sender finds off the list, unless another
    sender holds it: that one read the list later, and found the address on it."""
    with store.transaction() as db:
        db.execute(
            f"UPDATE outbox SET state = 'dropped', updated = ?, error = ? WHERE digest_id = ? AND recipient = ?"
            f" AND state IN {_HELD} AND (claimed_by IS NULL OR claimed_by = ? OR lease_until < ?)",
            (now.isoformat(), reason, digest_id, recipient, sender, _stamp(now)),
        )


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
            f"UPDATE outbox SET lease_until = ? WHERE digest_id = ? AND claimed_by = ? AND state IN {_HELD}",
            (_stamp(now + LEASE), digest_id, sender),
        )


def must_hold_past(now: datetime) -> str:
    """The lease a sender must still have on a row to mark it pending at `now`."""
    return _stamp(now + MARGIN)


class Lease:
    """How the renewal of one sender's leases goes."""

    def __init__(self) -> None:
        self._renewed = time.monotonic()

    def renewed(self) -> None:
        self._renewed = time.monotonic()

    def lapsing(self) -> bool:
        """Whether renewals have failed for so long that the claims may lapse soon: the
        sender stops rather than mail on without a lease."""
        return time.monotonic() - self._renewed > GIVE_UP_AFTER.total_seconds()


@contextmanager
def kept(open_store: Callable[[], Store], digest_id: int, sender: str) -> Iterator[Lease]:
    """Renew the sender's leases on the digest's rows every RENEW_EVERY for the duration,
    from a thread with a database connection of its own, so a slow SMTP server (a message
    may take minutes of retries) never lets them lapse while the sender lives. A connection
    that fails is opened again at the next turn."""
    stop = threading.Event()
    lease = Lease()

    def renew_until_stopped() -> None:
        while not stop.is_set():
            try:
                with open_store() as store:
                    while not stop.wait(RENEW_EVERY.total_seconds()):
                        renew(store, digest_id, sender, datetime.now(UTC))
                        lease.renewed()
            except StoreError as exc:  # tried again at the next turn, well within the lease
                log.warning("cannot renew the claims on the outbox: %s", exc)
                stop.wait(RENEW_EVERY.total_seconds())

    thread = threading.Thread(target=renew_until_stopped, name="outbox-lease", daemon=True)
    thread.start()
    try:
        yield lease
    finally:
        stop.set()
        thread.join()


def _stamp(moment: datetime) -> str:
    """UTC ISO text with microseconds always, whose text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")
