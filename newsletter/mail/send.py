"""Mail the newest digest to every subscriber, each exactly once, over email.connections
SMTP sessions at once (newsletter/mail/lanes.py).

The digest is the copy the build rendered for mail and kept in the state database (a
snapshot: a post edited later does not change a digest half-way through its mailing),
encoded once per run (newsletter/mail/message.py) and addressed to each subscriber.

Exactly once rests on the outbox table of the state database. Before a message is handed to
the server its row is committed as `pending`; right after the server's 250 it is committed as
`sent`. A run that starts again skips what is `sent` and sends the rest. One window cannot be
closed: a message the server stored whose 250 never reached the `sent` commit (the process
killed after the message was sent, or the connection lost before the server's answer) stays
`pending`. The window is as wide as the server's own work between receiving the message and
answering it (docs/RELIABILITY.md gives a measured figure). Such a message is not sent again
in the same run; the next run sends it again with the same Message-ID, which receiving
servers and mail clients use to drop the repeat, and logs it as a possible repeat. With
several sessions, each may have one message in that window.

Who gets the digest is the config's subscribers plus those who joined through the web service
or the operator's command, less everyone who left the list (newsletter/state/subscribers.py).
The status is checked again in the transaction that marks each message pending, so an
unsubscribe that lands half-way through a mailing stops the messages not yet handed over.

Each subscriber gets their slice of the digest (newsletter/mail/copies.py): one copy is
rendered per distinct slice, not per subscriber. One whose slice holds nothing this time gets
no message; their outbox row ends `empty`, so no later run tries again.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from email.headerregistry import Address
from pathlib import Path
from typing import NamedTuple
from urllib.parse import quote, urlsplit

from newsletter.config import Config, EmailConfig, StateLocation
from newsletter.errors import MailError
from newsletter.mail import tokens
from newsletter.mail.confirm import send_confirmations
from newsletter.mail.copies import DigestCopies, build_copy
from newsletter.mail.lanes import in_lanes
from newsletter.mail.message import DigestMessage
from newsletter.mail.smtp import RETRY_DELAYS, Connection, deliver
from newsletter.models import DigestHead
from newsletter.publish.output import write_atomic
from newsletter.state import digest_copies, lock
from newsletter.state import subscribers as subscriber_list
from newsletter.state.store import UNFINISHED, OutboxRow, Store
from newsletter.words import count

log = logging.getLogger(__name__)



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
class SendReport:
    mailings: tuple[DigestMailing, ...]
    # The run was asked to stop and left the rest for the next one.
    interrupted: bool = False
    # Sign-up confirmations the web service could not hand over when they were asked for:
    # (sent now, still not sent).
    confirmations: tuple[int, int] = (0, 0)


@dataclass
class _Tally:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    possible_repeats: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    bounced: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)


def send(
    config: Config, *, sleep: Callable[[float], object] = time.sleep,
    should_stop: Callable[[], bool] = lambda: False,
) -> SendReport:
    """Mail every digest whose mailing is unfinished, then the newest digest, to every
    subscriber not yet served. `should_stop` is asked between messages. Raises LockedError
    at once if another run uses the same state database."""
    email = _email(config)
    password = smtp_password(email)
    links = _Links(config)
    with lock.state(config.state, "send"):
        connection = Connection(email, password)
        mailings = []
        try:
            with Store.open(config.state) as store:
                confirmations = (0, 0)
                if config.web:  # sign-ups come only through the web service
                    confirmations = send_confirmations(config, store, connection, _utcnow(), sleep=sleep,
                                                       delays=RETRY_DELAYS)
                for head in store.digests_to_mail():
                    mailing, interrupted = _mail_digest(config, store, head, connection, links, sleep, should_stop)
                    mailings.append(mailing)
                    if interrupted:
                        return SendReport(tuple(mailings), interrupted=True, confirmations=confirmations)
                digest_copies.forget_slice_copies(store, [head.id for head in store.digests_to_mail()])
        finally:
            connection.close()
    return SendReport(tuple(mailings), confirmations=confirmations)


def send_test(config: Config, address: Address) -> str:
    """Mail the newest digest to `address` alone, its subject marked as a test, outside the
    outbox: nothing is recorded and no subscriber's mailing changes. Returns its name."""
    email = _email(config)
    password = smtp_password(email)
    with Store.open(config.state) as store:
        heads = store.digest_heads()
        if not heads:
            raise MailError(f"{config.state}: no digest yet: run `newsletter build` first")
        head = heads[-1]
        rendered = build_copy(store, head)
    encoded = DigestMessage(replace(rendered, subject=f"[test] {rendered.subject}"), email.sender, head.created)
    # A Message-ID of its own each time: a mail client would drop a second test as a repeat.
    data = encoded.to(address, f"<{head.name}.test-{secrets.token_hex(8)}@{email.sender.domain}>",
                      unsubscribe=config.site.url, list_unsubscribe=[], one_click=False, preferences=config.site.url)
    connection = Connection(email, password)
    try:
        state, answer = deliver(connection, email.sender.addr_spec, address.addr_spec, data, time.sleep)
    finally:
        connection.close()
    if answer is not None:
        raise MailError(f"{address.addr_spec}: {'refused' if state == 'failed' else 'deferred'}: {answer}")
    return head.name


