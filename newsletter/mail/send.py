"""Mail the newest digest to every subscriber, each exactly once, over one SMTP connection.

A digest is rendered and encoded once per run, with a placeholder where the footer's
"Unsubscribe" link goes; each subscriber's message is those encoded bytes with their own
unsubscribe address put in and their own few headers in front. Everything else in a message
(Date, Message-ID, MIME boundary) is derived from the digest and the subscriber, so the same
digest gives the same message to the same person.

Exactly once rests on the outbox table of the state database. Before a message is handed to
the server its row is committed as `pending`; right after the server's 250 it is committed as
`sent`. A run that starts again skips what is `sent` and sends the rest. One window cannot be
closed: a process killed after the server's 250 and before the `sent` commit (microseconds,
no I/O between the two) leaves a `pending` row for a message that did go out. It is sent again
with the same Message-ID, which receiving servers and mail clients use to drop the repeat, and
the run logs it as a possible repeat.
"""

from __future__ import annotations

import hashlib
import html
import logging
import os
import re
import smtplib
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email import quoprimime
from email.headerregistry import Address
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path
from urllib.parse import quote

from newsletter.config import Config, EmailConfig
from newsletter.errors import MailError
from newsletter.pipeline import current_entries
from newsletter.publish.digest import render_digest
from newsletter.publish.output import write_atomic
from newsletter.state import lock
from newsletter.state.store import UNFINISHED, DigestHead, OutboxRow, Store

log = logging.getLogger(__name__)

# Seconds to wait before each new attempt after a temporary failure (4xx, dropped connection).
RETRY_DELAYS = (2.0, 4.0, 8.0, 16.0)
SMTP_TIMEOUT = 60
# Rendered where each subscriber's own unsubscribe address goes; plain enough to pass
# through HTML escaping and MJML unchanged.
UNSUBSCRIBE_PLACEHOLDER = "https://unsubscribe.invalid/subscriber"


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
    # Why nothing was sent, when nothing was to be sent.
    skipped: str | None = None


@dataclass(frozen=True)
class SendReport:
    mailings: tuple[DigestMailing, ...]
    # The run was asked to stop and left the rest for the next one.
    interrupted: bool = False


@dataclass
class _Tally:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    possible_repeats: list[str] = field(default_factory=list)


def send(
    config: Config, *, sleep: Callable[[float], object] = time.sleep,
    should_stop: Callable[[], bool] = lambda: False,
) -> SendReport:
    """Mail every digest whose mailing is unfinished, then the newest digest, to every
    subscriber not yet served. `should_stop` is asked between messages. Raises LockedError
    at once if another run uses the same state database."""
    email = _email(config)
    password = _password(email)
    with lock.exclusive(lock.for_state(config.state_path)):
        store = Store.open(config.state_path)
        connection = _Connection(email, password)
        mailings = []
        try:
            for head in store.digests_to_mail():
                mailing, interrupted = _mail_digest(config, store, head, connection, sleep, should_stop)
                mailings.append(mailing)
                if interrupted:
                    return SendReport(tuple(mailings), interrupted=True)
        finally:
            connection.close()
            store.close()
    return SendReport(tuple(mailings))


def describe(report: SendReport) -> str:
    """What a send did, in one line."""
    parts = [
        f"digest {m.digest} {m.skipped}" if m.skipped else
        f"digest {m.digest}: {len(m.sent)} sent, {len(m.failed)} refused, {len(m.deferred)} deferred"
        for m in report.mailings
    ] or ["no digest to mail"]
    stopped = "; stopped early, the rest goes out with the next send" if report.interrupted else ""
    return "; ".join(parts) + stopped


def write_dry_run(config: Config, folder: Path) -> list[Path]:
    """Write each message `send` would mail now as `<folder>/<digest>/<address>.eml`, and
    record nothing."""
    email = _email(config)
    store = Store.open(config.state_path)
    written = []
    try:
        for head in store.digests_to_mail():
            if _skip_reason(email, head):
                continue
            outbox = store.outbox(head.id)
            recipients = [a for a in email.subscribers if _due(outbox.get(recipient_key(a)))]
            encoded = _render(config, store, head) if recipients else None
            for address in recipients:
                path = folder / head.name / f"{_SAFE_NAME.sub('_', recipient_key(address))}.eml"
                write_atomic(path, encoded.message(address))
                written.append(path)
    finally:
        store.close()
    return written


