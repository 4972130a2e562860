"""Stored posts -> entries: the forms of one post grouped. (Placeholder: one entry per post.)"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from newsletter.models import Entry, StoredPost


def group_forms(posts: Sequence[StoredPost], *, site_url: str) -> list[Entry]:
    host = urlsplit(site_url).hostname or "localhost"
    entries = [
        Entry(
            id=post.summary.canonical_url
            or f"tag:{host},{post.first_seen.date().isoformat()}:{post.source}/{post.location}",
            primary=post,
        )
        for post in posts
    ]
    return sorted(entries, key=lambda e: (e.published, e.id), reverse=True)
