"""Digests rendered to a folder and recorded nowhere: a one-off of the posts published in a
span of time, and a preview of the digest the next build makes.

Both read the posts the state database holds and write a digest's HTML, plain text and
`.eml` as the archive has them; neither records a digest, so `send` never mails them and
the next build's digest is not changed by them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from newsletter import archive
from newsletter.config import Config
from newsletter.errors import StoreError
from newsletter.models import Digest, Entry
from newsletter.publish.digest import render_digest
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store


def write_published(
    config: Config, folder: Path, now: datetime, start: datetime, end: datetime | None,
    sources: Collection[str] = (),
) -> tuple[Path, int] | None:
    """The digest of the posts published from `start` up to `end` (now if None), of the
    `sources` named (every source if none), written to `folder`: its HTML's path and the
    number of posts it carries, or None when no post was published then."""
    last_day = (end - timedelta(microseconds=1)).date() if end else now.date()
    with _open(config) as store:
        index = EntryIndex(store)
        entries = index.loaded(index.published_between(start, end))
        if sources:
            entries = [entry for entry in entries if any(form.source in sources for form in entry.forms)]
        return _write(config, folder, f"published-{start.date().isoformat()}-to-{last_day.isoformat()}", now, entries)


def write_preview(config: Config, folder: Path, now: datetime) -> tuple[Path, int] | None:
    """The digest the next build makes of the posts collected so far, written to `folder`
    as `preview.*`: its HTML's path and the number of posts it carries, or None when the
    next build has nothing new to carry."""
    with _open(config) as store:
        index = EntryIndex(store)
        return _write(config, folder, "preview", now, index.loaded(index.news()))


def _open(config: Config) -> Store:
    if not Store.exists(config.state):
        raise StoreError(f"{config.state}: no state database yet: run `newsletter build` first")
    return Store.open(config.state)


def _write(config: Config, folder: Path, name: str, now: datetime, entries: Sequence[Entry]) -> tuple[Path, int] | None:
    if not entries:
        return None
    rendered = render_digest(config, Digest(0, name, now, entries))
    return archive.write_digest_files(config, folder, name, now, rendered), len(entries)
