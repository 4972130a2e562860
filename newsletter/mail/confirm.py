"""The message that asks a new subscriber to confirm their sign-up: sent at once, through
the same SMTP settings as the digests, by the web service while it answers the sign-up."""

from __future__ import annotations

import logging
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid

from newsletter.config import Config
from newsletter.errors import MailError
from newsletter.mail.send import smtp_password
from newsletter.mail.smtp import Connection, deliver

log = logging.getLogger(__name__)


def confirmation(config: Config, address: str, url: str, days: int, now: datetime) -> bytes:
    """The message for `address`; its plain text holds `url` on a line of its own, so
    every mail client makes it a link and a program can find it."""
    assert config.email is not None  # the config's rules ask for [email] with [web]
    message = EmailMessage(policy=SMTP)
    message["Subject"] = f"Confirm your subscription to {config.site.title}"
    message["From"] = config.email.sender
    message["To"] = address
    message["Date"] = format_datetime(now)
    message["Message-ID"] = make_msgid(domain=config.email.sender.domain)
    # Out-of-office replies are not sent to automatic messages (RFC 3834).
    message["Auto-Submitted"] = "auto-generated"
    message.set_content(
        f"Someone, hopefully you, asked to get {config.site.title} by mail at this address.\n"
        f"To confirm, open this link within {days} days:\n\n{url}\n\n"
        "If it was not you, ignore this message: nothing is sent without confirmation.\n"
    )
    return message.as_bytes()


def send_confirmation(config: Config, address: str, url: str, days: int, now: datetime) -> bool:
    """Hand the confirmation to the server, trying once: whoever signed up is waiting for
    the page. False, logged, when it could not be sent."""
    assert config.email is not None
    connection = Connection(config.email, smtp_password(config.email))
    try:
        state, answer = deliver(connection, config.email.sender.addr_spec, address,
                                confirmation(config, address, url, days, now), sleep=lambda _s: None, delays=())
    except MailError as exc:
        state, answer = "deferred", str(exc)
    finally:
        connection.close()
    if answer:
        log.warning("%s: the confirmation of a sign-up was not sent (%s): %s", address, state, answer)
    return answer is None
