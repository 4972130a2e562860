"""Who a digest goes to, and each one's copy addressed to them: their Message-ID (the same in
every run, so a repeat can be told apart), their unsubscribe and preferences links."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from email.headerregistry import Address
from typing import NamedTuple
from urllib.parse import quote

from newsletter.config import Config, EmailConfig
from newsletter.mail import tokens
from newsletter.mail.message import DigestMessage
from newsletter.models import DigestHead
from newsletter.state import subscribers as subscriber_list
from newsletter.state.store import UNFINISHED, OutboxRow, Store


def message_id(email: EmailConfig, key: bytes, head: DigestHead, recipient: Address) -> str:
    """The same for the same digest and recipient in every run; without `key`, which the
    state database keeps, it cannot be used to test a guessed address."""
    token = hmac.new(key, f"{head.name}\n{recipient_key(recipient)}".encode(), hashlib.sha256).hexdigest()[:24]
    return f"<{head.name}.{token}@{email.sender.domain}>"


def recipient_key(address: Address) -> str:
    """How the outbox names a subscriber: the bare address, in lower case."""
    return address.addr_spec.lower()


def skip_reason(email: EmailConfig, head: DigestHead) -> str | None:
    if head.entry_count == 0 and not email.send_empty:
        return "carries no posts: not mailed (email.send_empty = false)"
    return None


def due(row: OutboxRow | None) -> bool:
    return row is None or row.state in UNFINISHED


class Recipient(NamedTuple):
    address: Address
    # Their row in the subscribers table, which their signed links name.
    id: int


def recipients(email: EmailConfig, store: Store) -> dict[str, Recipient]:
    """Who is to get a digest, by outbox key: the config's addresses that have not left the
    list, then those who joined through sign-up or the operator's command."""
    listed = {recipient_key(a): a for a in email.subscribers}
    subscriber_list.ensure_listed(store, listed, datetime.now(UTC))
    return {key: Recipient(listed.get(key) or Address(addr_spec=key), subscriber_id)
            for key, subscriber_id in subscriber_list.recipients(store, listed).items()}


class Links:
    """Each recipient's https unsubscribe address: a signed link to the service with [web],
    else email.unsubscribe_url with the address."""

    def __init__(self, config: Config):
        self.config = config
        self.signer = tokens.signer(config.web) if config.web else None

    def unsubscribe(self, email: EmailConfig, recipient: Recipient) -> str | None:
        key = recipient_key(recipient.address)
        if self.signer:
            return tokens.link(self.config, "unsubscribe", self.signer.sign("unsubscribe", recipient.id, key))
        if email.unsubscribe_url:
            joiner = "&" if "?" in email.unsubscribe_url else "?"
            return f"{email.unsubscribe_url}{joiner}address={quote(key, safe='@')}"
        return None

    def preferences(self, recipient: Recipient) -> str | None:
        """The signed link to the service's preferences page; None without [web]."""
        if not self.signer:
            return None
        token = self.signer.sign("preferences", recipient.id, recipient_key(recipient.address))
        return tokens.link(self.config, "preferences", token)


def addressed(email: EmailConfig, encoded: DigestMessage, key: bytes, head: DigestHead, recipient: Recipient,
              links: Links) -> bytes:
    """The recipient's message, as handed to the server."""
    page = links.unsubscribe(email, recipient)
    mailbox = f"mailto:{email.unsubscribe_mailto}?subject=unsubscribe" if email.unsubscribe_mailto else None
    uris = [uri for uri in (mailbox, page) if uri]
    # The footer links to the one-click page if there is one, else to the mailbox.
    return encoded.to(recipient.address, message_id(email, key, head, recipient.address), unsubscribe=uris[-1],
                      list_unsubscribe=uris, one_click=page is not None, preferences=links.preferences(recipient))