def describe(report: SendReport) -> str:
    """What a send did, in one line."""
    parts = [
        f"digest {m.digest} {m.skipped}" if m.skipped else
        f"digest {m.digest}: {len(m.sent)} sent, {len(m.failed)} refused, {len(m.deferred)} deferred"
        + (f", {len(m.dropped)} left the list meanwhile" if m.dropped else "")
        + (f", {len(m.bounced)} now marked bounced" if m.bounced else "")
        + (f", {len(m.empty)} with nothing in their slice" if m.empty else "")
        for m in report.mailings
    ] or ["no digest to mail"]
    sent, unsent = report.confirmations
    if sent or unsent:
        parts.append(f"{count(sent, 'sign-up confirmation')} sent" + (f", {unsent} not" if unsent else ""))
    stopped = "; stopped early, the rest goes out with the next send" if report.interrupted else ""
    return "; ".join(parts) + stopped


def write_dry_run(config: Config, folder: Path) -> list[Path]:
    """Write each message `send` would mail now as `<folder>/<digest>/<address>.eml`, and
    record nothing of a mailing (the config's addresses do get their subscriber rows, which
    their links name). Without [email], to the subscribers of the state database, from and
    unsubscribing at stand-in addresses (see `stand_in_email`)."""
    email = config.email or stand_in_email(config)
    links = _Links(config)
    if folder.resolve().is_relative_to(config.archive_dir.resolve()):
        raise MailError(f"{folder}: inside archive.dir, which is published: the messages carry every"
                        " subscriber's address; write them elsewhere")
    written = []
    with Store.open(config.state) as store:
        for head in store.digests_to_mail():
            if _skip_reason(email, head):
                continue
            outbox = store.outbox(head.id)
            recipients = [r for key, r in _recipients(email, store).items() if _due(outbox.get(key))]
            if not recipients:
                continue
            copies, key = DigestCopies(config, store, head, email.sender), store.message_key()
            for recipient in recipients:
                encoded = copies.message_for(recipient.id)
                if encoded is None:
                    continue
                path = folder / head.name / _dry_run_name(recipient.address)
                write_atomic(path, _message(email, encoded, key, head, recipient, links))
                written.append(path)
    return written


def messages_left(config: Config) -> int:
    """How many messages of the mailings begun wait for a later send."""
    if not Store.exists(config.state):
        return 0
    with Store.open(config.state) as store:
        return sum(row.state in UNFINISHED
                   for head in store.digests_to_mail() for row in store.outbox(head.id).values())


def stand_in_email(config: Config) -> EmailConfig:
    """What a dry run addresses messages from while [email] is not written yet: the site's
    title at its host, which the messages' sender and unsubscribe mailbox are made of."""
    host = urlsplit(config.site.url).hostname or "localhost"
    return EmailConfig(
        host="localhost", port=25, security="none", username=None, password_env=None,
        sender=Address(config.site.title, "newsletter", host), subscribers=(),
        unsubscribe_mailto=f"unsubscribe@{host}", unsubscribe_url=None, send_empty=False,
    )


def message_id(email: EmailConfig, key: bytes, head: DigestHead, recipient: Address) -> str:
    """The same for the same digest and recipient in every run; without `key`, which the
    state database keeps, it cannot be used to test a guessed address."""
    token = hmac.new(key, f"{head.name}\n{recipient_key(recipient)}".encode(), hashlib.sha256).hexdigest()[:24]
    return f"<{head.name}.{token}@{email.sender.domain}>"


def recipient_key(address: Address) -> str:
    """How the outbox names a subscriber: the bare address, in lower case."""
    return address.addr_spec.lower()


# -- one digest ---------------------------------------------------------------


