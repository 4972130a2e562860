"""A feed source (RSS or Atom): a post per entry, a teaser completed from its page."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

import lxml.html
from lxml import etree

from newsletter.config import FeedSource
from newsletter.errors import BudgetSpent, FetchError, SourceError
from newsletter.models import Post, SourceResult
from newsletter.sources.http import Response, SourceFetcher, is_http_url, normalize_url

log = logging.getLogger(__name__)

# Feeds list their newest entries first. An archive feed of thousands of entries would
# otherwise become thousands of posts, and as many page requests, in one run.
MAX_FEED_ENTRIES = 200
# An entry with less text than this is a teaser: the post is on the entry's page.
SHORT_ENTRY_CHARS = 500
FEED_ACCEPT = (
    "application/atom+xml, application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"
)
# A page that is not a feed names its feed with one of these types (autodiscovery).
HTML_TYPES = ("text/html", "application/xhtml+xml")
FEED_TYPES = ("application/rss+xml", "application/atom+xml")
# A feedparser entry: a dict of whatever the feed carried.
FeedEntry = Any


@dataclass(frozen=True)
class _EntryRead:
    post: Post | None = None
    # The location of a post whose page has not changed since the last collection.
    unchanged: str | None = None
    # (location, reason) when something went wrong; a post may still come with it.
    problem: tuple[str, str] | None = None
    # Why the entry's page was not read, when the time budget ran out first.
    over_budget: str | None = None


def collect_feed(source: FeedSource, fetch: SourceFetcher) -> SourceResult:
    try:
        response = _feed_response(source, fetch)
    except FetchError as exc:
        raise SourceError(str(exc)) from None
    if response.not_modified:
        return SourceResult(source=source.name, not_modified=True)
    # Imported here: an unchanged feed (a 304) needs no parser.
    import feedparser

    content_type = response.media_type or "application/xml"
    if response.charset:
        content_type += f"; charset={response.charset}"
    # A stream, never a string: feedparser would fetch a string that looks like a URL,
    # or open one that names a local file. It drops DTD entities it cannot inline safely.
    parsed = feedparser.parse(
        io.BytesIO(response.body),
        response_headers={"content-type": content_type, "content-location": response.url},
    )
    if not parsed.entries and response.media_type in HTML_TYPES:
        raise SourceError(f"{source.url}: neither a feed nor a page that names one in a <link rel=\"alternate\">;"
                          " to read a page as one post, use kind = \"page\"")
    problems = []
    # What feedparser flags about a feed it read in full anyway.
    harmless = (feedparser.CharacterEncodingOverride, feedparser.NonXMLContentType)
    if parsed.bozo and not isinstance(parsed.bozo_exception, harmless):
        if not parsed.entries:
            raise SourceError(f"{source.url}: not a readable feed: {parsed.bozo_exception}")
        problems.append((source.url, f"malformed feed, its readable entries are used: {parsed.bozo_exception}"))
    entries = parsed.entries[:MAX_FEED_ENTRIES]
    if len(parsed.entries) > MAX_FEED_ENTRIES:
        problems.append((source.url, f"{len(parsed.entries)} entries, only the first {MAX_FEED_ENTRIES} are read"))
    located, duplicates = _locations(response.url, entries)
    problems.extend((source.url, f"entry {location!r}: the same id and title as an earlier entry, skipped")
                    for location in duplicates)
    with ThreadPoolExecutor(max_workers=fetch.per_host) as pool:
        reads = list(pool.map(lambda pair: _read_entry(source, fetch, response.url, *pair), located))
    over_budget = [r.over_budget for r in reads if r.over_budget]
    if over_budget:
        # One line, not one per entry: the same cause for all.
        problems.append((source.url, f"{len(over_budget)} entry pages not read ({over_budget[-1]});"
                                     " their entries keep the feed's text, if any"))
    return SourceResult(
        source=source.name,
        posts=tuple(r.post for r in reads if r.post),
        unchanged=tuple(r.unchanged for r in reads if r.unchanged),
        skipped=(*problems, *(r.problem for r in reads if r.problem)),
    )


def _feed_response(source: FeedSource, fetch: SourceFetcher) -> Response:
    """The feed at the source's URL or, when that is a web page (a blog's front page), the
    feed its <link rel="alternate"> names: a URL found in content, fetched under the same
    rule as an entry's link (another origin must be a public address)."""
    response = fetch.get(source.url, accept=FEED_ACCEPT)
    if response.not_modified or response.media_type not in HTML_TYPES:
        return response
    feed_url = discovered_feed(response)
    if feed_url is None:
        return response  # not a feed either, as feedparser will say; or a feed served as HTML
    log.info("%s: %s is a page; its feed is %s (the feed's URL in url saves a request)",
             source.name, source.url, feed_url)
    # Read in full every time: a page with no body (a 304) names no feed, and the feed can
    # change while the page does not.
    fetch.learned.pop(source.url, None)
    return fetch.get(feed_url, accept=FEED_ACCEPT)


