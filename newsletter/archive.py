"""Writing the archive folder after a build: a new digest's files as it is recorded, each
digest's files once, the pages of the posts that changed, the feed pages and the index pages
whose fingerprint changed, and the digests feed.

Pages are written only when missing or changed, and the entries a page shows are loaded
(their summaries decoded) only to write that page: a build with one new post rewrites
posts.atom, index.html and the digest, whatever the size of the history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from contextlib import closing
from dataclasses import replace
from datetime import datetime
from itertools import islice
from pathlib import Path

from newsletter.config import Config
from newsletter.mail.message import archive_message
from newsletter.models import Digest, DigestHead, EntryStamp, RenderedDigest
from newsletter.processes import EarlyWorker
from newsletter.publish import atom, feature_pages, features, index_pages, json_feed, page_texts, paths, views
from newsletter.publish import digest as digests
from newsletter.publish.feed_items import ITEM_FIELDS, FeedItem, entry_item, feed_items, feed_order
from newsletter.publish.output import (
    put_in_place,
    remove,
    staged,
    write_all_atomic,
    write_atomic,
)
from newsletter.state import digest_feed_entries, feed_item_cache, skipped
from newsletter.state.digest_copies import DigestSnapshot
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store
from newsletter.version import __version__

# Entries whose pages are checked at a time: their stamps are read without their summaries.
_POST_PAGES_AT_ONCE = 500
# Post pages handed to the writers at once.
_PAGES_WRITTEN_TOGETHER = 50


def write(config: Config, store: Store, index: EntryIndex, histories: feature_pages.FeatureHistories,
          early: EarlyWorker | None) -> None:
    """Every output that is missing or whose fingerprint changed; the entries a page shows
    are loaded only to write that page, the feature histories of a project only to write a
    digest of its posts or its changed page."""
    heads = store.digest_heads()
    _write_digests(config, store, index, heads, histories)
    _remove_skipped_post_pages(config, store)
    # Before the post pages, whose texts the early worker renders meanwhile (page_texts).
    feature_pages.write(config, index, histories)
    # Before the feed pages, which clear the mark of where the history changed.
    _write_post_pages(config, store, index, early)
    _write_feed_pages(config, store, index)
    _write_digests_feed(config, store, index, heads)
    _write_index(config, store, index, heads)


def new_digest(
    config: Config, store: Store, index: EntryIndex, now: datetime, since: datetime | None,
    histories: feature_pages.FeatureHistories,
) -> str | None:
    """Record and write a digest of the news (of the posts changed since `since`, if given);
    its name, or None when there is nothing to carry."""
    carried = index.carrying(store.post_ids_changed_since(since)) if since else index.news()
    if not carried:
        return None
    name = store.digest_name(now, taken=lambda name: (config.archive_dir / paths.digest_path(name)).exists())
    rendered, snapshot = digest_copy(config, Digest(0, name, now, index.loaded(carried)),
                                     {stamp.key for stamp in carried}, histories)
    # Recorded only once its files are written: a build that fails before (a template
    # error, a full disk) leaves no digest for the next build to publish and `send` to mail.
    write_digest_files(
        config, config.archive_dir / paths.DIGESTS_FOLDER, name, now, rendered,
        then=lambda: store.add_digest(name, carried, now, rendered, to_mail=config.email is not None,
                                     snapshot=snapshot),
    )
    return name


def _write_digests(
    config: Config, store: Store, index: EntryIndex, heads: list[DigestHead],
    histories: feature_pages.FeatureHistories,
) -> None:
    copied = store.digest_ids_with_copies()
    for head in heads:
        # A digest is a snapshot of what was sent: rendered once, kept as it was, for the
        # mail and the archive. One whose copy or files are missing (a build killed after
        # recording it, a database of an older version) is written now; the others cost no
        # read of their copy.
        rendered = None
        if head.id not in copied:
            digest = Digest(head.id, head.name, head.created, index.digest_entries(head.id))
            carried = {min(form.id for form in entry.forms) for entry in digest.entries}
            rendered, snapshot = digest_copy(config, digest, carried, histories)
            store.save_digest_copy(head.id, rendered, snapshot)
        if not _digest_file(config, head, "html").exists():
            rendered = rendered or store.digest_copy(head.id)
            assert rendered is not None  # saved above if it was missing
            write_digest_files(config, config.archive_dir / paths.DIGESTS_FOLDER, head.name, head.created, rendered)


def digest_copy(
    config: Config, digest: Digest, entry_keys: Collection[int], histories: feature_pages.FeatureHistories,
) -> tuple[RenderedDigest, DigestSnapshot | None]:
    """The digest as mailed and archived, with the changes of label its entries (by key)
    made; and, when there is mail, the snapshot subscribers' slices are rendered from at send
    time."""
    graduated = features.graduations(histories.of_entries(entry_keys), entry_keys)
    rendered = digests.render_digest(config, digest, features.graduated_lines(config, graduated))
    return rendered, DigestSnapshot(digest.entries, tuple(graduated)) if config.email else None


def write_digest_files(
    config: Config, folder: Path, name: str, created: datetime, rendered: RenderedDigest,
    then: Callable[[], None] = lambda: None,
) -> Path:
    """The digest as `<name>.txt`, `.eml` and `.html` in `folder`, addressed to no one;
    returns the HTML's path. `then` runs once the three are written under temporary names,
    before they take their own: the build records the digest there, so that a digest is
    recorded only with its files, and its files are in place only once it is recorded."""
    archived = digests.archive_copy(config, rendered)
    # The HTML last: its presence says the three are whole.
    files: dict[Path, bytes | str] = {
        folder / f"{name}.txt": archived.text,
        folder / f"{name}.eml": archive_message(config.site, name, created, rendered),
        folder / f"{name}.html": archived.html,
    }
    for path, data in files.items():
        write_atomic(staged(path), data)
    then()
    for path in files:
        put_in_place(path)
    return folder / f"{name}.html"


def _write_post_pages(config: Config, store: Store, index: EntryIndex, early: EarlyWorker | None) -> None:
    """The page of each form of every entry that changed: from the first place in the history
    a regrouping touched, the entries whose stamp moved; all of them when the templates, the
    site or the program changed. An entry's pages are recorded together, as `posts/entry-<key>`."""
    settings = hashlib.sha256(
        f"{__version__}\n{config.site!r}\n{digests.templates_fingerprint(config)}".encode()).hexdigest()
    start = 0 if store.archive_mark("post pages settings") != settings else index.history_changed_from()
    if start is None:
        return
    for first in range(start, index.entry_count(), _POST_PAGES_AT_ONCE):
        stamps = index.history(first, first + _POST_PAGES_AT_ONCE)
        names = {stamp.key: _post_pages_record(stamp.key) for stamp in stamps}
        written = store.page_fingerprints(names.values())
        fingerprints = {stamp.key: _entry_fingerprint(settings, stamp) for stamp in stamps}
        changed = [key for key in names if written.get(names[key]) != fingerprints[key]]
        entries = index.entries_by_key(changed)
        archive = config.archive_dir
        shown = {archive / paths.post_page_path(form.source, form.location): (form, views.post_page(entry, form))
                 for entry in entries.values() for form in entry.forms}
        # The texts of every page of the turn at once, so that many are rendered on every core;
        # their HTML comes back in their order, and the pages are written as it comes, a slice
        # at a time, rather than held for the whole turn.
        texts = {path: page_texts.PostText(text, page.text_format) for path, (form, page) in shown.items()
                 if page.post.url is None and (text := store.post_text(form.id))}
        with closing(page_texts.rendered(list(texts.values()), early=early)) as html:
            pages = ((path, digests.render_post_page(config, page, next(html) if path in texts else None))
                     for path, (_form, page) in shown.items())
            while written_now := dict(islice(pages, _PAGES_WRITTEN_TOGETHER)):
                write_all_atomic(written_now)
        for key in entries:
            store.record_page(names[key], fingerprints[key])
    store.set_archive_marks({"post pages settings": settings})


