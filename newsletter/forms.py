"""Stored posts -> entries: the forms of one post grouped. (Placeholder: posts are one entry
when they share an id, that is their canonical URL.)"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from newsletter.models import Entry, StoredPost


def group_forms(posts: Sequence[StoredPost], *, site_url: str) -> list[Entry]:
    host = urlsplit(site_url).hostname or "localhost"
    forms: dict[str, list[StoredPost]] = {}
    for post in posts:
        entry_id = (
            post.summary.canonical_url
            or f"tag:{host},{post.first_seen.date().isoformat()}:{post.source}/{post.location}"
        )
        forms.setdefault(entry_id, []).append(post)
    entries = [Entry(id=entry_id, primary=first, alternates=tuple(rest))
               for entry_id, (first, *rest) in forms.items()]
    return sorted(entries, key=lambda e: (e.published, e.id), reverse=True)
