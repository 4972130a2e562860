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

Several senders may share a mailing (newsletter/mail/mailing.py): each claims its messages in
batches before marking them pending, so none is in two senders' hands; the messages a killed
sender held go to another once its claim lapses, the one it was handing over as a possible
repeat, as above. Only a row's holder writes it, so a sender whose claim lapsed while it
was frozen overwrites nothing on waking. On a SQLite state one `send` runs at a time (the
state's lock file).

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
import logging
import os
import secrets
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.headerregistry import Address
from pathlib import Path
from urllib.parse import urlsplit

from newsletter import lazy_re
from newsletter.config import Config, EmailConfig
from newsletter.errors import MailError
from newsletter.mail.addressing import Links, addressed, due, message_id, recipient_key, recipients, skip_reason
from newsletter.mail.confirm import send_confirmations
from newsletter.mail.copies import DigestCopies, build_copy
from newsletter.mail.mailing import DigestMailing, Sender, mail_digest
from newsletter.mail.message import DigestMessage
from newsletter.mail.smtp import RETRY_DELAYS, Connection, deliver
from newsletter.publish.output import write_atomic
from newsletter.state import digest_copies, lock, outbox_claims
from newsletter.state.store import UNFINISHED, Store
from newsletter.words import count

__all__ = ["DigestMailing", "SendReport", "describe", "message_id", "messages_left", "send", "send_test",
           "smtp_password", "stand_in_email", "write_dry_run"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SendReport:
    mailings: tuple[DigestMailing, ...]
    # The run was asked to stop and left the rest for the next one.
    interrupted: bool = False
    # Sign-up confirmations the web service could not hand over when they were asked for:
    # (sent now, still not sent).
    confirmations: tuple[int, int] = (0, 0)


def send(
    config: Config, *, sleep: Callable[[float], object] = time.sleep,
    should_stop: Callable[[], bool] = lambda: False, on_unclaimed: outbox_claims.Unclaimed = lambda _at: None,
) -> SendReport:
    """Mail every digest whose mailing is unfinished, then the newest digest, to every
    subscriber not yet served. `should_stop` is asked between messages; `on_unclaimed` is
    called when messages wait that no sender holds (newsletter/mail/mailing.py). On a SQLite
    state, raises LockedError at once if another run uses it."""
    email = _email(config)
    password = smtp_password(email)
    # On a SQLite state one send at a time (the lock file): a claim by any other sender is
    # then a dead one's. On PostgreSQL senders share the mailing through their claims alone.
    alone = not config.state.on_postgres
    with lock.state(config.state, "send") if alone else nullcontext():
        connections = [Connection(email, password) for _ in range(email.connections)]
        sender = Sender(config, email, connections, Links(config), sleep, should_stop,
                        outbox_claims.sender_name(), alone=alone, on_unclaimed=on_unclaimed)
        mailings = []
        try:
            with Store.open(config.state) as store:
                confirmations = (0, 0)
                if config.web:  # sign-ups come only through the web service
                    confirmations = send_confirmations(config, store, connections[0], datetime.now(UTC), sleep=sleep,
                                                       delays=RETRY_DELAYS)
                for head in store.digests_to_mail():
                    mailing, interrupted = mail_digest(sender, store, head)
                    mailings.append(mailing)
                    if interrupted:
                        return SendReport(tuple(mailings), interrupted=True, confirmations=confirmations)
                digest_copies.forget_slice_copies(store, [head.id for head in store.digests_to_mail()])
        finally:
            for connection in connections:
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
    links = Links(config)
    if folder.resolve().is_relative_to(config.archive_dir.resolve()):
        raise MailError(f"{folder}: inside archive.dir, which is published: the messages carry every"
                        " subscriber's address; write them elsewhere")
    written = []
    with Store.open(config.state) as store:
        for head in store.digests_to_mail():
            if skip_reason(email, head):
                continue
            outbox = store.outbox(head.id)
            due_to = [r for key, r in recipients(email, store).items() if due(outbox.get(key))]
            if not due_to:
                continue
            copies, key = DigestCopies(config, store, head, email.sender), store.message_key()
            for recipient in due_to:
                encoded = copies.message_for(recipient.id)
                if encoded is None:
                    continue
                path = folder / head.name / _dry_run_name(recipient.address)
                write_atomic(path, addressed(email, encoded, key, head, recipient, links))
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


# Characters kept in the name of a dry-run file; others become "_".
_SAFE_NAME = lazy_re.compile(r"[^A-Za-z0-9@._+-]")


def _dry_run_name(address: Address) -> str:
    """`<address>.eml`; an address that needed characters replaced gets a hash of itself
    too, so two addresses never share a file."""
    key = recipient_key(address)
    safe = _SAFE_NAME.sub("_", key)
    return f"{safe}.eml" if safe == key else f"{safe}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.eml"
