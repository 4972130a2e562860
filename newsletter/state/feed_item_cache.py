"""The feed_item_cache table (see schema.py): the items of posts.atom's entries as the feed
was last written, and their elements in it, each with the fingerprint of what it was made
from. posts.atom is written again with every new post; its other entries' items and
elements are read from here instead of being made again from their summaries.

Items travel as the JSON publish/feed_items.py makes and reads; this module only keeps them.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from newsletter.state.store import Store


@dataclass(frozen=True)
class KeptItem:
    fingerprint: str
    # The entry's publication time (ISO), which orders the feed.
    published: str
    item: dict[str, Any]
    # Its element in posts.atom (atom.RenderedFeed); None if not kept.
    atom: bytes | None


def kept(store: Store, fingerprints: Mapping[int, str]) -> dict[int, KeptItem]:
    """The item kept of each of these entries (by key) whose fingerprint is the one given."""
    rows = store.db.execute(
        "SELECT entry, fingerprint, published, item, atom FROM feed_item_cache"
        f" WHERE entry IN ({store.db.dialect.ids})",
        (json.dumps(list(fingerprints)),),
    )
    return {entry: KeptItem(fingerprint, published, json.loads(item), atom and atom.encode())
            for entry, fingerprint, published, item, atom in rows if fingerprints[entry] == fingerprint}


def keep(store: Store, made: Mapping[int, KeptItem], shown: Collection[int]) -> None:
    """Keep the items `made` (by entry key) and forget those of entries not `shown` any more,
    in one transaction."""
    with store.transaction() as db:
        db.execute(f"DELETE FROM feed_item_cache WHERE entry NOT IN ({db.dialect.ids})", (json.dumps(list(shown)),))
        db.executemany(
            "INSERT INTO feed_item_cache (entry, fingerprint, published, item, atom) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT (entry) DO UPDATE SET fingerprint = excluded.fingerprint,"
            " published = excluded.published, item = excluded.item, atom = excluded.atom",
            [(key, item.fingerprint, item.published, json.dumps(item.item, sort_keys=True),
              item.atom and item.atom.decode()) for key, item in made.items()],
        )
