"""One build, top to bottom: collect -> summarize what changed -> group forms -> digest -> publish.

The CLI's `build` and the scheduler's jobs both call `build`, so the manual and the
scheduled paths are the same code.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta

from newsletter.config import Config, FeedSource
from newsletter.errors import PostError
from newsletter.models import CacheValidators, Post, PostFormat, SourceResult, Summary
from newsletter.processes import EarlyWorker
from newsletter.publish import output, paths
from newsletter.regroup import regroup
from newsletter.sources import collect as collector
from newsletter.state import lock, post_files, skipped
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store
from newsletter.summarize.batch import PostText, Summarizer

log = logging.getLogger(__name__)

# Posts summarized at a time: enough to keep every core busy, few enough to hold in memory.
_BATCH = 64
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
    on_posts_done: Callable[[int], None] | None = None, early: EarlyWorker | None = None,
) -> BuildReport:
    """Raises LockedError at once if another build uses the same state database.

    With `make_digest` false (the scheduler's collect job) the feeds are brought up to date
    and new posts wait for the next digest. `on_collected` hears of each source as its
    collection ends, and `on_posts_done` of how many more posts are through (found
    unchanged, summarized and saved, or skipped): for progress bars. With `refetch`, every page, feed and file is read
    in full once more, whatever its validators say (an edit behind an unchanged ETag). An
    `early` worker (the command line's) is given the few new posts to summarize and their
    pages to render.
    """
    with lock.state(config.state, "build") as held:
        with Store.open(config.state) as store:
            # Left by a killed build; removed while the early worker loads, as no new post changes them.
            output.remove_stale_temporaries(config.archive_dir / folder for folder in paths.OUTPUT_FOLDERS)
            known = {} if refetch else store.validators()
            seen, summarized, problems = _collect_and_summarize(
                config, store, now, known, on_collected, _skipping_backlog(config, store),
                on_posts_done or (lambda _count: None), early)
            # Imported once the posts are summarized: an early worker's first job leaves this
            # process the time to, while the worker summarizes (processes.EarlyWorker).
            from newsletter import archive
            from newsletter.publish.feature_pages import FeatureHistories
            skipped.refilter(store, config.title_filters)
            index = EntryIndex(store)
            id_site = store.entry_id_site(config.site.url)
            while (regrouping := regroup(index, site_url=id_site, site_language=config.site.language)):
                index.save(regrouping)

            histories = FeatureHistories(index, config)
            # What follows is seen by readers and subscribers: a run that lost the lock (and
            # so may be building beside another) stops short of it.
            held.check("writing and recording the new digest")
            new_digest = archive.new_digest(config, store, index, now, since, histories) if make_digest else None
            held.check("publishing the archive")
            archive.write(config, store, index, histories, early)
    return BuildReport(seen, summarized, tuple(problems), new_digest)


def _skipping_backlog(config: Config, store: Store) -> frozenset[str]:
    """The sources whose backlog this build skips: those set to, never collected yet. One
    whose first collection failed or was cut short skips what it finds until one succeeds."""
    statuses = store.source_statuses()
    return frozenset(
        source.name for source in config.sources
        if source.backlog == "skip" and (source.name not in statuses or statuses[source.name].last_success is None)
    )


def _collect_and_summarize(
    config: Config, store: Store, now: datetime, known: Mapping[str, Mapping[str, CacheValidators]],
    on_collected: Callable[[SourceResult], None] | None, skipping: frozenset[str],
    on_posts_done: Callable[[int], None], early: EarlyWorker | None,
) -> tuple[int, int, list[str]]:
    seen = summarized = 0
    problems = []
    # Its pool stops once the posts are summarized: its workers would hold their memory
    # through publishing, and its thread would keep the pages' renderers from forking.
    with Summarizer(early=early) as summarizer:
        results = collector.collect(
            config.sources, http=config.http, known=known, on_collected=on_collected,
        )
        # What the web server said has not changed (HTTP 304) stays as stored: no work per source.
        seen += store.record_unchanged((r.source for r in results if r.not_modified), now)
        summarizing: _Summarizing | None = None
        for result in results:
            if result.not_modified:
                continue
            if result.error:
                problems.append(f"source {result.source!r}: {result.error}")
                store.record_collection(result, now)
                continue
            if summarizing is None:
                caps = {source.name: source.max_posts for source in config.sources if isinstance(source, FeedSource)}
                summarizing = _Summarizing(summarizer, store, now, problems, caps, skipping, on_posts_done)
            seen += summarizing.read(result)
        if summarizing is not None:
            summarizing.flush()
            if summarizing.shown:
                from newsletter.publish import page_texts

                page_texts.render_ahead([page_texts.PostText(*shown) for shown in summarizing.shown], early)
            summarized = summarizing.summarized
    for problem in problems:
        log.warning("%s", problem)
    return seen, summarized, problems


@dataclass
class _SourceReading:
    result: SourceResult
    # Posts read again and found unchanged.
    read_again: list[str] = field(default_factory=list)
    all_saved: bool = True
    # Its posts whose files are gone, which a new file may continue (looked up at the first
    # new file of a folder); each leaves the list once a file continues it.
    gone: list[post_files.GonePost] | None = None


class _Summarizing:
    """The new and changed posts of every source, summarized in batches that may span
    sources (a feed brings two or three posts: alone, they would never fill the pool) and
    saved in the order read; a source's record is written once its last post is saved."""

    def __init__(
        self, summarizer: Summarizer, store: Store, now: datetime, problems: list[str],
        caps: Mapping[str, int], skipping: frozenset[str], on_done: Callable[[int], None],
    ):
        self.summarizer = summarizer
        self.store, self.now, self.problems = store, now, problems
        # The most posts each capped source may keep (max_posts).
        self.caps = caps
        self.skipping = skipping
        # Told how many posts are done, for a progress display.
        self.on_done = on_done
        # A bounded number of posts at a time: a folder's are read from disk one by one.
        self.batch: list[tuple[Post, str, _SourceReading, list[post_files.GonePost]]] = []
        # Sources read to their end whose posts may wait in the batch.
        self.read_through: list[_SourceReading] = []
        self.summarized = 0
        # The texts saved for their pages to show, and how they are written, while few
        # enough for the early worker to render them ahead (page_texts.render_ahead); None
        # once there are more, or with no early worker.
        self.shown: list[tuple[str, PostFormat]] | None = [] if summarizer.early is not None else None

    def read(self, result: SourceResult) -> int:
        """Queue the source's new and changed posts; the number of its posts seen."""
        reading = _SourceReading(result)
        # Files the folder vouched unchanged (same size and time) are not even read.
        seen = len(result.unchanged)
        self.on_done(seen)
        cap = self.caps.get(result.source)
        room = cap - self.store.post_count(result.source) if cap is not None else None
        not_kept = 0
        for post in result.posts:
            seen += 1
            post = _xml_safe_fields(post)
            try:
                text = _xml_safe_text(post.text, post.url or post.location, self.problems)
            except PostError as exc:
                self.problems.append(f"{post.url or post.location}: {exc}")
                self.on_done(1)
                continue
            content_hash = hashlib.sha256(text.encode("utf-8")).hexdigest()
            stored_hash = self.store.content_hash(post.source, post.location)
            gone = self._gone(reading) if stored_hash is None else []
            if (renamed := next((g for g in gone if g.content_hash == content_hash), None)) is not None:
                # The same text under a new name: its post moves here, and is saved again as
                # a changed post, so that its entry's pages and links name the new file.
                gone.remove(renamed)
                post_files.move_post(self.store, renamed.id, post.source, post.location)
                gone = []
            if stored_hash == content_hash:
                reading.read_again.append(post.location)
                self.on_done(1)
                continue
            if post_files.over_budget(self.store, content_hash):
                log.info("%s: not summarized: this text ran over the time budget before; skipped until it"
                         " changes", post.url or post.location)
                self.on_done(1)
                continue
            if stored_hash is None and room is not None:
                if room <= 0:
                    not_kept += 1
                    self.on_done(1)
                    continue
                room -= 1
            self.batch.append((replace(post, text=text), content_hash, reading, gone))
            if len(self.batch) == _BATCH:
                self.flush()
        if not_kept:
            self.problems.append(f"source {result.source!r}: {not_kept} new posts not kept: it keeps {cap} posts at"
                                 " most (max_posts)")
        self.read_through.append(reading)
        return seen

    def flush(self) -> None:
        saved = _summarize_and_save(self.summarizer, self.store, [(p, h, g) for p, h, _, g in self.batch],
                                    self.now, self.problems, self.skipping) if self.batch else []
        for (post, _hash, reading, _gone), summary in zip(self.batch, saved, strict=True):
            reading.all_saved = reading.all_saved and summary is not None
            if summary is not None and post.url is None and self.shown is not None:
                self.shown.append((post.text, summary.format))
        if self.shown is not None:
            # Imported by now with the publishers, while the early worker summarized.
            from newsletter.publish.page_texts import MIN_POOL_TEXTS

            if len(self.shown) >= MIN_POOL_TEXTS:  # the pages' texts go to a pool instead
                self.shown = None
        self.summarized += sum(summary is not None for summary in saved)
        self.on_done(len(self.batch))
        self.batch = []
        for reading in self.read_through:
            result = reading.result
            # Complete only now: a folder finds the files it cannot read as they are read.
            self.problems.extend(f"{location}: {reason}" for location, reason in result.skipped)
            self.store.touch(result.source, reading.read_again, self.now)
            # Without the new validators, a post that could not be saved is read in full
            # again next time rather than answered "not modified".
            self.store.record_collection(result if reading.all_saved else replace(result, validators={}), self.now)
            if result.gone:
                post_files.forget_gone_files(self.store, result.source, result.gone)
        self.read_through = []

    def _gone(self, reading: _SourceReading) -> list[post_files.GonePost]:
        if reading.gone is None:
            gone = reading.result.gone
            reading.gone = post_files.gone_posts(self.store, reading.result.source, gone) if gone else []
        return reading.gone


def _xml_safe_text(text: str, where: str, problems: list[str]) -> str:
    """`text` without the characters XML cannot carry; PostError if it is binary data."""
    from newsletter.text.encoding import NOT_XML, looks_binary

    if looks_binary(text):
        raise PostError("binary data, not a text post; skipped")
    cleaned, removed = NOT_XML.subn("", text)
    if removed:
        problems.append(f"{where}: {removed} control characters (such as NUL) removed")
    return cleaned


def _xml_safe_fields(post: Post) -> Post:
    """`post` without the characters XML cannot carry in what its source says beside the
    text: they mean nothing there, and a NUL is more than PostgreSQL's text can store."""
    from newsletter.text.encoding import NOT_XML

    def clean(value: str | None) -> str | None:
        return NOT_XML.sub("", value) if value else value

    return replace(post, location=NOT_XML.sub("", post.location), url=clean(post.url), title=clean(post.title),
                   author=clean(post.author))


def _summarize_and_save(
    summarizer: Summarizer, store: Store, batch: list[tuple[Post, str, list[post_files.GonePost]]], now: datetime,
    problems: list[str], skipping: frozenset[str],
) -> list[Summary | None]:
    """Summarizes the batch (on every core when it is big enough) and saves its posts in
    order, those of the `skipping` sources as backlog; each one's summary as saved, None if
    it was not. A new file that continues one of the posts given with it (gone from its
    folder) takes that post's place, as an edit of it."""
    results = summarizer.summarize([PostText(post.text, post.media_type, post.url) for post, _, _ in batch])
    saved: list[Summary | None] = []
    for (post, content_hash, gone), result in zip(batch, results, strict=True):
        where = post.url or post.location
        if result.front_matter_problem:
            problems.append(f"{where}: {result.front_matter_problem}")
        if result.over_budget:
            post_files.remember_over_budget(store, content_hash, where, now)
        if result.summary is None:
            problems.append(f"{where}: {result.error}")
            saved.append(None)
            continue
        if (continued := post_files.continued_by(result.summary.title, gone)) is not None:
            gone.remove(continued)
            post_files.move_post(store, continued.id, post.source, post.location)
        summary = replace(
            result.summary,
            published=_plausible(result.summary.published, now) or _plausible(post.published, now),
            title=result.summary.title or post.title,
            author=result.summary.author or post.author,
        )
        store.save_post(
            source=post.source, location=post.location, url=post.url,
            content_hash=content_hash, summary=summary, now=now, backlog=post.source in skipping,
            # A post not fetched from the web may have no address to be read at (a draft, a
            # translation naming its original): its page in the archive shows its text.
            text=None if post.url else post.text,
        )
        saved.append(summary)
    return saved


def _plausible(published: datetime | None, now: datetime) -> datetime | None:
    """A publication date a post could have; else None, and the post counts as published
    when first seen (a date in 9999 would pin it atop every feed)."""
    if published is None or not EARLIEST_POST <= published <= now + timedelta(days=2):
        return None
    return published