def _mail_digest(
    config: Config, store: Store, head: DigestHead, connection: Connection, links: _Links,
    sleep: Callable[[float], object], should_stop: Callable[[], bool],
) -> tuple[DigestMailing, bool]:
    email = _email(config)
    store.start_mailing(head.id, _utcnow())
    reason = _skip_reason(email, head)
    if reason:
        log.info("digest %s: %s", head.name, reason)
        return DigestMailing(head.name, skipped=reason), False
    subscribers = _recipients(email, store)
    outbox = store.outbox(head.id)
    for key, row in outbox.items():
        if key not in subscribers and row.state in UNFINISHED:
            store.set_outbox_state(head.id, key, "dropped", _utcnow(), "no longer a subscriber")
    due = [key for key in subscribers if _due(outbox.get(key))]
    if not due:
        return DigestMailing(head.name, skipped="already mailed to every subscriber"), False
    copies, secret = DigestCopies(config, store, head, email.sender), store.message_key()
    new = {key: message_id(email, secret, head, subscribers[key].address) for key in due if key not in outbox}
    if new:
        store.queue_mailing(head.id, new, _utcnow())

    log.info("digest %s: mailing %s", head.name, count(len(due), "subscriber"))
    # Every copy is read or rendered here, in the thread that holds the state database:
    # the connections' threads only address them.
    messages = {key: copies.message_for(subscribers[key].id) for key in due}
    mailing = _Mailing(email, head, messages, secret, links, subscribers, outbox, sleep)

    def open_lane(number: int) -> AbstractContextManager[tuple[Store, Connection]]:
        if number == 0:
            return nullcontext((store, connection))
        return _own_lane(config.state, Connection(connection.email, connection.password))

    interrupted = in_lanes(due, email.connections, open_lane, lambda lane, key: _mail_one(mailing, *lane, key),
                           should_stop)
    if interrupted:
        tally = mailing.tally
        handled = len(tally.sent) + len(tally.failed) + len(tally.deferred) + len(tally.dropped) + len(tally.empty)
        unsent = len(due) - handled
        log.info("digest %s: stopping; %s left for the next run", head.name, count(unsent, "message"))
    return _mailing(head, mailing.tally, due), interrupted


@dataclass
class _Mailing:
    """What every message of one digest's mailing is made from, and what became of each."""

    email: EmailConfig
    head: DigestHead
    # Each subscriber's copy of the digest; None when their slice holds nothing.
    messages: dict[str, DigestMessage | None]
    secret: bytes
    links: _Links
    subscribers: dict[str, _Recipient]
    # The outbox as the mailing began.
    outbox: dict[str, OutboxRow]
    sleep: Callable[[float], object]
    tally: _Tally = field(default_factory=_Tally)


@contextmanager
def _own_lane(state: StateLocation, connection: Connection) -> Iterator[tuple[Store, Connection]]:
    """A lane's own state-database connection and SMTP session."""
    try:
        with Store.open(state) as store:
            yield store, connection
    finally:
        connection.close()


def _mail_one(mailing: _Mailing, store: Store, connection: Connection, key: str) -> None:
    """Claim, hand over and record one subscriber's message."""
    email, head, tally, outbox = mailing.email, mailing.head, mailing.tally, mailing.outbox
    recipient = mailing.subscribers[key]
    encoded = mailing.messages[key]
    if encoded is None:
        store.set_outbox_state(head.id, key, "empty", _utcnow(), "nothing in their slice")
        tally.empty.append(key)
        return
    # Rendered first, so that nothing but the hand-over lies between the check and the server.
    data = _message(email, encoded, mailing.secret, head, recipient, mailing.links)
    left = subscriber_list.claim(store, head.id, key, _utcnow())
    if left:
        log.info("%s: %s since the mailing began; not sent", key, left)
        tally.dropped.append(key)
        return
    if key in outbox and outbox[key].state == "pending":
        log.warning("%s: the last run stopped while sending it digest %s; sending it again"
                    " with the same Message-ID %s", key, head.name, outbox[key].message_id)
        tally.possible_repeats.append(key)
    try:
        state, answer = deliver(connection, email.sender.addr_spec, recipient.address.addr_spec, data, mailing.sleep)
    except MailError as exc:
        store.set_outbox_state(head.id, key, "deferred", _utcnow(), str(exc))
        raise
    if state == "unconfirmed":
        # Left pending: the next send sends it again, with the same Message-ID, as a
        # possible repeat; sending it again now would make a copy for every retry.
        log.warning("%s: %s; it may have arrived: not sent again in this run", key, answer)
        tally.deferred.append((key, str(answer)))
        return
    if subscriber_list.record_delivery(store, head.id, key, state, answer, email.bounce_limit, _utcnow()):
        log.warning("%s: refused %d times in a row: marked bounced, mailed no more", key, email.bounce_limit)
        tally.bounced.append(key)
    if answer is None:
        tally.sent.append(key)
    else:
        log.warning("%s: %s: %s", key, "refused" if state == "failed" else "deferred", answer)
        (tally.failed if state == "failed" else tally.deferred).append((key, answer))


