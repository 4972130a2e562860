"""A rendered digest -> RFC 5322 messages: one encoder for the archive's copy and for every
subscriber's.

The digest is encoded once, as multipart/alternative (text, then HTML, both
quoted-printable), with a slot where the footer's "Unsubscribe" link goes; each
message is those bytes with its own unsubscribe address put in and its own few headers in
front. Date, Message-ID and MIME boundary are derived from the digest and the recipient, so
the same digest gives the same bytes to the same person in every run.
"""

from __future__ import annotations

import hashlib
import html
import re
from datetime import datetime
from email import quoprimime
from email.headerregistry import Address
from email.policy import SMTP
from email.utils import format_datetime
from urllib.parse import urlsplit

from newsletter import lazy_re
from newsletter.config import SiteConfig
from newsletter.models import RenderedDigest
from newsletter.publish.sanitize import one_line


class DigestMessage:
    """One digest, encoded once; `to` gives the message for one recipient.

    Each body is kept as quoted-printable pieces, split where the unsubscribe and preferences
    addresses go. Every piece ends in a line break, soft ("=" at the end of the line) where
    the text goes on, so an address encoded the same way drops in between without touching
    its neighbours, and no line is longer than the 76 characters quoted-printable allows."""

    def __init__(self, rendered: RenderedDigest, sender: Address, created: datetime):
        self.headers = b"".join([
            header("Subject", rendered.subject),
            header("From", sender),
            # The digest's own time, not the sending time: a message sent again is the same message.
            header("Date", format_datetime(created)),
        ])
        self.unsubscribe_slot = rendered.unsubscribe_slot
        self.preferences_slot = rendered.preferences_slot
        slots = [slot for slot in (rendered.unsubscribe_slot, rendered.preferences_slot) if slot]
        self.text = _Pieces(slots, rendered.text)
        self.html = _Pieces(slots, rendered.html)

    def to(self, recipient: Address | str, message_id: str, unsubscribe: str,
           list_unsubscribe: list[str], one_click: bool, preferences: str | None = None) -> bytes:
        """The message for `recipient` (an address, or a group like "undisclosed-recipients:;"),
        `unsubscribe` behind the footer's link, `list_unsubscribe` as the List-Unsubscribe
        header when there is any, `preferences` behind the link to the preferences page (the
        unsubscribe address when there is none: the one choice left)."""
        # "=_" cannot occur in quoted-printable text (it would read "=3D_"), so this boundary
        # is safe, and unlike a random one it keeps the message the same in every run.
        boundary = b"=_" + hashlib.sha256(message_id.encode("utf-8")).hexdigest()[:24].encode("ascii")
        links = {self.unsubscribe_slot: unsubscribe}
        if self.preferences_slot:
            links[self.preferences_slot] = preferences or unsubscribe
        return b"".join([
            self.headers,
            header("To", recipient),
            header("Message-ID", message_id),
            header("List-Unsubscribe", ", ".join(f"<{uri}>" for uri in list_unsubscribe)) if list_unsubscribe else b"",
            header("List-Unsubscribe-Post", "List-Unsubscribe=One-Click") if one_click else b"",
            b'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="%s"\r\n\r\n' % boundary,
            b"--%s\r\n%s" % (boundary, _part_headers("plain")),
            self.text.filled({slot: _quoted_printable(uri.encode("utf-8")) for slot, uri in links.items()}),
            b"\r\n--%s\r\n%s" % (boundary, _part_headers("html")),
            self.html.filled({slot: _quoted_printable(html.escape(uri).encode("utf-8"))
                              for slot, uri in links.items()}),
            b"\r\n--%s--\r\n" % boundary,
        ])


class _Pieces:
    """A body in quoted-printable pieces, and which slot lies between each two."""

    def __init__(self, slots: list[str], text: str):
        # Line breaks made one kind and a last one added, as EmailMessage.set_content does;
        # quoted-printable writes them as CRLF.
        body = b"\n".join(text.encode("utf-8").splitlines()) + b"\n"
        parts = re.split(b"(%s)" % b"|".join(re.escape(slot.encode("ascii")) for slot in slots), body)
        self.pieces = [_quoted_printable(piece) for piece in parts[0::2]]
        self.between = [slot.decode("ascii") for slot in parts[1::2]]

    def filled(self, encoded: dict[str, bytes]) -> bytes:
        """The body with each slot's encoded address put in."""
        joined = [self.pieces[0]]
        for slot, piece in zip(self.between, self.pieces[1:], strict=True):
            joined += [encoded[slot], piece]
        return b"".join(joined)


def header(name: str, value: object) -> bytes:
    """One header field as EmailMessage writes it: parsed (a value with a line break is
    refused), non-ASCII text in encoded words, folded within 78 characters a line."""
    text = str(value)
    # The headers each message of a mailing has of its own, found without parsing and
    # folding them when the email package would write them unchanged: that was a third of
    # a mailing's CPU time.
    written_as_it_is = _AS_IT_IS.get(name.lower())
    if (written_as_it_is and written_as_it_is.fullmatch(text) and "=?" not in text
            and len(name) + 2 + len(text) <= _LINE_LENGTH):
        return f"{name}: {text}\r\n".encode("ascii")
    return SMTP.fold_binary(*SMTP.header_store_parse(name, value))


# The line length the SMTP policy folds at.
_LINE_LENGTH = 78
# By header name, the values the email package writes unchanged when they fit on a line:
# a bare address, a bare message id, and unstructured text of printable ASCII words.
_MAILBOX = r"[A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
_AS_IT_IS = {
    "to": lazy_re.compile(_MAILBOX),
    "message-id": lazy_re.compile(f"<{_MAILBOX}>"),
    "list-unsubscribe": lazy_re.compile(r"[!-~]+(?: [!-~]+)*"),
    "list-unsubscribe-post": lazy_re.compile(r"[!-~]+(?: [!-~]+)*"),
}


def _part_headers(subtype: str) -> bytes:
    return (f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n").encode("ascii")


def _quoted_printable(data: bytes) -> bytes:
    """`data` in quoted-printable, ending in a hard line break if it ends in one, else in a
    soft one."""
    if not data:
        return b""
    # 75, not 76: room for the "=" of the soft line break added at the end. The encoder
    # takes bytes as the characters latin-1 decoding gives.
    encoded = quoprimime.body_encode(data.decode("latin-1"), 75, "\r\n")
    return (encoded if data.endswith(b"\n") else encoded + "=\r\n").encode("ascii")


def archive_message(site: SiteConfig, name: str, created: datetime, rendered: RenderedDigest) -> bytes:
    """The archive's copy of a digest as one message, addressed to no one, from the site."""
    host = urlsplit(site.url).hostname or "localhost"
    return DigestMessage(rendered, Address(one_line(site.title), "newsletter", host), created).to(
        "undisclosed-recipients:;", f"<digest-{name}@{host}>", unsubscribe=site.url,
        list_unsubscribe=[], one_click=False)
