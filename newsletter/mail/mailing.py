"""One digest's mailing by one sender, which may share it with others (several `newsletter
send` processes or workers on a PostgreSQL state).

The sender claims the digest's due rows of the outbox in batches (state/outbox_claims.py),
works each batch over its SMTP connections (newsletter/mail/lanes.py), and claims the next,
until no row is left that it may send. While another sender holds queued rows it may yet leave
(it can be killed), this one waits, and takes them once that sender's lease runs out. Each
message goes through the steps newsletter/mail/send.py describes: marked pending (only if
this sender still holds it) right before the hand-over, sent after the server's 250. Every
write of a row is the holder's only: a sender that froze past its lease and finds its row
taken on waking records nothing over the new holder's work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime

from newsletter.config import Config, EmailConfig
from newsletter.errors import MailError
from newsletter.mail.addressing import Links, Recipient, addressed, due, message_id, recipients, skip_reason
from newsletter.mail.copies import DigestCopies
from newsletter.mail.lanes import in_lanes
from newsletter.mail.message import DigestMessage
from newsletter.mail.smtp import Connection, deliver
from newsletter.models import DigestHead
from newsletter.state import outbox_claims
from newsletter.state import subscribers as subscriber_list
from newsletter.state.outbox_claims import Claimed
from newsletter.state.store import UNFINISHED, Store
from newsletter.words import count

log = logging.getLogger(__name__)

# Seconds between two looks at rows another sender holds: it sends them within a message's
# time, or leaves them when its lease runs out (outbox_claims.LEASE), and a look is one query.
WAIT_FOR_OTHERS = 1.0


@dataclass(frozen=True)
class DigestMailing:
    """What one `send` did with one digest."""

    digest: str
    sent: tuple[str, ...] = ()
    # Refused for good (5xx): (address, the server's answer). Not tried again.
    failed: tuple[tuple[str, str], ...] = ()
    # Still failing temporarily after every retry: tried again by the next `send`.
    deferred: tuple[tuple[str, str], ...] = ()
    # Sent again because a previous run stopped while handing them to the server.
    possible_repeats: tuple[str, ...] = ()
    # Not sent: the address left the list (unsubscribed, bounced, complained) meanwhile.
    dropped: tuple[str, ...] = ()
    # Refused once too often (email.bounce_limit): marked bounced, mailed no more.
    bounced: tuple[str, ...] = ()
    # Not sent: their slice of the digest held nothing.
    empty: tuple[str, ...] = ()
    # Why nothing was sent, when nothing was to be sent.
    skipped: str | None = None


@dataclass(frozen=True)
class Sender:
    """What every mailing of one sending run shares."""

    config: Config
    email: EmailConfig
    # One per lane (email.connections); the first is used in the calling thread.
    connections: Sequence[Connection]
    links: Links
    sleep: Callable[[float], object]
    should_stop: Callable[[], bool]
    # This run's name on the rows it claims.
    name: str
    # No other sender can be alive (the state's lock file is held): outbox_claims.claim_batch.
    alone: bool
    # Called when rows wait that no sender holds, or will once a lease runs out.
    on_unclaimed: outbox_claims.Unclaimed


def mail_digest(sender: Sender, store: Store, head: DigestHead) -> tuple[DigestMailing, bool]:
    """Mail the digest to each subscriber it is due to, sharing the work with any other
    sender; True as well if asked to stop before the end."""
    email = sender.email
    store.start_mailing(head.id, _utcnow())
    reason = skip_reason(email, head)
    if reason:
        log.info("digest %s: %s", head.name, reason)
        return DigestMailing(head.name, skipped=reason), False
    subscribers = recipients(email, store)
    outbox = store.outbox(head.id)
    unknown = [key for key, row in outbox.items() if row.state in UNFINISHED and key not in subscribers]
    if unknown:
        # Read again after the outbox: whoever another sender queued had joined before it did.
        subscribers = recipients(email, store)
    for key in unknown:
        if key not in subscribers:
            outbox_claims.drop_unheld(store, head.id, key, sender.name, _utcnow(), "no longer a subscriber")
    owed = [key for key in subscribers if due(outbox.get(key))]
    if not owed:
        return DigestMailing(head.name, skipped="already mailed to every subscriber"), False
    secret = store.message_key()
    new = {key: message_id(email, secret, head, subscribers[key].address) for key in owed if key not in outbox}
    if new:
        store.queue_mailing(head.id, new, _utcnow())

    log.info("digest %s: mailing %s", head.name, count(len(owed), "subscriber"))
    mailing = _Mailing(sender, head, DigestCopies(sender.config, store, head, email.sender), secret, subscribers,
                       {key: n for n, key in enumerate(owed)})
    with outbox_claims.kept(lambda: Store.open(sender.config.state), head.id, sender.name) as lease:
        try:
            interrupted = _mail_batches(mailing, store, lambda: sender.should_stop() or lease.lapsing())
        finally:
            outbox_claims.release(store, head.id, sender.name)
        lapse = None if interrupted else outbox_claims.next_lapse(store, head.id, sender.name)
        if lapse:
            sender.on_unclaimed(lapse)
    if interrupted and lease.lapsing():
        log.warning("digest %s: the claims on the outbox could not be renewed for a while; stopping rather"
                    " than mail on claims other senders may take", head.name)
    if interrupted:
        unsent = sum(row.state in UNFINISHED for row in store.outbox(head.id).values())
        log.info("digest %s: stopping; %s left for the next run", head.name, count(unsent, "message"))
    return mailing.report(), interrupted


@dataclass
class _Tally:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    possible_repeats: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    bounced: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)


@dataclass
class _Mailing:
    """What every message of one digest's mailing is made from, and what became of each."""

    sender: Sender
    head: DigestHead
    copies: DigestCopies
    secret: bytes
    subscribers: dict[str, Recipient]
    # Where each subscriber stood in the list as the mailing began: the report's order.
    place: dict[str, int]
    # The copy of each subscriber claimed so far; None when their slice holds nothing.
    messages: dict[str, DigestMessage | None] = field(default_factory=dict)
    # Claimed as left pending by a sender that stopped while handing them over.
    repeats: set[str] = field(default_factory=set)
    tally: _Tally = field(default_factory=_Tally)

    def take(self, store: Store, batch: list[Claimed]) -> list[str]:
        """Make the messages of a batch just claimed; returns its subscribers in list order.
        Every copy is read or rendered here, in the thread that holds the state database:
        the connections' threads only address them."""
        if any(claimed.recipient not in self.subscribers for claimed in batch):
            self.subscribers = recipients(self.sender.email, store)  # queued by a sender that started later
        keys = []
        for claimed in batch:
            key = claimed.recipient
            if key not in self.subscribers:
                store.set_outbox_state(self.head.id, key, "dropped", _utcnow(), "no longer a subscriber",
                                       holder=self.sender.name)
                continue
            if claimed.state == "pending":
                self.repeats.add(key)
            self.messages[key] = self.copies.message_for(self.subscribers[key].id)
            keys.append(key)
        return sorted(keys, key=self._position)

    def report(self) -> DigestMailing:
        """The tally in the order of the subscribers, however the connections shared them out."""
        tally = self.tally

        def ordered(items: list) -> tuple:
            return tuple(sorted(items, key=lambda item: self._position(item if isinstance(item, str) else item[0])))

        return DigestMailing(
            self.head.name, sent=ordered(tally.sent), failed=ordered(tally.failed),
            deferred=ordered(tally.deferred), possible_repeats=ordered(tally.possible_repeats),
            dropped=ordered(tally.dropped), bounced=ordered(tally.bounced), empty=ordered(tally.empty),
        )

    def _position(self, key: str) -> tuple[int, str]:
        return self.place.get(key, len(self.place)), key


