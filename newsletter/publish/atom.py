"""Entries and digests -> Atom feeds (feedgen), byte-identical across rebuilds of the same input.

`posts.atom` holds the newest entries; every older one stays reachable through RFC 5005
archive pages (`feeds/posts-<n>.atom`). Pages are fixed-size slices of the history counted
from the first entry ever published, in the order entries arrived, so a new entry never moves
an old one to another page: a page, once full, keeps its entries for good.

feedgen needs care: it stamps `updated` with the build time unless told otherwise, prepends
entries unless `order="append"`, and (1.0) drops the `rel`, `type` and `hreflang` of entry
links, so links and `xml:lang` are written by a small extension here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import pairwise

import nh3
from feedgen.ext.base import BaseEntryExtension, BaseExtension
from feedgen.feed import FeedGenerator
from feedgen.version import version_str as feedgen_version
from lxml import etree

from newsletter import words
from newsletter.config import Config
from newsletter.languages import language_tag
from newsletter.models import DigestHead, EntryStamp
from newsletter.publish.feed_items import FeedItem
from newsletter.publish.paths import (
    DIGESTS_FEED,
    JSON_FEED_TYPE,
    POSTS_FEED,
    POSTS_JSON_FEED,
    digest_path,
    feed_page_path,
    site_url,
)
from newsletter.publish.sanitize import clean_html, one_line
from newsletter.publish.views import FormLink
from newsletter.version import __version__

# RFC 5005: marks a document as an archive page, whose content will not change.
HISTORY_NS = "http://purl.org/syndication/history/1.0"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"

# The feeds' `updated` when there is no entry at all: a fixed instant, never the build time,
# so that an empty feed is byte-identical across rebuilds too.
EPOCH = datetime.fromisoformat("1970-01-01T00:00:00+00:00")

# How feedgen's pretty-printed document ends, and how each entry's element starts in it:
# entries are the feed element's last children, one level in, and text never holds a `<`.
_FEED_END = b"</feed>\n"
_ENTRY_START = re.compile(rb"^  <entry[ >]", re.MULTILINE)


class _FeedExtras(BaseExtension):
    """Marks an RFC 5005 archive page with <fh:archive/>."""

    def __init__(self) -> None:
        self.archive = False

    def extend_ns(self) -> dict[str, str]:
        return {"fh": HISTORY_NS} if self.archive else {}

    def extend_atom(self, feed: etree._Element) -> etree._Element:
        if self.archive:
            etree.SubElement(feed, f"{{{HISTORY_NS}}}archive")
        return feed


class _EntryExtras(BaseEntryExtension):
    """The entry's links, with the attributes feedgen 1.0 loses, and its xml:lang."""

    def __init__(self) -> None:
        self.language: str | None = None
        self.links: list[dict[str, str]] = []

    def extend_atom(self, entry: etree._Element) -> etree._Element:
        if self.language:
            entry.set(XML_LANG, self.language)
        for link in self.links:
            # Unqualified like feedgen's own elements: feedgen declares the Atom namespace as
            # a plain xmlns attribute, so these inherit it when the document is read.
            etree.SubElement(entry, "link", link)
        return entry


@dataclass(frozen=True)
class FeedPage:
    """posts.atom or one of its archive pages: which entries it carries and where it links."""

    path: str
    # Its entries' positions in the history (the order entries arrived in): start..stop-1.
    start: int
    stop: int
    # Links to the neighbouring pages (paths relative to the archive folder), if any.
    prev_archive: str | None
    next_archive: str | None

    def fingerprint(self, config: Config, entries: Sequence[EntryStamp]) -> str:
        """Changes whenever the page's bytes could: an entry's content or forms, the page's
        links, the site, the program. A build skips pages whose fingerprint it wrote before,
        so one new post costs one page, not the whole history."""
        parts = [__version__, repr(config.site), self.path, str(self.prev_archive), str(self.next_archive)]
        parts += [f"{entry.id} {entry.updated.isoformat()} {list(entry.forms)}" for entry in entries]
        return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()