def _mailing(head: DigestHead, tally: _Tally, due: list[str]) -> DigestMailing:
    """The tally in the order of the subscribers, however the connections shared them out."""
    place = {key: n for n, key in enumerate(due)}

    def ordered(items: list) -> tuple:
        return tuple(sorted(items, key=lambda item: place[item if isinstance(item, str) else item[0]]))

    return DigestMailing(
        head.name, sent=ordered(tally.sent), failed=ordered(tally.failed), deferred=ordered(tally.deferred),
        possible_repeats=ordered(tally.possible_repeats), dropped=ordered(tally.dropped),
        bounced=ordered(tally.bounced), empty=ordered(tally.empty),
    )


def _skip_reason(email: EmailConfig, head: DigestHead) -> str | None:
    if head.entry_count == 0 and not email.send_empty:
        return "carries no posts: not mailed (email.send_empty = false)"
    return None


def _due(row: OutboxRow | None) -> bool:
    return row is None or row.state in UNFINISHED


class _Recipient(NamedTuple):
    address: Address
    # Their row in the subscribers table, which their signed links name.
    id: int


def _recipients(email: EmailConfig, store: Store) -> dict[str, _Recipient]:
    """Who is to get a digest, by outbox key: the config's addresses that have not left the
    list, then those who joined through sign-up or the operator's command."""
    listed = {recipient_key(a): a for a in email.subscribers}
    subscriber_list.ensure_listed(store, listed, _utcnow())
    return {key: _Recipient(listed.get(key) or Address(addr_spec=key), subscriber_id)
            for key, subscriber_id in subscriber_list.recipients(store, listed).items()}


class _Links:
    """Each recipient's https unsubscribe address: a signed link to the service with [web],
    else email.unsubscribe_url with the address."""

    def __init__(self, config: Config):
        self.config = config
        self.signer = tokens.signer(config.web) if config.web else None

    def unsubscribe(self, email: EmailConfig, recipient: _Recipient) -> str | None:
        key = recipient_key(recipient.address)
        if self.signer:
            return tokens.link(self.config, "unsubscribe", self.signer.sign("unsubscribe", recipient.id, key))
        if email.unsubscribe_url:
            joiner = "&" if "?" in email.unsubscribe_url else "?"
            return f"{email.unsubscribe_url}{joiner}address={quote(key, safe='@')}"
        return None

    def preferences(self, recipient: _Recipient) -> str | None:
        """The signed link to the service's preferences page; None without [web]."""
        if not self.signer:
            return None
        token = self.signer.sign("preferences", recipient.id, recipient_key(recipient.address))
        return tokens.link(self.config, "preferences", token)


def _message(email: EmailConfig, encoded: DigestMessage, key: bytes, head: DigestHead, recipient: _Recipient,
             links: _Links) -> bytes:
    page = links.unsubscribe(email, recipient)
    mailbox = f"mailto:{email.unsubscribe_mailto}?subject=unsubscribe" if email.unsubscribe_mailto else None
    uris = [uri for uri in (mailbox, page) if uri]
    # The footer links to the one-click page if there is one, else to the mailbox.
    return encoded.to(recipient.address, message_id(email, key, head, recipient.address), unsubscribe=uris[-1],
                      list_unsubscribe=uris, one_click=page is not None, preferences=links.preferences(recipient))


# -- config -----------------------------------------------------------------------


def _email(config: Config) -> EmailConfig:
    if config.email is None:
        raise MailError(f"{config.path}: no [email] section: nowhere to send from")
    return config.email


def smtp_password(email: EmailConfig) -> str | None:
    if not email.password_env:
        return None
    password = os.environ.get(email.password_env)
    if password is None:
        # Not named: a password put in password_env by mistake would be printed.
        raise MailError("the environment variable that email.password_env names, which holds the SMTP"
                        " password, is not set")
    return password


def _utcnow() -> datetime:
    return datetime.now(UTC)


# Characters kept in the name of a dry-run file; others become "_".
_SAFE_NAME = re.compile(r"[^A-Za-z0-9@._+-]")


def _dry_run_name(address: Address) -> str:
    """`<address>.eml`; an address that needed characters replaced gets a hash of itself
    too, so two addresses never share a file."""
    key = recipient_key(address)
    safe = _SAFE_NAME.sub("_", key)
    return f"{safe}.eml" if safe == key else f"{safe}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.eml"