class _EncodedDigest:
    """One digest as a multipart/alternative message (text and HTML, quoted-printable),
    encoded once; `message` fills in one subscriber's headers and unsubscribe address.

    Each body is kept as quoted-printable pieces, split where the unsubscribe address goes.
    Every piece ends in a line break, soft ("=" at the end of the line) where the text goes
    on, so the address encoded the same way drops in between without touching its
    neighbours, and no line is longer than the 76 characters quoted-printable allows."""

    def __init__(self, config: Config, head: DigestHead, subject: str, text: str, html_text: str):
        self.config = config
        self.head = head
        self.email = _email(config)
        self.headers = b"".join([
            _header("Subject", subject),
            _header("From", self.email.sender),
            # The digest's own time, not the sending time: a message sent again is the same message.
            _header("Date", format_datetime(head.created)),
        ])
        self.text = _quoted_printable_around_placeholder(text)
        self.html = _quoted_printable_around_placeholder(html_text)

    def message(self, recipient: Address) -> bytes:
        uris = _unsubscribe_uris(self.email, recipient)
        # The footer links to the one-click page if there is one, else to the mailbox.
        own = uris[-1]
        # "=_" cannot occur in quoted-printable text (it would read "=3D_"), so this boundary
        # is safe, and unlike a random one it keeps the message the same in every run.
        boundary = f"=_{_token(self.config, self.head, recipient)}".encode("ascii")
        return b"".join([
            self.headers,
            _header("To", recipient),
            _header("Message-ID", message_id(self.config, self.head, recipient)),
            _header("List-Unsubscribe", ", ".join(f"<{uri}>" for uri in uris)),
            _header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click") if self.email.unsubscribe_url else b"",
            b'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="%s"\r\n\r\n' % boundary,
            b"--%s\r\n%s" % (boundary, _part_headers("plain")),
            _quoted_printable(own.encode("utf-8")).join(self.text),
            b"\r\n--%s\r\n%s" % (boundary, _part_headers("html")),
            _quoted_printable(html.escape(own).encode("utf-8")).join(self.html),
            b"\r\n--%s--\r\n" % boundary,
        ])


def _header(name: str, value: object) -> bytes:
    """One header field as EmailMessage writes it: parsed (a value with a line break is
    refused), non-ASCII text in encoded words, folded within 78 characters a line."""
    return SMTP.fold_binary(*SMTP.header_store_parse(name, value))