def _mail_batches(mailing: _Mailing, store: Store, should_stop: Callable[[], bool]) -> bool:
    """Claim and mail batches until no row is left that this run may send; True if asked to
    stop first."""
    sender, head = mailing.sender, mailing.head

    def open_lane(number: int) -> AbstractContextManager[tuple[Store, Connection]]:
        return nullcontext((store, sender.connections[0])) if number == 0 else _own_lane(sender, number)

    waiting = False
    while not should_stop():
        batch = outbox_claims.claim_batch(store, head.id, sender.name, _utcnow(), alone=sender.alone)
        if not batch:
            if not outbox_claims.held_elsewhere(store, head.id, sender.name):
                return False
            if not waiting:
                log.info("digest %s: waiting while another sender holds messages (or until its claim lapses,"
                         " if it stopped)", head.name)
                waiting = True
            sender.sleep(WAIT_FOR_OTHERS)
            continue
        waiting = False
        if outbox_claims.unclaimed(store, head.id, _utcnow()):
            sender.on_unclaimed(_utcnow())
        keys = mailing.take(store, batch)
        if in_lanes(keys, len(sender.connections), open_lane, lambda lane, key: _mail_one(mailing, *lane, key),
                    should_stop):
            return True
    return True


@contextmanager
def _own_lane(sender: Sender, number: int) -> Iterator[tuple[Store, Connection]]:
    """A lane's own state-database connection, with its SMTP session."""
    with Store.open(sender.config.state) as store:
        yield store, sender.connections[number]


