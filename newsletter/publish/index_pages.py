"""The archive's index in pages, as RFC 5005 pages a feed: index.html lists the newest
digests, and every full page is kept under its number (`index-<n>.html`, counted from the
first digest) with the digests it holds for good. A build writes the pages whose digests or
links changed, and index.html when its posts change: one small page, not a list of every
digest ever made.

A page is full once it holds PAGE_DIGESTS digests, or PAGE_POSTS posts between them (a
first build's digest may carry thousands); the next digest starts a new page. index.html
shows the newest page, full or not. A full page lists its posts as they were when it was
last written: like the digests it links to, it is a record of what was sent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from newsletter.config import Config
from newsletter.models import DigestHead, EntryStamp
from newsletter.publish.paths import INDEX, index_page_path
from newsletter.version import __version__

PAGE_DIGESTS = 20
PAGE_POSTS = 500


@dataclass(frozen=True)
class IndexPage:
    path: str
    # Oldest first.
    digests: tuple[DigestHead, ...]
    # The neighbouring pages (paths relative to the archive folder), if any.
    older: str | None
    newer: str | None

    def fingerprint(self, config: Config, templates: str, entries: Sequence[EntryStamp] = ()) -> str:
        """Changes whenever the page's bytes could: its digests and links, the site, the
        templates (their `templates_fingerprint`), the program, and the `entries` it lists
        (for index.html, whose posts are shown as they are now)."""
        parts = [__version__, repr(config.site), str(config.web is not None), templates, self.path,
                 str(self.older), str(self.newer)]
        parts += [f"{digest.id} {digest.name} {digest.created.isoformat()}" for digest in self.digests]
        parts += [f"{entry.id} {entry.updated.isoformat()} {list(entry.forms)}" for entry in entries]
        return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def index_pages(digests: Sequence[DigestHead]) -> list[IndexPage]:
    """The full pages, oldest first, then index.html, from every digest, oldest first."""
    pages: list[list[DigestHead]] = [[]]
    for digest in digests:
        if _full(pages[-1]):
            pages.append([])
        pages[-1].append(digest)
    full = len(pages) if _full(pages[-1]) else len(pages) - 1
    numbered = [
        IndexPage(
            path=index_page_path(number), digests=tuple(pages[number - 1]),
            older=index_page_path(number - 1) if number > 1 else None,
            newer=index_page_path(number + 1) if number < full else INDEX,
        )
        for number in range(1, full + 1)
    ]
    newest = len(pages)
    index = IndexPage(INDEX, tuple(pages[-1]), older=index_page_path(newest - 1) if newest > 1 else None, newer=None)
    return [*numbered, index]


def _full(page: list[DigestHead]) -> bool:
    return len(page) >= PAGE_DIGESTS or sum(digest.entry_count for digest in page) >= PAGE_POSTS
