"""One build, top to bottom: collect -> summarize what changed -> group forms -> digest -> publish.

The CLI's `build` and the scheduler's jobs both call `build`, so the manual and the
scheduled paths are the same code.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

from newsletter import archive
from newsletter.config import Config
from newsletter.errors import PostError
from newsletter.models import CacheValidators, Post, SourceResult
from newsletter.regroup import regroup
from newsletter.sources import collect as collector
from newsletter.state import lock
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store
from newsletter.summarize import summarize_document
from newsletter.text import NOT_XML, looks_binary, parse

log = logging.getLogger(__name__)

# Older than the web's release announcements: a date before this is a mistake.
EARLIEST_POST = datetime(1990, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class BuildReport:
    posts_seen: int
    posts_summarized: int
    problems: tuple[str, ...]
    # The digest this build made, if there was anything new to carry.
    new_digest: str | None


def build(
    config: Config, *, now: datetime, since: datetime | None = None, make_digest: bool = True,
    on_collected: Callable[[SourceResult], None] | None = None, refetch: bool = False,
) -> BuildReport:
    """Raises LockedError at once if another build uses the same state database.

    With `make_digest` false (the scheduler's collect job) the feeds are brought up to date
    and new posts wait for the next digest. `on_collected` hears of each source as its
    collection ends (for a progress bar). With `refetch`, every page, feed and file is read
    in full once more, whatever its validators say (an edit behind an unchanged ETag).
    """
    with lock.exclusive(lock.for_state(config.state_path)):
        with Store.open(config.state_path) as store:
            known = {} if refetch else store.validators()
            seen, summarized, problems = _collect_and_summarize(config, store, now, known, on_collected)
            index = EntryIndex(store)
            regrouping = regroup(index, site_url=config.site.url, site_language=config.site.language)
            if regrouping is not None:
                index.save(regrouping)
            new_digest = _make_digest(store, index, now, since) if make_digest else None
            archive.write(config, store, index)
    return BuildReport(seen, summarized, tuple(problems), new_digest)


def _collect_and_summarize(
    config: Config, store: Store, now: datetime, known: Mapping[str, Mapping[str, CacheValidators]],
    on_collected: Callable[[SourceResult], None] | None,
) -> tuple[int, int, list[str]]:
    seen = summarized = 0
    problems = []
    results = collector.collect(
        config.sources, http=config.http, known=known, on_collected=on_collected,
    )
    for result in results:
        if result.error:
            problems.append(f"source {result.source!r}: {result.error}")
            store.record_collection(result, now)
            continue
        # What the web server said has not changed (HTTP 304) stays as stored, untouched.
        seen += len(store.locations(result.source)) if result.not_modified else len(result.unchanged)
        read_again = []
        all_saved = True
        for post in result.posts:
            seen += 1
            where = post.url or post.location
            try:
                text = _xml_safe_text(post.text, where, problems)
            except PostError as exc:
                problems.append(f"{where}: {exc}")
                continue
            content_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
            if store.content_hash(post.source, post.location) == content_hash:
                read_again.append(post.location)
                continue
            if _summarize_and_save(store, replace(post, text=text), content_hash, now, problems):
                summarized += 1
            else:
                all_saved = False
        # Complete only now: a folder finds the files it cannot read as the loop reads them.
        problems.extend(f"{location}: {reason}" for location, reason in result.skipped)
        store.touch(result.source, read_again, now)
        # Without the new validators, a post that could not be saved is read in full again
        # next time rather than answered "not modified".
        store.record_collection(result if all_saved else replace(result, validators={}), now)
    for problem in problems:
        log.warning("%s", problem)
    return seen, summarized, problems


def _xml_safe_text(text: str, where: str, problems: list[str]) -> str:
    """`text` without the characters XML cannot carry; PostError if it is binary data."""
    if looks_binary(text):
        raise PostError("binary data, not a text post; skipped")
    cleaned, removed = NOT_XML.subn("", text)
    if removed:
        problems.append(f"{where}: {removed} control characters (such as NUL) removed")
    return cleaned


def _summarize_and_save(store: Store, post: Post, content_hash: str, now: datetime, problems: list[str]) -> bool:
    try:
        document = parse(post.text, post.media_type, base_url=post.url)
        summary = summarize_document(document, url=post.url)
    except Exception as exc:  # one bad post must not take the build down
        problems.append(f"{post.url or post.location}: cannot summarize: {exc}")
        return False
    if document.front_matter_problem:
        problems.append(f"{post.url or post.location}: {document.front_matter_problem}")
    summary = replace(
        summary,
        published=_plausible(summary.published, now) or _plausible(post.published, now),
        title=summary.title or post.title,
        author=summary.author or post.author,
    )
    store.save_post(
        source=post.source, location=post.location, url=post.url,
        content_hash=content_hash, summary=summary, now=now,
    )
    return True


def _plausible(published: datetime | None, now: datetime) -> datetime | None:
    """A publication date a post could have; else None, and the post counts as published
    when first seen (a date in 9999 would pin it atop every feed)."""
    if published is None or not EARLIEST_POST <= published <= now + timedelta(days=2):
        return None
    return published


def _make_digest(store: Store, index: EntryIndex, now: datetime, since: datetime | None) -> str | None:
    carried = index.entries_of_posts(store.undigested_post_ids(since))
    if not carried:
        return None
    return store.add_digest(carried, now)