def _mail_one(mailing: _Mailing, store: Store, connection: Connection, key: str) -> None:
    """Mark pending, hand over and record one subscriber's message."""
    email, head, tally = mailing.sender.email, mailing.head, mailing.tally
    recipient = mailing.subscribers[key]
    encoded = mailing.messages[key]
    holder = mailing.sender.name
    if encoded is None:
        if store.set_outbox_state(head.id, key, "empty", _utcnow(), "nothing in their slice", holder=holder):
            tally.empty.append(key)
        return
    # Rendered first, so that nothing but the hand-over lies between the check and the server.
    data = addressed(email, encoded, mailing.secret, head, recipient, mailing.sender.links)
    left = subscriber_list.claim(store, head.id, key, _utcnow(), holder)
    if left == "taken":
        log.warning("%s: its claim lapsed and another sender took it; not sent here", key)
        return
    if left:
        log.info("%s: %s since the mailing began; not sent", key, left)
        tally.dropped.append(key)
        return
    if key in mailing.repeats:
        log.warning("%s: the last run stopped while sending it digest %s; sending it again"
                    " with the same Message-ID %s", key, head.name,
                    message_id(email, mailing.secret, head, recipient.address))
        tally.possible_repeats.append(key)
    try:
        state, answer = deliver(connection, email.sender.addr_spec, recipient.address.addr_spec, data,
                                mailing.sender.sleep)
    except MailError as exc:
        store.set_outbox_state(head.id, key, "deferred", _utcnow(), str(exc), holder=holder)
        raise
    if state == "unconfirmed":
        # Left pending: the next send sends it again, with the same Message-ID, as a
        # possible repeat; sending it again now would make a copy for every retry.
        log.warning("%s: %s; it may have arrived: not sent again in this run", key, answer)
        tally.deferred.append((key, str(answer)))
        return
    recorded = subscriber_list.record_delivery(store, head.id, key, state, answer, email.bounce_limit, _utcnow(),
                                               holder)
    if recorded == "taken":
        # The lease lapsed during the hand-over, and the sender that took the row may hand
        # it over too: the answer is its to record.
        if answer is None:
            log.warning("%s: its claim lapsed while it was handed over and another sender took it: a possible"
                        " repeat of digest %s, with the same Message-ID %s", key, head.name,
                        message_id(email, mailing.secret, head, recipient.address))
            if key not in mailing.repeats:  # else counted as one already
                tally.possible_repeats.append(key)
            tally.sent.append(key)
        else:
            log.warning("%s: %s; its claim lapsed meanwhile and another sender took it", key, answer)
        return
    if recorded == "bounced":
        log.warning("%s: refused %d times in a row: marked bounced, mailed no more", key, email.bounce_limit)
        tally.bounced.append(key)
    if answer is None:
        tally.sent.append(key)
    else:
        log.warning("%s: %s: %s", key, "refused" if state == "failed" else "deferred", answer)
        (tally.failed if state == "failed" else tally.deferred).append((key, answer))


def _utcnow() -> datetime:
    return datetime.now(UTC)
