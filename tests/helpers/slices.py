"""Subscribers' slices set as the operator's command sets them, and what a message shows."""

from __future__ import annotations

from email.message import EmailMessage

from helpers import NOW
from newsletter.config import Config
from newsletter.models import Slice
from newsletter.state import subscribers
from newsletter.state.store import Store

STABLE_ONLY = Slice(min_stability="stable")


def give_slices(config: Config, slices: dict[str, Slice]) -> None:
    """Give each address (listed in the config, or added) its slice."""
    with Store.open(config.state) as store:
        subscribers.ensure_listed(store, slices, NOW)
        for address, chosen in slices.items():
            row = subscribers.get(store, address)
            assert row is not None
            subscribers.set_slice(store, row.id, chosen)


def bodies(message: EmailMessage) -> tuple[str, str]:
    """The text and the HTML of a digest message."""
    text, html = (part.get_content().replace("\r\n", "\n") for part in message.iter_parts())
    return text, html
