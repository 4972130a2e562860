"""The messages that ask new subscribers to confirm their sign-up, through the same SMTP
settings as the digests and an outbox of their own (the confirmations table).

A sign-up queues its message in the transaction that records it; the web service then hands
it to the server at once, trying once, since whoever signed up is waiting for the page. A
message the server could not take then is sent by the next `newsletter send`, and one whose
hand-over a killed process left pending is sent again with the same Message-ID. Nothing is
sent for a sign-up that is no longer pending or whose link has expired.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid

from newsletter.config import Config
from newsletter.errors import MailError
from newsletter.mail import tokens
from newsletter.mail.smtp import Connection, deliver
from newsletter.state import subscribers
from newsletter.state.store import Store

log = logging.getLogger(__name__)


def new_message_id(config: Config) -> str:
    assert config.email is not None  # the config's rules ask for [email] with [web]
    return make_msgid(domain=config.email.sender.domain)


def confirmation(config: Config, confirmation: subscribers.Confirmation, url: str) -> bytes:
    """The message for one sign-up; its plain text holds `url` on a line of its own, so
    every mail client makes it a link and a program can find it."""
    assert config.email is not None and config.web is not None
    message = EmailMessage(policy=SMTP)
    message["Subject"] = f"Confirm your subscription to {config.site.title}"
    message["From"] = config.email.sender
    message["To"] = confirmation.address
    message["Date"] = format_datetime(confirmation.requested)
    message["Message-ID"] = confirmation.message_id
    # Out-of-office replies are not sent to automatic messages (RFC 3834).
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(
        f"Someone, hopefully you, asked to get {config.site.title} by mail at this address.\n"
        f"To confirm, open this link within {config.web.confirm_days} days:\n\n{url}\n\n"
        "If it was not you, ignore this message: nothing is sent without confirmation.\n"
    )
    return message.as_bytes()


def send_confirmations(
    config: Config, store: Store, connection: Connection, now: datetime, *, subscriber_id: int | None = None,
    sleep: Callable[[float], object] = lambda _seconds: None, delays: tuple[float, ...] = (),
) -> tuple[int, int]:
    """Hand over the confirmations due (of one subscriber, or all); (sent, not sent). By
    default each is tried once; `delays` are the waits before further tries. MailError when
    the server cannot be reached: the confirmation stays due."""
    assert config.email is not None and config.web is not None
    signer = tokens.signer(config.web)
    sent = unsent = 0
    for due in subscribers.confirmations_due(store, now, timedelta(days=config.web.confirm_days), subscriber_id):
        token = signer.sign("confirm", due.subscriber_id, due.address, due.requested.isoformat())
        data = confirmation(config, due, tokens.link(config, "confirm", token))
        if not subscribers.claim_confirmation(store, due, now):
            continue  # another process is sending it
        if due.state == "pending":
            log.warning("%s: the last run stopped while sending its confirmation; sending it again with"
                        " the same Message-ID %s", due.address, due.message_id)
        try:
            state, answer = deliver(connection, config.email.sender.addr_spec, due.address, data, sleep, delays)
        except MailError as exc:
            subscribers.record_confirmation(store, due, "deferred", now, str(exc))
            raise
        if state == "unconfirmed":
            # Left pending, as a digest's message is: the next send sends it again.
            log.warning("%s: the confirmation of a sign-up %s; it may have arrived: not sent again in this run",
                        due.address, answer)
            unsent += 1
            continue
        subscribers.record_confirmation(store, due, state, now, answer)
        if answer is None:
            sent += 1
        else:
            unsent += 1
            log.warning("%s: the confirmation of a sign-up was not sent (%s): %s", due.address, state, answer)
    return sent, unsent
