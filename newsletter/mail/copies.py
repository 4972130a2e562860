"""The encoded copies of one digest a mailing sends: the build's for subscribers who take
everything, and one per distinct slice (newsletter/publish/slices.py) for the others,
rendered from the digest's snapshot the first time a subscriber of that slice is due and
kept in the state database (newsletter/state/digest_copies.py says why).

A digest built before snapshots were kept or while no mail was configured, or carrying no
posts at all, goes to everyone as the build rendered it: there is nothing to slice.
"""

from __future__ import annotations

import functools
import logging
from email.headerregistry import Address

from newsletter.config import Config
from newsletter.errors import MailError
from newsletter.mail.message import DigestMessage
from newsletter.models import DigestHead, RenderedDigest, Slice
from newsletter.publish.slices import render_slice
from newsletter.state import digest_copies, subscribers
from newsletter.state.digest_copies import DigestSnapshot
from newsletter.state.store import Store

log = logging.getLogger(__name__)


class DigestCopies:
    def __init__(self, config: Config, store: Store, head: DigestHead, sender: Address):
        self.config, self.store, self.head, self.sender = config, store, head, sender
        self.whole = DigestMessage(build_copy(store, head), sender, head.created)
        self.encoded: dict[str, DigestMessage | None] = {}
        # Read once a run: a slice changed meanwhile applies to the messages of later runs.
        self.slices = subscribers.slices(store)

    def message_for(self, subscriber_id: int) -> DigestMessage | None:
        """The copy for the subscriber; None when their slice holds nothing."""
        chosen = self.slices.get(subscriber_id, Slice())
        if chosen.everything or self.snapshot is None:
            return self.whole
        key = chosen.key()
        if key not in self.encoded:
            rendered = (digest_copies.slice_copy(self.store, self.head.id, key)
                        or self._render(self.snapshot, chosen, key))
            self.encoded[key] = DigestMessage(rendered, self.sender, self.head.created) if rendered else None
        return self.encoded[key]

    @functools.cached_property
    def snapshot(self) -> DigestSnapshot | None:
        """What slices are rendered from; None when there is nothing to slice."""
        if not self.head.entry_count:
            return None
        found = digest_copies.snapshot(self.store, self.head.id)
        if found is None:
            log.info("digest %s was built without what slices are made of: every subscriber gets all of it",
                     self.head.name)
        return found

    def _render(self, snapshot: DigestSnapshot, chosen: Slice, key: str) -> RenderedDigest | None:
        rendered = render_slice(self.config, self.head, snapshot, chosen)
        if rendered:
            digest_copies.save_slice_copy(self.store, self.head.id, key, rendered)
        return rendered


def build_copy(store: Store, head: DigestHead) -> RenderedDigest:
    rendered = store.digest_copy(head.id)
    if rendered is None:
        raise MailError(f"digest {head.name} has not been written yet (a build stopped half-way):"
                        " run `newsletter build`, then send")
    return rendered
