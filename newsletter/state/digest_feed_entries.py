"""The digest_feed_entries table (see schema.py): each entry of digests.atom as the feed was
last written, with the fingerprint of what it was made from. digests.atom is written again
with every new digest; its other entries are taken from here instead of being made again
from their digests' files (two HTML parses and feedgen: a few milliseconds for a digest of
tens of posts)."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping

from newsletter.state.store import Store


def kept(store: Store, fingerprints: Mapping[int, str]) -> dict[int, bytes]:
    """The element kept of each of these digests (by id) whose fingerprint is the one given."""
    rows = store.db.execute(
        f"SELECT digest, fingerprint, atom FROM digest_feed_entries WHERE digest IN ({store.db.dialect.ids})",
        (json.dumps(list(fingerprints)),),
    )
    return {digest: atom.encode() for digest, fingerprint, atom in rows if fingerprints[digest] == fingerprint}


def keep(store: Store, made: Mapping[int, tuple[str, bytes]], shown: Collection[int]) -> None:
    """Keep the elements `made` (by digest id, each with its fingerprint) and forget those of
    digests not `shown` any more, in one transaction."""
    with store.transaction() as db:
        db.execute(f"DELETE FROM digest_feed_entries WHERE digest NOT IN ({db.dialect.ids})",
                   (json.dumps(list(shown)),))
        db.executemany(
            "INSERT INTO digest_feed_entries (digest, fingerprint, atom) VALUES (?, ?, ?)"
            " ON CONFLICT (digest) DO UPDATE SET fingerprint = excluded.fingerprint, atom = excluded.atom",
            [(digest, fingerprint, element.decode()) for digest, (fingerprint, element) in made.items()],
        )
