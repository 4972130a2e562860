"""One SMTP session for a batch of messages, and handing one message to it with retries.

Temporary failures (4xx, a dropped connection) are tried again after growing waits;
permanent ones (5xx) are reported for the caller to record. A connection lost once the
message was handed over is not: the server may have stored the message before its answer
was lost, and sending it again in the same run would mail it twice.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from collections.abc import Callable
from typing import Literal

from newsletter.config import EmailConfig
from newsletter.errors import MailError, MailServerUnreachable

log = logging.getLogger(__name__)

# Seconds to wait before each new attempt after a temporary failure (4xx, dropped connection).
RETRY_DELAYS = (2.0, 4.0, 8.0, 16.0)
SMTP_TIMEOUT = 60


class Connection:
    """One SMTP session for the whole batch: opened on first use, opened again after a drop."""

    def __init__(self, email: EmailConfig, password: str | None):
        self.email = email
        self.password = password
        self.smtp: smtplib.SMTP | None = None

    def send(self, sender: str, recipient: str, data: bytes) -> None:
        """smtplib's sendmail in its steps, so that a connection lost in the last one (the
        message sent, its answer awaited) is told from one lost before: HandedOver."""
        if self.smtp is None or self.smtp.sock is None:
            self.smtp = self._open()
        smtp = self.smtp
        smtp.ehlo_or_helo_if_needed()
        code, text = smtp.mail(sender)
        if code != 250:
            self._reset(code)
            raise smtplib.SMTPSenderRefused(code, text, sender)
        code, text = smtp.rcpt(recipient)
        if code not in (250, 251):
            self._reset(code)
            raise smtplib.SMTPRecipientsRefused({recipient: (code, text)})
        try:
            code, text = _send_data(smtp, data)
        except (smtplib.SMTPServerDisconnected, OSError) as exc:
            raise HandedOver(str(exc) or type(exc).__name__) from None
        if code != 250:
            self._reset(code)
            raise smtplib.SMTPDataError(code, text)

    def _reset(self, code: int) -> None:
        """After a refusal: RSET, for the session's next message, or after a 421 (the server
        closing the session) a new connection for it."""
        try:
            if code != 421 and self.smtp is not None:
                self.smtp.rset()
                return
        except (smtplib.SMTPException, OSError):
            pass
        self.drop()

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
        smtp: smtplib.SMTP
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


def _send_data(smtp: smtplib.SMTP, data: bytes) -> tuple[int, bytes]:
    """smtplib's `data`, with the message's lines quoted by `data_lines`."""
    smtp.putcmd("data")
    code, text = smtp.getreply()
    if code != 354:
        raise smtplib.SMTPDataError(code, text)
    smtp.send(data_lines(data))
    return smtp.getreply()


def data_lines(data: bytes) -> bytes:
    """`data` as the DATA command sends it: each "." that starts a line doubled, a line break
    at the end, then the "." line. The same bytes as smtplib's regular expression, found
    by plain replacing: a tenth of the time on a large digest, paid for every recipient."""
    quoted = (b"." + data if data.startswith(b".") else data).replace(b"\n.", b"\n..")
    return quoted + (b".\r\n" if quoted.endswith(b"\r\n") else b"\r\n.\r\n")


class HandedOver(Exception):
    """The connection was lost after the message was sent, before the server's answer."""


def deliver(
    connection: Connection, sender: str, recipient: str, data: bytes,
    sleep: Callable[[float], object], delays: tuple[float, ...] = RETRY_DELAYS,
) -> tuple[Literal["sent"], None] | tuple[Literal["failed", "deferred", "unconfirmed"], str]:
    """Hand one message to the server: ("sent", None), ("failed", answer) for a permanent
    refusal, ("deferred", answer) when it kept failing temporarily after `delays`, or
    ("unconfirmed", reason) when the connection was lost after the message was sent: it may
    have been stored, so it is not sent again now."""
    answer, connection_lost = "", False
    code: int
    text: bytes | str
    for delay in (0.0, *delays):
        if delay:
            log.info("%s: %s; trying again in %g s", recipient, answer, delay)
            sleep(delay)
        try:
            connection.send(sender, recipient, data)
            return "sent", None
        except (smtplib.SMTPConnectError, smtplib.SMTPHeloError) as exc:
            # The server turned the session away (a 554 or 421 greeting): nothing about this
            # recipient was said, so nothing is refused; the message waits like any unsent one.
            connection.drop()
            answer = (f"connection to {connection.email.host}:{connection.email.port} refused:"
                      f" {_answer(exc.smtp_code, exc.smtp_error)}")
            connection_lost = True
            continue
        except smtplib.SMTPRecipientsRefused as exc:
            code, text = exc.recipients[recipient]
        except smtplib.SMTPSenderRefused as exc:
            code, text = exc.smtp_code, exc.smtp_error
            if code >= 500:
                raise MailError(f"the server refuses the sender {sender}: {_answer(code, text)}") from None
        except smtplib.SMTPResponseException as exc:
            code, text = exc.smtp_code, exc.smtp_error
        except HandedOver as exc:
            connection.drop()
            return "unconfirmed", f"connection to {connection.email.host}:{connection.email.port} lost after the" \
                                  f" message was sent, before the server's answer: {exc}"
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
        raise MailServerUnreachable(answer)
    return "deferred", answer


def _answer(code: int, text: bytes | str) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"{code} {text}".strip()