def feed_settings(config: Config) -> str:
    """What every feed page's bytes depend on besides its entries: when it changes, every
    page is checked again."""
    return hashlib.sha256(f"{__version__}\n{config.site!r}\n{config.feed_size}".encode()).hexdigest()


def entry_settings(config: Config) -> str:
    """What an entry's element depends on besides its post or digest: the program, the site,
    and the libraries that clean and write it. Kept elements (RenderedFeed.entries) are taken
    again only under the same: an upgrade of one makes them again, not a feed of two kinds."""
    libraries = f"feedgen {feedgen_version}, lxml {etree.LXML_VERSION}, nh3 {nh3.__version__}"  # type: ignore[attr-defined]
    return f"{__version__}\n{config.site!r}\n{libraries}"


def feed_pages(config: Config, count: int) -> list[FeedPage]:
    """posts.atom and its archive pages, oldest page first, posts.atom last, over a history
    of `count` entries.

    The page size is `feed_size`, so the entries not yet on a full page (fewer than a page)
    are always among the newest `feed_size` that posts.atom carries.
    """
    size = config.feed_size
    full_pages = count // size
    pages = [
        FeedPage(
            path=_archive_page(number), start=(number - 1) * size, stop=number * size,
            prev_archive=_archive_page(number - 1) if number > 1 else None,
            next_archive=_archive_page(number + 1) if number < full_pages else None,
        )
        for number in range(1, full_pages + 1)
    ]
    current = FeedPage(
        path=POSTS_FEED, start=max(count - size, 0), stop=count,
        prev_archive=_archive_page(full_pages) if full_pages else None, next_archive=None,
    )
    return [*pages, current]


def _archive_page(number: int) -> str:
    return feed_page_path(number)


@dataclass(frozen=True)
class RenderedFeed:
    document: bytes
    # Each entry's element as the document holds it, in the document's order. Kept, they
    # spare a later page with the same entries making them again: feedgen takes ~0.5 ms an
    # entry, the most of posts.atom's cost in a build of one new post.
    entries: list[bytes]


def render_page(config: Config, page: FeedPage, items: Sequence[FeedItem],
                kept: Sequence[bytes | None] | None = None) -> RenderedFeed:
    """The page, given its entries' items (feed_items) and, where known, each one's element
    as an earlier page with the same settings (entry_settings) held it (`kept`, None where
    there is none): the same bytes as when every entry is made."""
    kept = list(kept) if kept is not None else [None] * len(items)
    is_archive = page.path != POSTS_FEED
    feed = new_feed(
        config,
        feed_id=site_url(config, POSTS_FEED),
        title=config.site.title if not is_archive else f"{config.site.title} (archive)",
        self_path=page.path,
        updated=max((item.updated for item in items), default=EPOCH),
    )
    feed.newsletter.archive = is_archive
    if is_archive:
        feed.link(href=site_url(config, POSTS_FEED), rel="current", type="application/atom+xml")
    else:
        feed.link(href=site_url(config, POSTS_JSON_FEED), rel="alternate", type=JSON_FEED_TYPE)
    for rel, path in (("prev-archive", page.prev_archive), ("next-archive", page.next_archive)):
        if path:
            feed.link(href=site_url(config, path), rel=rel, type="application/atom+xml")
    for item, element in zip(items, kept, strict=True):
        if element is None:
            _add_post(config, feed, item)
    return _document(feed, kept)


