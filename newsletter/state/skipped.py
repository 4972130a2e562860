"""The posts the sources' filters skip, as the state database keeps them.

A skipped post stays in the posts table (and in `newsletter posts`, with why), but leaves
the grouping: it waits in `ungrouped` like a changed post, and the next regrouping takes it
out of its entry (regroup.py), so no feed, digest, page or feature history shows it. Whether
a post is skipped depends on its stored title and its source's filter only, so a filter
change decides again over the stored summaries: nothing is summarized or fetched again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from newsletter.config.filters import TitleFilter
from newsletter.state.database import Database
from newsletter.state.store import Store
from newsletter.version import __version__

_MARK = "title filters"


def refilter(store: Store, filters: Mapping[str, TitleFilter]) -> None:
    """Decide which posts are skipped under `filters` (by source name; a source without one
    skips nothing), in one transaction: the posts saved since the last grouping, or every
    post when the filters (or the program's pre-release rule) changed since the last build.
    A post that comes in or goes out waits to be regrouped."""
    fingerprint = hashlib.sha256(json.dumps(
        [__version__, sorted((name, f.fingerprint()) for name, f in filters.items())]).encode()).hexdigest()
    with store.transaction() as db:
        everything = store.archive_mark(_MARK) != fingerprint
        rows = db.execute(
            f"SELECT id, source, {db.dialect.json_text('summary', 'title')} FROM posts"
            + ("" if everything else " WHERE id IN (SELECT post_id FROM ungrouped)")
        ).fetchall()
        skipped = dict(db.execute("SELECT post_id, reason FROM skipped_posts"))
        for post_id, source, title in rows:
            title_filter = filters.get(source)
            reason = title_filter.skip_reason(title) if title_filter else None
            if reason == skipped.get(post_id):
                continue
            if reason is None:
                _let_in(db, post_id)
                continue
            if post_id not in skipped:
                # The version last grouped, unless it waits already: its keys are in the index.
                db.execute("INSERT INTO ungrouped (post_id, url, summary, content_hash)"
                           " SELECT id, url, summary, content_hash FROM posts WHERE id = ? ON CONFLICT DO NOTHING",
                           (post_id,))
            db.execute("INSERT INTO skipped_posts (post_id, reason) VALUES (?, ?) ON CONFLICT (post_id)"
                       " DO UPDATE SET reason = excluded.reason", (post_id, reason))
        db.execute("INSERT INTO archive_marks (name, value) VALUES (?, ?) ON CONFLICT (name)"
                   " DO UPDATE SET value = excluded.value", (_MARK, fingerprint))


def _let_in(db: Database, post_id: int) -> None:
    """A skipped post let back in: grouped as a new post (its keys left the index with it),
    and no news if a digest has gone out since it last changed: that digest would have
    carried it, had the filter been as it is now."""
    db.execute("DELETE FROM skipped_posts WHERE post_id = ?", (post_id,))
    db.execute("INSERT INTO ungrouped (post_id) VALUES (?) ON CONFLICT DO NOTHING", (post_id,))
    db.execute("""INSERT INTO backlog_posts (post_id) SELECT id FROM posts
                  WHERE id = ? AND changed <= (SELECT max(created) FROM digests) ON CONFLICT DO NOTHING""",
               (post_id,))


def reasons(store: Store) -> dict[int, str]:
    """Why each skipped post is skipped, by post id."""
    return dict(store.db.execute("SELECT post_id, reason FROM skipped_posts"))


def locations(store: Store) -> list[tuple[int, str, str]]:
    """The id, source and location of every skipped post."""
    return store.db.execute(
        "SELECT id, source, location FROM posts WHERE id IN (SELECT post_id FROM skipped_posts) ORDER BY id",
    ).fetchall()