def _part_headers(subtype: str) -> bytes:
    return (f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n").encode("ascii")


def _quoted_printable_around_placeholder(text: str) -> list[bytes]:
    # Line breaks made one kind and a last one added, as EmailMessage.set_content does;
    # quoted-printable writes them as CRLF.
    body = b"\n".join(text.encode("utf-8").splitlines()) + b"\n"
    return [_quoted_printable(piece) for piece in body.split(UNSUBSCRIBE_PLACEHOLDER.encode("ascii"))]


def _quoted_printable(data: bytes) -> bytes:
    """`data` in quoted-printable, ending in a hard line break if it ends in one, else in a
    soft one."""
    if not data:
        return b""
    # 75, not 76: room for the "=" of the soft line break added at the end. The encoder
    # takes bytes as the characters latin-1 decoding gives.
    encoded = quoprimime.body_encode(data.decode("latin-1"), 75, "\r\n")
    return (encoded if data.endswith(b"\n") else encoded + "=\r\n").encode("ascii")


def message_id(config: Config, head: DigestHead, recipient: Address) -> str:
    """The same for the same digest and recipient in every run; reveals neither."""
    return f"<{head.name}.{_token(config, head, recipient)}@{_email(config).sender.domain}>"


def _token(config: Config, head: DigestHead, recipient: Address) -> str:
    seed = f"{config.site.url}\n{head.name}\n{recipient_key(recipient)}".encode()
    return hashlib.sha256(seed).hexdigest()[:24]


def recipient_key(address: Address) -> str:
    """How the outbox names a subscriber: the bare address, in lower case."""
    return address.addr_spec.lower()


# -- one digest ---------------------------------------------------------------


def _mail_digest(
    config: Config, store: Store, head: DigestHead, connection: _Connection,
    sleep: Callable[[float], object], should_stop: Callable[[], bool],
) -> tuple[DigestMailing, bool]:
    email = _email(config)
    reason = _skip_reason(email, head)
    if reason:
        log.info("digest %s: %s", head.name, reason)
        return DigestMailing(head.name, skipped=reason), False
    subscribers = {recipient_key(a): a for a in email.subscribers}
    outbox = store.outbox(head.id)
    for key, row in outbox.items():
        if key not in subscribers and row.state in UNFINISHED:
            store.set_outbox_state(head.id, key, "dropped", _utcnow(), "no longer a subscriber")
    due = [key for key in subscribers if _due(outbox.get(key))]
    if not due:
        return DigestMailing(head.name, skipped="already mailed to every subscriber"), False
    encoded = _render(config, store, head)
    new = {key: message_id(config, head, subscribers[key]) for key in due if key not in outbox}
    if new:
        store.queue_mailing(head.id, new, _utcnow())

    log.info("digest %s: mailing %d subscribers", head.name, len(due))
    tally = _Tally()
    for key in due:
        if should_stop():
            log.info("digest %s: stopping; %d messages left for the next run", head.name,
                     len(due) - len(tally.sent) - len(tally.failed) - len(tally.deferred))
            return _mailing(head, tally), True
        if key in outbox and outbox[key].state == "pending":
            log.warning("%s: the last run stopped while sending it digest %s; sending it again"
                        " with the same Message-ID %s", key, head.name, outbox[key].message_id)
            tally.possible_repeats.append(key)
        data = encoded.message(subscribers[key])
        store.set_outbox_state(head.id, key, "pending", _utcnow())
        try:
            state, answer = _deliver(
                connection, email.sender.addr_spec, subscribers[key].addr_spec, data, sleep)
        except MailError as exc:
            store.set_outbox_state(head.id, key, "deferred", _utcnow(), str(exc))
            raise
        store.set_outbox_state(head.id, key, state, _utcnow(), answer)
        if state == "sent":
            tally.sent.append(key)
        else:
            log.warning("%s: %s: %s", key, "refused" if state == "failed" else "deferred", answer)
            (tally.failed if state == "failed" else tally.deferred).append((key, answer))
    return _mailing(head, tally), False


def _mailing(head: DigestHead, tally: _Tally) -> DigestMailing:
    return DigestMailing(
        head.name, sent=tuple(tally.sent), failed=tuple(tally.failed),
        deferred=tuple(tally.deferred), possible_repeats=tuple(tally.possible_repeats),
    )


def _skip_reason(email: EmailConfig, head: DigestHead) -> str | None:
    if head.entry_count == 0 and not email.send_empty:
        return "carries no posts: not mailed (email.send_empty = false)"
    return None


def _due(row: OutboxRow | None) -> bool:
    return row is None or row.state in UNFINISHED


def _render(config: Config, store: Store, head: DigestHead) -> _EncodedDigest:
    entries = current_entries(config, store)
    (digest,) = [d for d in store.digests({e.id: e for e in entries}) if d.id == head.id]
    rendered = render_digest(config, digest, unsubscribe_url=UNSUBSCRIBE_PLACEHOLDER)
    return _EncodedDigest(config, head, rendered.subject, rendered.text, rendered.html)


def _unsubscribe_uris(email: EmailConfig, recipient: Address) -> list[str]:
    uris = []
    if email.unsubscribe_mailto:
        uris.append(f"mailto:{email.unsubscribe_mailto}?subject=unsubscribe")
    if email.unsubscribe_url:
        joiner = "&" if "?" in email.unsubscribe_url else "?"
        uris.append(f"{email.unsubscribe_url}{joiner}address={quote(recipient_key(recipient), safe='@')}")
    return uris


# -- SMTP -------------------------------------------------------------------------


class _Connection:
    """One SMTP session for the whole batch: opened on first use, opened again after a drop."""

    def __init__(self, email: EmailConfig, password: str | None):
        self.email = email
        self.password = password
        self.smtp: smtplib.SMTP | None = None

    def send(self, sender: str, recipient: str, data: bytes) -> None:
        if self.smtp is None or self.smtp.sock is None:
            self.smtp = self._open()
        self.smtp.sendmail(sender, [recipient], data)

    def drop(self) -> None:
        if self.smtp is not None:
            self.smtp.close()
            self.smtp = None

    def close(self) -> None:
        if self.smtp is not None and self.smtp.sock is not None:
            try:
                self.smtp.quit()
            except (smtplib.SMTPException, OSError):
                pass  # the messages are handed over already; a failed goodbye changes nothing
        self.drop()

    def _open(self) -> smtplib.SMTP:
        email = self.email
        context = ssl.create_default_context()
        where = f"{email.host}:{email.port}"
        try:
            if email.security == "ssl":
                smtp = smtplib.SMTP_SSL(email.host, email.port, timeout=SMTP_TIMEOUT, context=context)
            else:
                smtp = smtplib.SMTP(email.host, email.port, timeout=SMTP_TIMEOUT)
            if email.security == "starttls":
                smtp.starttls(context=context)
            if email.username:
                smtp.login(email.username, self.password or "")
        except smtplib.SMTPNotSupportedError:
            raise MailError(f"{where} does not offer STARTTLS (email.security)") from None
        except smtplib.SMTPAuthenticationError as exc:
            raise MailError(f"{where}: login refused: {_answer(exc.smtp_code, exc.smtp_error)}") from None
        except ssl.SSLCertVerificationError as exc:
            raise MailError(f"{where}: the server's certificate is not trusted: {exc.verify_message}") from None
        return smtp


def _deliver(
    connection: _Connection, sender: str, recipient: str, data: bytes,
    sleep: Callable[[float], object],
) -> tuple[str, str | None]:
    """Hand one message to the server: ("sent", None), ("failed", answer) for a permanent
    refusal, or ("deferred", answer) when it kept failing temporarily."""
    answer, connection_lost = "", False
    for delay in (0.0, *RETRY_DELAYS):
        if delay:
            log.info("%s: %s; trying again in %g s", recipient, answer, delay)
            sleep(delay)
        try:
            connection.send(sender, recipient, data)
            return "sent", None
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = exc.recipients[recipient]
        except smtplib.SMTPSenderRefused as exc:
            code, text = exc.smtp_code, exc.smtp_error
            if code >= 500:
                raise MailError(f"the server refuses the sender {sender}: {_answer(code, text)}") from None
        except smtplib.SMTPResponseException as exc:
            code, text = exc.smtp_code, exc.smtp_error
        except (smtplib.SMTPServerDisconnected, OSError) as exc:
            # A connection that drops (or cannot be made) before the 250 delivered nothing.
            connection.drop()
            answer = f"connection to {connection.email.host}:{connection.email.port} failed: {exc}"
            connection_lost = True
            continue
        answer, connection_lost = _answer(code, text), False
        if code >= 500:
            return "failed", answer
    if connection_lost:
        raise MailError(answer)
    return "deferred", answer


def _answer(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}".strip()


# -- config -----------------------------------------------------------------------


def _email(config: Config) -> EmailConfig:
    if config.email is None:
        raise MailError(f"{config.path}: no [email] section: nowhere to send from")
    return config.email


def _password(email: EmailConfig) -> str | None:
    if not email.password_env:
        return None
    password = os.environ.get(email.password_env)
    if password is None:
        raise MailError(f"the SMTP password is read from ${email.password_env} (email.password_env),"
                        " which is not set")
    return password


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


# Characters kept in the name of a dry-run file; others become "_".
_SAFE_NAME = re.compile(r"[^A-Za-z0-9@._+-]")