def _document(feed: FeedGenerator, kept: Sequence[bytes | None]) -> RenderedFeed:
    """The feed's document with an entry at each place of `kept`: the element kept there, or
    else the next of the entries added to `feed`, which are those not kept, in their order."""
    made: bytes = feed.atom_str(pretty=True)
    bounds = [match.start() for match in _ENTRY_START.finditer(made)] + [len(made) - len(_FEED_END)]
    assert made.endswith(_FEED_END) and len(bounds) - 1 == list(kept).count(None), "feedgen's layout changed"
    fresh = iter([made[start:end] for start, end in pairwise(bounds)])
    entries = [element if element is not None else next(fresh) for element in kept]
    return RenderedFeed(made[: bounds[0]] + b"".join(entries) + _FEED_END, entries)


def _add_post(config: Config, feed: FeedGenerator, item: FeedItem) -> None:
    entry = feed.add_entry(order="append")
    entry.id(item.id)
    entry.title(item.title)
    entry.author({"name": item.author})
    if item.published:
        entry.published(item.published)
    entry.updated(item.updated)
    if item.summary:
        entry.summary(item.summary, type="text")
    entry.content(item.content_html, type="html")
    for label in item.labels:
        entry.category(term=label.term, label=label.shown, scheme=site_url(config, f"#{label.kind.lower()}"))
    entry.newsletter.language = item.language
    # The main link (the site-language form) first, and the only alternate: readers take
    # the first alternate as the entry's link, feedparser and newsboat the last. The other
    # forms are related links, a translation known by its hreflang.
    links = [_form_link(FormLink(item.url, item.language, None), "alternate")] if item.url else []
    links += [_form_link(form, "related") for form in item.other_forms]
    entry.newsletter.links = links


def _form_link(form: FormLink, rel: str) -> dict[str, str]:
    link = {"href": form.url, "rel": rel, "type": "text/html"}
    if form.language:
        link["hreflang"] = form.language
    return link


def digests_feed(config: Config, digests: Sequence[DigestHead], body_of: Callable[[DigestHead], str],
                 kept: Sequence[bytes | None] | None = None) -> RenderedFeed:
    """digests.atom: the digests given (the newest `digest_feed_size`, newest first), each
    entry's content the digest's email body, as `body_of` reads it, or the entry's element
    `kept` from an earlier digests.atom (None where there is none) taken as it is."""
    kept = list(kept) if kept is not None else [None] * len(digests)
    feed = new_feed(
        config,
        feed_id=site_url(config, DIGESTS_FEED),
        title=f"{config.site.title}: digests",
        self_path=DIGESTS_FEED,
        updated=max((d.created for d in digests), default=EPOCH),
    )
    for digest, element in zip(digests, kept, strict=True):
        if element is not None:
            continue
        url = site_url(config, digest_path(digest.name))
        item = feed.add_entry(order="append")
        item.id(url)
        item.title(digest_title(config, digest.created, digest.entry_count))
        item.author({"name": one_line(config.site.author)})
        item.published(digest.created)
        item.updated(digest.created)
        item.content(clean_html(body_of(digest), base_url=url), type="html")
        item.newsletter.language = language_tag(config.site.language)
        item.newsletter.links = [{"href": url, "rel": "alternate", "type": "text/html"}]
    return _document(feed, kept)


def digest_title(config: Config, created: datetime, count: int) -> str:
    return one_line(f"{config.site.title}: {words.count(count, 'new post')}, {created.day} {created:%B %Y}")


def new_feed(config: Config, *, feed_id: str, title: str, self_path: str, updated: datetime) -> FeedGenerator:
    feed = FeedGenerator()
    feed.register_extension("newsletter", _FeedExtras, _EntryExtras, rss=False)
    feed.id(feed_id)
    feed.title(one_line(title))
    feed.author({"name": one_line(config.site.author)})
    feed.link(href=site_url(config, self_path), rel="self", type="application/atom+xml")
    feed.link(href=config.site.url, rel="alternate", type="text/html")
    # No version: the same input must give the same bytes after a library upgrade.
    feed.generator("newsletter")
    language = language_tag(config.site.language)
    if language:
        feed.language(language)
    feed.updated(updated)
    return feed