def _remove_skipped_post_pages(config: Config, store: Store) -> None:
    """The page of each post a filter skips, if it had one; its entry's record goes too, so
    that an entry it leads again once let back in has its pages written, whatever its stamp."""
    for post_id, source, location in skipped.locations(store):
        page = config.archive_dir / paths.post_page_path(source, location)
        if page.exists():
            # The record first: a build killed in between finds the page, and does both again.
            store.forget_page(_post_pages_record(post_id))
            remove(page)


def _write_feed_pages(config: Config, store: Store, index: EntryIndex) -> None:
    archive = config.archive_dir
    pages = atom.feed_pages(config, index.entry_count())
    settings = atom.feed_settings(config)
    changed = 0 if store.archive_mark("feed settings") != settings else index.history_changed_from()
    checked = []
    for number, page in enumerate(pages, start=1):
        # A page before the first change in the history holds the same entries; the last
        # full pages and posts.atom may also have gained or lost a neighbour.
        unchanged = changed is None or (page.stop <= changed and number < len(pages) - 2)
        outputs = _feed_page_files(page)
        if not (unchanged and all((archive / path).exists() for path in outputs)):
            checked.append((page, outputs))
    # The fingerprints of the pages checked only: the archive records one per post's pages.
    written = store.page_fingerprints([path for _, outputs in checked for path in outputs])
    for page, outputs in checked:
        stamps = index.history(page.start, page.stop)
        fingerprint = page.fingerprint(config, stamps)
        stale = [path for path in outputs if _stale(archive, path, fingerprint, written)]
        if not stale:
            continue
        if page.path == paths.POSTS_FEED:
            documents = _posts_feeds(config, store, index, page, stamps)
        else:
            loaded = index.entries_by_key(stamp.key for stamp in stamps)
            items = feed_items(config, [loaded[stamp.key] for stamp in stamps])
            documents = {page.path: atom.render_page(config, page, items).document}
        for path in stale:
            write_atomic(archive / path, documents[path])
            store.record_page(path, fingerprint)
    # Pages of an earlier page size (feed_size changed) would mislead a reader paging back.
    _remove_other_pages(archive, paths.FEED_PAGES_FOLDER, paths.FEED_PAGES_GLOB, {page.path for page in pages})
    if changed is not None:
        store.set_archive_marks({"history changed from": None, "feed settings": settings})


