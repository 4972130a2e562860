"""Every post the state database knows, with the entry it is a form of, the digests that
carried it and why a filter skips it: what `newsletter posts` lists."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from newsletter.models import StoredPost
from newsletter.state import skipped
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store


@dataclass(frozen=True)
class ListedPost:
    post: StoredPost
    # The Atom id of its entry; None for a post not grouped yet (a build stopped half-way).
    entry: str | None
    # The names of the digests that carried it, oldest first.
    digests: tuple[str, ...]
    # Why its source's filter skips it (it is in no entry then), if it does.
    skipped: str | None = None

    def to_json(self) -> dict[str, Any]:
        post = self.post
        return {
            "title": post.summary.title,
            "published": post.summary.published.isoformat() if post.summary.published else None,
            "first_seen": post.first_seen.isoformat(),
            "source": post.source,
            "location": post.location,
            "url": post.url,
            "entry": self.entry,
            "digests": list(self.digests),
            "skipped": self.skipped,
        }


def listed_posts(store: Store) -> list[ListedPost]:
    """Every post, in the order they were first saved."""
    posts = store.posts()
    stamps = EntryIndex(store).carrying([post.id for post in posts])
    entry_of = {post_id: stamp.id for stamp in stamps for post_id in stamp.forms}
    carried: defaultdict[int, list[str]] = defaultdict(list)
    for post_id, name in store.db.execute(
        "SELECT post_id, name FROM digest_posts JOIN digests ON digests.id = digest_id ORDER BY digests.id"
    ):
        carried[post_id].append(name)
    why = skipped.reasons(store)
    return [ListedPost(post, entry_of.get(post.id), tuple(carried[post.id]), why.get(post.id)) for post in posts]