def discovered_feed(page: Response) -> str | None:
    """The first RSS or Atom feed a page names in a <link rel="alternate" type=...>, as an
    absolute http(s) URL."""
    try:
        document = lxml.html.document_fromstring(page.body)
    except (etree.ParserError, ValueError):
        return None
    base_element = document.find(".//base[@href]")
    base = urljoin(page.url, base_element.get("href", "").strip()) if base_element is not None else page.url
    for link in document.iter("link"):
        rel = (link.get("rel") or "").lower().split()
        if "alternate" in rel and (link.get("type") or "").strip().lower() in FEED_TYPES and link.get("href"):
            url = urljoin(base, link.get("href", "").strip())
            if is_http_url(url):
                return url
    return None


def _entry_link(feed_url: str, entry: FeedEntry) -> str | None:
    link = urljoin(feed_url, entry.get("link") or "")
    return link if entry.get("link") and is_http_url(link) else None


def _locations(feed_url: str, entries: list[FeedEntry]) -> tuple[list[tuple[FeedEntry, str | None]], list[str]]:
    """Each entry with the location its post is kept under: its link, else its id. Entries
    sharing one are told apart by their id and title, whatever their order, so that neither
    is lost nor replaces the other on every build; the location of any still alike is
    listed as a duplicate, and only the first of them read."""
    plain = [_entry_link(feed_url, entry) or entry.get("id") or None for entry in entries]
    counts = Counter(plain)
    located: list[tuple[FeedEntry, str | None]] = []
    taken: set[str] = set()
    duplicates = []
    for entry, location in zip(entries, plain, strict=True):
        if location and counts[location] > 1:
            told_apart = json.dumps([entry.get("id"), entry.get("title")], ensure_ascii=False)
            location = f"{location}#{hashlib.sha256(told_apart.encode()).hexdigest()[:16]}"
            if location in taken:
                duplicates.append(location)
                continue
            taken.add(location)
        located.append((entry, location))
    return located, duplicates


def _read_entry(
    source: FeedSource, fetch: SourceFetcher, feed_url: str, entry: FeedEntry, location: str | None,
) -> _EntryRead:
    link = _entry_link(feed_url, entry)
    if not location:
        return _EntryRead(problem=(feed_url, "an entry with neither link nor id, skipped"))
    text, media_type = _entry_content(entry)
    post = Post(
        source=source.name, location=location, text=text, media_type=media_type,
        url=normalize_url(link) if link else None, published=_entry_date(entry),
        title=_entry_text(entry, "title"), author=_entry_text(entry, "author"),
    )
    if link and _text_length(text, media_type) < SHORT_ENTRY_CHARS:
        try:
            page = fetch.get_page(link)
        except BudgetSpent as exc:
            return _EntryRead(post=post if text.strip() else None, over_budget=exc.problem)
        except FetchError as exc:
            if not text.strip():
                return _EntryRead(problem=(location, f"entry page not read: {exc.problem}"))
            return _EntryRead(
                post=post, problem=(location, f"entry page not read ({exc.problem}), the feed's summary is used"),
            )
        if page.not_modified:
            return _EntryRead(unchanged=location)
        return _EntryRead(post=replace(
            post, text=page.text, media_type=page.media_type, url=normalize_url(page.url),
        ))
    if not text.strip():
        return _EntryRead(problem=(location, "an entry with no text and no link, skipped"))
    return _EntryRead(post=post)


def _entry_content(entry: FeedEntry) -> tuple[str, str | None]:
    """The entry's fullest text and its media type: its content, else its summary."""
    candidates = [*entry.get("content", ()), entry.get("summary_detail")]
    best = max(
        (c for c in candidates if c and c.get("value")), key=lambda c: len(c["value"]), default=None,
    )
    if best is None:
        return "", None
    return best["value"], best.get("type") or "text/html"


def _text_length(text: str, media_type: str | None) -> int:
    if "html" not in (media_type or ""):
        return len(text.strip())
    try:
        return len(lxml.html.fragment_fromstring(text, create_parent="div").text_content().strip())
    except (etree.ParserError, ValueError):
        return len(text.strip())


def _entry_text(entry: FeedEntry, key: str) -> str | None:
    """A plain-text field of the entry; feedparser has already turned markup into text."""
    value = entry.get(key)
    return " ".join(value.split()) or None if isinstance(value, str) else None


def _entry_date(entry: FeedEntry) -> datetime | None:
    parsed = entry.get("published_parsed") or entry.get("updated_parsed")
    try:
        return datetime(*parsed[:6]).replace(tzinfo=UTC) if parsed else None
    except (TypeError, ValueError):
        return None