def _posts_feeds(config: Config, store: Store, index: EntryIndex, page: atom.FeedPage,
                 stamps: list[EntryStamp]) -> dict[str, bytes]:
    """posts.atom and posts.json, from the same items: those of the entries unchanged since
    posts.atom was last written as they were kept then (with their elements in it), the
    others made now, and kept once the feed is made."""
    settings = f"{atom.entry_settings(config)}\n{ITEM_FIELDS}"
    fingerprints = {stamp.key: _entry_fingerprint(settings, stamp) for stamp in stamps}
    records: dict[int, feed_item_cache.KeptItem] = {}
    dated: dict[int, tuple[datetime, FeedItem]] = {}
    for key, kept in feed_item_cache.kept(store, fingerprints).items():
        try:
            dated[key] = (datetime.fromisoformat(kept.published), FeedItem.from_json(kept.item))
        except (KeyError, TypeError, ValueError):  # kept by a program whose items differ: made again
            continue
        records[key] = kept
    for key, entry in index.entries_by_key(key for key in fingerprints if key not in dated).items():
        item = entry_item(config, entry)
        dated[key] = (entry.published, item)
        records[key] = feed_item_cache.KeptItem(fingerprints[key], entry.published.isoformat(), item.to_json(), None)
    # Sorted stably from the page's order, as newest_first sorts.
    order = sorted(fingerprints, key=lambda key: feed_order(*dated[key]), reverse=True)
    shown = [dated[key][1] for key in order]
    feed = atom.render_page(config, page, shown, [records[key].atom for key in order])
    to_keep = {key: replace(records[key], atom=element)
               for key, element in zip(order, feed.entries, strict=True) if records[key].atom is None}
    feed_item_cache.keep(store, to_keep, fingerprints)
    return {paths.POSTS_FEED: feed.document, paths.POSTS_JSON_FEED: json_feed.render(config, shown)}


