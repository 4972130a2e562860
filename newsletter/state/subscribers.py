"""The subscribers table: who is on the list, how they stand, and the suppression check the
outbox applies before every message.

Addresses come from three places: the operator's config (`email.subscribers`,
`subscribers_file`), sign-ups through `newsletter serve`, and `newsletter subscribers add`.
The config stays the operator's: it is never rewritten. Instead each of its addresses gets a
row here (so its links have an id to sign), and a row that has left the list
(unsubscribed, bounced, complained) outranks the file for good. Rows are never deleted.

Several processes change these rows (the web service, a send, the operator's command), on
SQLite one transaction at a time, on PostgreSQL at once under READ COMMITTED. So a change
that depends on how a row stands is one UPDATE whose WHERE says so (set_status, confirm,
claim_confirmation): a second writer waits for the first, then checks the WHERE again, and
only one of them makes the change. Where a read decides a write (claim), the row is locked.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from newsletter.models import Slice
from newsletter.state import outbox_claims
from newsletter.state.store import UNFINISHED, OutboxState, Store, write_outbox_state

SubscriberStatus = Literal["unconfirmed", "active", "unsubscribed", "bounced", "complained"]
# Where a subscription came from: the config file, a sign-up, or the operator's command.
Origin = Literal["config", "sign-up", "operator"]
# What `claim` says of a message another sender holds now.
Taken = Literal["taken"]
# Statuses that stop all mail to an address, whatever the operator's file says.
SUPPRESSED: tuple[SubscriberStatus, ...] = ("unsubscribed", "bounced", "complained")
# A sign-up asked for again this soon mails no second confirmation, so a form cannot be used
# to flood someone's inbox (unless the first could not be delivered).
RESEND_AFTER = timedelta(minutes=5)
# A message pending for longer than this was being handed over by a process that was killed.
IN_FLIGHT = timedelta(minutes=2)

_COLUMNS = "id, address, status, since, how, origin, requested, bounces, slice"


@dataclass(frozen=True)
class Subscriber:
    id: int
    # Bare, in lower case.
    address: str
    status: SubscriberStatus
    since: datetime
    how: str
    origin: Origin
    # When the pending sign-up was asked for; None when none is pending.
    requested: datetime | None
    bounces: int
    # What of each digest they asked for (newsletter/publish/slices.py).
    slice: Slice = Slice()


def get(store: Store, address: str) -> Subscriber | None:
    row = store.db.execute(f"SELECT {_COLUMNS} FROM subscribers WHERE address = ?", (address.lower(),)).fetchone()
    return _subscriber(row) if row else None


def by_id(store: Store, subscriber_id: int) -> Subscriber | None:
    row = store.db.execute(f"SELECT {_COLUMNS} FROM subscribers WHERE id = ?", (subscriber_id,)).fetchone()
    return _subscriber(row) if row else None


def every(store: Store) -> list[Subscriber]:
    return [_subscriber(row) for row in store.db.execute(f"SELECT {_COLUMNS} FROM subscribers ORDER BY address")]


def ensure_listed(store: Store, addresses: Iterable[str], now: datetime) -> None:
    """Give each address of the operator's config a row, unless it has one. An existing row
    is left as it is: listing an address again never resubscribes it."""
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO subscribers (address, status, since, how, origin)"
            " VALUES (?, 'active', ?, 'listed in the config', 'config') ON CONFLICT DO NOTHING",
            ((address.lower(), now.isoformat()) for address in addresses),
        )


def recipients(store: Store, listed: Iterable[str]) -> dict[str, int]:
    """Who a digest goes to, with their ids: the config's addresses (given a row by
    `ensure_listed`) that have not left the list, then those who subscribed here (confirmed
    sign-ups, the operator's additions)."""
    rows = {address: (subscriber_id, status, origin) for subscriber_id, address, status, origin in store.db.execute(
        "SELECT id, address, status, origin FROM subscribers")}
    chosen = {key: rows[key][0] for key in (a.lower() for a in listed) if rows[key][1] not in SUPPRESSED}
    joined = {address: row[0] for address, row in sorted(rows.items()) if row[1] == "active" and row[2] != "config"}
    return chosen | {key: i for key, i in joined.items() if key not in chosen}


def slices(store: Store) -> dict[int, Slice]:
    """The slice of each subscriber who asked for one, by id."""
    return {subscriber_id: Slice.from_json(chosen)
            for subscriber_id, chosen in store.db.execute("SELECT id, slice FROM subscribers WHERE slice IS NOT NULL")}


def set_slice(store: Store, subscriber_id: int, chosen: Slice) -> None:
    """Give the subscriber `chosen` from the next message on; asking for everything clears it."""
    with store.transaction() as db:
        db.execute("UPDATE subscribers SET slice = ? WHERE id = ?",
                   (None if chosen.everything else chosen.to_json(), subscriber_id))


def add(store: Store, address: str, how: str, now: datetime) -> tuple[Subscriber, bool]:
    """Make `address` active by the operator's hand; returns its row and whether it changed.
    Someone who unsubscribed or complained is left as they are: only they can come back,
    by signing up."""
    key = address.lower()
    with store.transaction() as db:
        changed = db.execute(
            "INSERT INTO subscribers (address, status, since, how, origin) VALUES (?, 'active', ?, ?, 'operator')"
            " ON CONFLICT (address) DO UPDATE SET status = 'active', since = excluded.since, how = excluded.how,"
            " origin = 'operator', requested = NULL, bounces = 0"
            " WHERE subscribers.status IN ('unconfirmed', 'bounced')"
            " OR (subscribers.status = 'active' AND subscribers.origin = 'config')",
            (key, now.isoformat(), how),
        ).rowcount == 1
    subscriber = get(store, key)
    assert subscriber is not None  # inserted or present
    return subscriber, changed


def import_addresses(store: Store, addresses: Iterable[str], how: str, now: datetime) -> list[str]:
    """Subscribe each address that has no row yet, without confirmation; returns those. A
    known address keeps its status, whatever it is: re-importing a file resubscribes no one.
    One active only through the config becomes the operator's, so it stays when the config
    stops listing it."""
    keys = list(dict.fromkeys(a.lower() for a in addresses))
    with store.transaction() as db:
        known = {row[0] for row in db.execute("SELECT address FROM subscribers")}
        db.executemany(
            "INSERT INTO subscribers (address, status, since, how, origin) VALUES (?, 'active', ?, ?, 'operator')"
            " ON CONFLICT (address) DO UPDATE SET origin = 'operator'"
            " WHERE subscribers.status = 'active' AND subscribers.origin = 'config'",
            ((key, now.isoformat(), how) for key in keys),
        )
    return [key for key in keys if key not in known]


def set_status(store: Store, subscriber_id: int, status: SubscriberStatus, how: str, now: datetime) -> bool:
    """Move a subscriber to `status`; False if they stood there already (the first change
    keeps its time and reason)."""
    with store.transaction() as db:
        return db.execute(
            "UPDATE subscribers SET status = ?, since = ?, how = ?, requested = NULL WHERE id = ? AND status != ?",
            (status, now.isoformat(), how, subscriber_id, status),
        ).rowcount == 1


def request_sign_up(store: Store, address: str, now: datetime, message_id: str) -> Subscriber | None:
    """Record a sign-up awaiting confirmation and queue its confirmation message, named
    `message_id`, in the same transaction; returns the row, or None when no message is to
    be sent (subscribed of their own accord or by the operator, or a link was sent a moment
    ago). Someone active only through the config is asked to confirm: the config may stop
    listing them."""
    key = address.lower()
    current = get(store, key)
    joined = current is not None and current.status == "active" and current.origin != "config"
    if joined or (current and current.requested and now - current.requested < RESEND_AFTER
                  and _confirmation_state(store, current) not in ("failed", "deferred")):
        return None
    with store.transaction() as db:
        # An existing row keeps its status until the link is followed: a sign-up by a
        # stranger must not change how the owner of the address stands.
        db.execute(
            "INSERT INTO subscribers (address, status, since, how, origin, requested)"
            " VALUES (?, 'unconfirmed', ?, 'signed up', 'sign-up', ?)"
            " ON CONFLICT (address) DO UPDATE SET requested = excluded.requested",
            (key, now.isoformat(), now.isoformat()),
        )
        db.execute(
            "INSERT INTO confirmations (subscriber_id, requested, message_id, state, updated)"
            " SELECT id, requested, ?, 'queued', ? FROM subscribers WHERE address = ?",
            (message_id, now.isoformat(), key),
        )
    return get(store, key)


def _confirmation_state(store: Store, subscriber: Subscriber) -> OutboxState | None:
    """How the confirmation of the subscriber's pending sign-up went, so far."""
    assert subscriber.requested is not None
    row = store.db.execute("SELECT state FROM confirmations WHERE subscriber_id = ? AND requested = ?",
                           (subscriber.id, subscriber.requested.isoformat())).fetchone()
    return row[0] if row else None


def confirm(store: Store, subscriber: Subscriber, now: datetime) -> bool:
    """Make the sign-up pending for `subscriber` active; False if it is no longer pending
    (confirmed already, or asked for again since)."""
    if subscriber.requested is None:
        return False
    with store.transaction() as db:
        return db.execute(
            "UPDATE subscribers SET status = 'active', since = ?, how = 'confirmed sign-up', origin = 'sign-up',"
            " requested = NULL, bounces = 0 WHERE id = ? AND requested = ?",
            (now.isoformat(), subscriber.id, subscriber.requested.isoformat()),
        ).rowcount == 1


# -- the outbox's side ------------------------------------------------------------


def claim(store: Store, digest_id: int, recipient: str, now: datetime, sender: str) -> SubscriberStatus | Taken | None:
    """Just before a message is handed over: mark it pending, or, if its address has left
    the list, dropped, returning the status that stopped it; "taken", leaving it as it is, if
    `sender` no longer holds it, or holds it on a lease about to run out (a renewal is
    overdue: state/outbox_claims.py). One transaction, so an unsubscribe committed before it
    is always seen."""
    with store.transaction() as db:
        # Locked on PostgreSQL: an unsubscribe waits for this claim, and then finds the
        # message pending (being_sent), as it does on SQLite.
        row = db.execute(f"SELECT status FROM subscribers WHERE address = ?{db.dialect.for_update}",
                         (recipient,)).fetchone()
        status: SubscriberStatus | None = row[0] if row and row[0] in SUPPRESSED else None
        if not write_outbox_state(db, digest_id, recipient, "dropped" if status else "pending", now, status,
                                  holder=sender, leased_past=outbox_claims.must_hold_past(now)):
            return "taken"
    return status


Recorded = Literal["recorded", "bounced", "taken"]


def record_delivery(
    store: Store, digest_id: int, recipient: str, state: OutboxState, answer: str | None,
    bounce_limit: int, now: datetime, sender: str,
) -> Recorded:
    """Record how handing a message over went, and count a permanent refusal towards the
    address's bounce limit (a delivery resets the count): "bounced" if the address is now
    bounced; "taken", recording nothing, if `sender` lost the pending row meanwhile (its
    lease lapsed and another sender took it, which may be handing it over too)."""
    with store.transaction() as db:
        if not write_outbox_state(db, digest_id, recipient, state, now, answer, holder=sender, was="pending"):
            return "taken"
        if state != "failed":
            db.execute("UPDATE subscribers SET bounces = 0 WHERE address = ? AND bounces > 0", (recipient,))
            return "recorded"
        db.execute("UPDATE subscribers SET bounces = bounces + 1 WHERE address = ?", (recipient,))
        bounced = db.execute(
            "UPDATE subscribers SET status = 'bounced', since = ?, how = ? WHERE address = ? AND bounces >= ?"
            " AND status = 'active'",
            (now.isoformat(), f"{bounce_limit} refusals in a row, the last: {answer}", recipient, bounce_limit),
        ).rowcount == 1
    return "bounced" if bounced else "recorded"


@dataclass(frozen=True)
class Confirmation:
    """A confirmation message still to be handed to the server."""

    subscriber_id: int
    address: str
    # The sign-up it confirms: its link is bound to this moment.
    requested: datetime
    message_id: str
    # "pending" when a run stopped while handing it over.
    state: OutboxState


def confirmations_due(
    store: Store, now: datetime, valid_for: timedelta, subscriber_id: int | None = None,
) -> list[Confirmation]:
    """The confirmations to send now (of one subscriber, or of all), oldest first, but for
    one being handed over this very moment by another process (pending for less than
    IN_FLIGHT). Those whose sign-up was confirmed, asked for again since, or asked for
    longer ago than `valid_for` are dropped: their link would not work."""
    with store.transaction() as db:
        db.execute(
            f"UPDATE confirmations SET state = 'dropped', updated = ?, error = 'the sign-up is no longer pending'"
            f" WHERE state IN {UNFINISHED} AND (requested < ? OR NOT EXISTS (SELECT 1 FROM subscribers"
            f" WHERE subscribers.id = confirmations.subscriber_id"
            f" AND subscribers.requested = confirmations.requested))",
            (now.isoformat(), (now - valid_for).isoformat()),
        )
        of_one = "" if subscriber_id is None else f" AND subscriber_id = {int(subscriber_id)}"
        rows = db.execute(
            f"SELECT subscriber_id, address, confirmations.requested, message_id, state FROM confirmations"
            f" JOIN subscribers ON subscribers.id = subscriber_id WHERE state IN {UNFINISHED}"
            f" AND NOT (state = 'pending' AND confirmations.updated > ?){of_one} ORDER BY confirmations.requested",
            ((now - IN_FLIGHT).isoformat(),),
        ).fetchall()
    return [Confirmation(subscriber, address, datetime.fromisoformat(requested), message_id, state)
            for subscriber, address, requested, message_id, state in rows]


def claim_confirmation(store: Store, confirmation: Confirmation, now: datetime) -> bool:
    """Mark a confirmation pending just before it is handed over; False if another process
    (the web service and a send may both be at it) changed it since it was read."""
    with store.transaction() as db:
        return db.execute(
            "UPDATE confirmations SET state = 'pending', updated = ?, attempts = attempts + 1"
            " WHERE subscriber_id = ? AND requested = ? AND state = ?",
            (now.isoformat(), confirmation.subscriber_id, confirmation.requested.isoformat(), confirmation.state),
        ).rowcount == 1


def record_confirmation(
    store: Store, confirmation: Confirmation, state: OutboxState, now: datetime, answer: str | None = None,
) -> None:
    """Record how handing a confirmation over went: sent, failed or deferred."""
    with store.transaction() as db:
        db.execute(
            "UPDATE confirmations SET state = ?, updated = ?, error = ? WHERE subscriber_id = ? AND requested = ?",
            (state, now.isoformat(), answer, confirmation.subscriber_id, confirmation.requested.isoformat()),
        )


def being_sent(store: Store, address: str, since: datetime) -> bool:
    """Whether a message to `address` is being handed to the server right now: pending,
    and marked so after `since` (an older pending row is a run that was killed)."""
    row = store.db.execute(
        "SELECT 1 FROM outbox WHERE recipient = ? AND state = 'pending' AND updated >= ? LIMIT 1",
        (address.lower(), since.isoformat()),
    ).fetchone()
    return row is not None


def _subscriber(row: tuple) -> Subscriber:
    subscriber_id, address, status, since, how, origin, requested, bounces, chosen = row
    return Subscriber(
        id=subscriber_id, address=address, status=status, since=datetime.fromisoformat(since), how=how,
        origin=origin, requested=datetime.fromisoformat(requested) if requested else None, bounces=bounces,
        slice=Slice.from_json(chosen),
    )