def _feed_page_files(page: atom.FeedPage) -> list[str]:
    """The files a feed page is written as: posts.atom's entries are posts.json's too."""
    return [page.path, paths.POSTS_JSON_FEED] if page.path == paths.POSTS_FEED else [page.path]


def _write_digests_feed(config: Config, store: Store, index: EntryIndex, heads: list[DigestHead]) -> None:
    """digests.atom, with the entries of the digests it showed before as it kept them."""
    newest = heads[::-1][: config.digest_feed_size]
    # A digest's title counts the posts it still finds (digest_entries), as it always has.
    counts = index.digest_entry_counts([head.id for head in newest])
    shown = [replace(head, entry_count=counts[head.id]) for head in newest]
    pages = {head.id: _digest_file(config, head, "html").read_bytes() for head in shown}
    settings = atom.entry_settings(config)
    fingerprints = {head.id: hashlib.sha256(f"{settings}\n{head}\n".encode() + pages[head.id]).hexdigest()
                    for head in shown}
    kept = digest_feed_entries.kept(store, fingerprints)
    feed = atom.digests_feed(config, shown, lambda digest: digests.feed_body(pages[digest.id].decode("utf-8")),
                             [kept.get(head.id) for head in shown])
    write_atomic(config.archive_dir / paths.DIGESTS_FEED, feed.document)
    to_keep = {head.id: (fingerprints[head.id], element)
               for head, element in zip(shown, feed.entries, strict=True) if head.id not in kept}
    digest_feed_entries.keep(store, to_keep, fingerprints)


def _write_index(config: Config, store: Store, index: EntryIndex, heads: list[DigestHead]) -> None:
    archive = config.archive_dir
    templates = digests.templates_fingerprint(config)
    pages = index_pages.index_pages(heads)
    written = store.page_fingerprints([page.path for page in pages])
    for page in pages:
        # index.html lists its posts as they are now; a full page, as they were when written.
        listed = index.digest_stamps([head.id for head in page.digests]) if page.path == paths.INDEX else []
        fingerprint = page.fingerprint(config, templates, listed)
        if _stale(archive, page.path, fingerprint, written):
            shown = [Digest(head.id, head.name, head.created, index.digest_entries(head.id)) for head in page.digests]
            write_atomic(archive / page.path, digests.render_index(config, shown, older=page.older, newer=page.newer))
            store.record_page(page.path, fingerprint)
    # Pages of earlier page limits would mislead a reader paging back.
    _remove_other_pages(archive, "", paths.INDEX_PAGES_GLOB, {page.path for page in pages})


def _entry_fingerprint(settings: str, stamp: EntryStamp) -> str:
    """Changes whenever what is made of the entry could, under `settings`."""
    made_from = f"{settings}\n{stamp.id}\n{stamp.updated.isoformat()}\n{list(stamp.forms)}"
    return hashlib.sha256(made_from.encode()).hexdigest()


def _post_pages_record(key: int) -> str:
    """How the fingerprint of the pages of the entry named `key` is recorded."""
    return f"{paths.POSTS_FOLDER}/entry-{key}"


def _stale(archive: Path, path: str, fingerprint: str, written: Mapping[str, str]) -> bool:
    """Whether the page at `path` must be written: missing, or written from other content."""
    return written.get(path) != fingerprint or not (archive / path).exists()


def _remove_other_pages(archive: Path, folder: str, pattern: str, pages: set[str]) -> None:
    """The files of `folder` matching `pattern` that are none of `pages` (paths relative to
    the archive). Names are compared, not paths: a history of 10,000 posts has 200 feed pages."""
    prefix = f"{folder}/" if folder else ""
    names = {page.removeprefix(prefix) for page in pages}
    for path in sorted((archive / folder).glob(pattern)):
        if path.name not in names:
            remove(path)


def _digest_file(config: Config, digest: DigestHead, suffix: str) -> Path:
    return config.archive_dir / paths.digest_path(digest.name, suffix)
