"""Sources -> posts. Each source kind is one function; a failing source becomes an error
in its result and never stops the others.

Sources are collected at the same time, a few requests at most per host (see fetch.py).
Web sources ask "changed since?" with the validators of their last full read, so an
unchanged page or feed costs one 304 answer.
"""

from __future__ import annotations

import io
import logging
import stat
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urljoin

import feedparser
import lxml.html
from lxml import etree

from newsletter.config import HttpConfig, SourceConfig
from newsletter.errors import SourceError
from newsletter.models import CacheValidators, Post, SourceResult
from newsletter.sources.http import (
    Fetcher,
    FetchError,
    Response,
    is_http_url,
    normalize_url,
)
from newsletter.text import decode

log = logging.getLogger(__name__)

# Posts larger than this are skipped: no release note is this long, and reading one
# whole would let a single file exhaust memory.
MAX_POST_BYTES = 5 * 1024 * 1024
MAX_PARALLEL_SOURCES = 8
# Feeds list their newest entries first. An archive feed of thousands of entries would
# otherwise become thousands of posts, and as many page requests, in one run.
MAX_FEED_ENTRIES = 200
# An entry with less text than this is a teaser: the post is on the entry's page.
SHORT_ENTRY_CHARS = 500
FEED_ACCEPT = (
    "application/atom+xml, application/rss+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"
)
PAGE_ACCEPT = "text/html, application/xhtml+xml;q=0.9, text/*;q=0.8, */*;q=0.1"
TEXT_MEDIA_TYPES = ("text/", "application/xhtml+xml", "application/xml")
# What feedparser flags about a feed it read in full anyway.
_HARMLESS_FEED_FLAGS = (feedparser.CharacterEncodingOverride, feedparser.NonXMLContentType)


class SourceFetcher:
    """The fetcher as one source uses it: its requests carry the validators of this
    source's last full read of each URL, and the validators of new reads are kept."""

    def __init__(self, fetcher: Fetcher, known: Mapping[str, CacheValidators]):
        self.fetcher = fetcher
        self.known = known
        self.learned: dict[str, CacheValidators] = {}

    @property
    def per_host(self) -> int:
        return self.fetcher.settings.per_host

    def get(self, url: str, *, accept: str) -> Response:
        response = self.fetcher.get(url, self.known.get(url), accept=accept)
        if not response.not_modified:
            self.learned[url] = response.validators
        return response

    def get_page(self, url: str) -> Response:
        response = self.get(url, accept=PAGE_ACCEPT)
        if response.media_type and not response.media_type.startswith(TEXT_MEDIA_TYPES):
            raise FetchError(url, f"not a text page ({response.media_type})")
        return response


# -- folder ----------------------------------------------------------------------


def collect_folder(source: SourceConfig, fetch: SourceFetcher) -> SourceResult:
    """Every post file the glob matches. Collecting lists the folder; each file is read only
    when iteration of the posts reaches it, so a build holds one post's text at a time
    however many the folder has. A file whose size and modification time are those of its
    last full read is not read again (as a web server's ETag would say "unchanged"), so a
    folder of ten thousand posts costs ten thousand `stat` calls, not a read of each."""
    folder = source.path.resolve()
    if not folder.is_dir():
        raise SourceError(f"{source.path}: not a folder")
    to_read, skipped, unchanged = [], [], []
    for path in sorted(folder.glob(source.glob)):
        relative = path.relative_to(folder).as_posix()
        try:
            validators = _post_file_validators(folder, path)
        except SourceError as exc:
            skipped.append((str(path), str(exc)))
            continue
        if validators is None:
            continue
        if validators == fetch.known.get(relative):
            unchanged.append(relative)
        else:
            to_read.append((path, relative, validators))
    return SourceResult(
        source=source.name, posts=_read_post_files(source.name, to_read, fetch, skipped),
        skipped=skipped, unchanged=tuple(unchanged),
    )


def _read_post_files(
    source: str, files: list[tuple[Path, str, CacheValidators]], fetch: SourceFetcher,
    skipped: list[tuple[str, str]],
) -> Iterator[Post]:
    """The post of each (path, location, validators) in `files`, read as it is asked for.
    A file that cannot be read joins `skipped`; one read in full leaves its validators in
    `fetch.learned`."""
    for path, relative, validators in files:
        try:
            text = decode(_read_post_file(path))
        except SourceError as exc:
            skipped.append((str(path), str(exc)))
            continue
        fetch.learned[relative] = validators
        yield Post(source=source, location=relative, text=text)


def _post_file_validators(folder: Path, path: Path) -> CacheValidators | None:
    """What identifies this version of a post file: its size and modification time, as a
    web server's ETag would. None for entries that are not posts (folders, hidden files)."""
    if any(part.startswith(".") for part in path.relative_to(folder).parts):
        return None
    try:
        info = path.lstat()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError):  # Python 3.11 reports a link loop as RuntimeError
            raise SourceError("a link that leads nowhere (a missing target or a loop), not read") from None
        if not target.is_relative_to(folder):
            raise SourceError("a link that leaves the folder, not read")
    if not path.is_file():
        raise SourceError("not a regular file")
    info = path.stat()
    if info.st_size > MAX_POST_BYTES:
        raise SourceError(f"larger than {MAX_POST_BYTES // (1024 * 1024)} MB, not read")
    return CacheValidators(etag=f"{info.st_size}-{info.st_mtime_ns}")


def _read_post_file(path: Path) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror}") from None
    if not data.strip():
        raise SourceError("empty file")
    return data


# -- page ------------------------------------------------------------------------


def collect_page(source: SourceConfig, fetch: SourceFetcher) -> SourceResult:
    try:
        response = fetch.get_page(source.url)
    except FetchError as exc:
        raise SourceError(str(exc)) from None
    if response.not_modified:
        return SourceResult(source=source.name, not_modified=True)
    post = Post(
        source=source.name, location=source.url, url=normalize_url(response.url),
        text=response.text, media_type=response.media_type,
    )
    return SourceResult(source=source.name, posts=(post,))


# -- feed ------------------------------------------------------------------------


@dataclass(frozen=True)
class _EntryRead:
    post: Post | None = None
    # The location of a post whose page has not changed since the last collection.
    unchanged: str | None = None
    # (location, reason) when something went wrong; a post may still come with it.
    problem: tuple[str, str] | None = None


def collect_feed(source: SourceConfig, fetch: SourceFetcher) -> SourceResult:
    try:
        response = fetch.get(source.url, accept=FEED_ACCEPT)
    except FetchError as exc:
        raise SourceError(str(exc)) from None
    if response.not_modified:
        return SourceResult(source=source.name, not_modified=True)
    content_type = response.media_type or "application/xml"
    if response.charset:
        content_type += f"; charset={response.charset}"
    # A stream, never a string: feedparser would fetch a string that looks like a URL,
    # or open one that names a local file. It drops DTD entities it cannot inline safely.
    parsed = feedparser.parse(
        io.BytesIO(response.body),
        response_headers={"content-type": content_type, "content-location": response.url},
    )
    problems = []
    if parsed.bozo and not isinstance(parsed.bozo_exception, _HARMLESS_FEED_FLAGS):
        if not parsed.entries:
            raise SourceError(f"{source.url}: not a readable feed: {parsed.bozo_exception}")
        problems.append((source.url, f"malformed feed, its readable entries are used: {parsed.bozo_exception}"))
    entries = parsed.entries[:MAX_FEED_ENTRIES]
    if len(parsed.entries) > MAX_FEED_ENTRIES:
        problems.append((source.url, f"{len(parsed.entries)} entries, only the first {MAX_FEED_ENTRIES} are read"))
    with ThreadPoolExecutor(max_workers=fetch.per_host) as pool:
        reads = list(pool.map(lambda entry: _read_entry(source, fetch, response.url, entry), entries))
    return SourceResult(
        source=source.name,
        posts=tuple(r.post for r in reads if r.post),
        unchanged=tuple(r.unchanged for r in reads if r.unchanged),
        skipped=(*problems, *(r.problem for r in reads if r.problem)),
    )


def _read_entry(source: SourceConfig, fetch: SourceFetcher, feed_url: str, entry) -> _EntryRead:
    link = urljoin(feed_url, entry.get("link") or "")
    link = link if entry.get("link") and is_http_url(link) else None
    location = link or entry.get("id")
    if not location:
        return _EntryRead(problem=(feed_url, "an entry with neither link nor id, skipped"))
    text, media_type = _entry_content(entry)
    post = Post(
        source=source.name, location=location, text=text, media_type=media_type,
        url=normalize_url(link) if link else None, published=_entry_date(entry),
    )
    if link and _text_length(text, media_type) < SHORT_ENTRY_CHARS:
        try:
            page = fetch.get_page(link)
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


def _entry_content(entry) -> tuple[str, str | None]:
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


def _entry_date(entry) -> datetime | None:
    parsed = entry.get("published_parsed") or entry.get("updated_parsed")
    try:
        return datetime(*parsed[:6], tzinfo=timezone.utc) if parsed else None
    except (TypeError, ValueError):
        return None


# -- all sources -----------------------------------------------------------------

COLLECTORS: dict[str, Callable[[SourceConfig, SourceFetcher], SourceResult]] = {
    "folder": collect_folder,
    "page": collect_page,
    "feed": collect_feed,
}


def collect(
    sources: tuple[SourceConfig, ...], *, http: HttpConfig = HttpConfig(),
    known: Mapping[str, Mapping[str, CacheValidators]] | None = None,
    on_collected: Callable[[SourceResult], None] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> list[SourceResult]:
    """Every source's result, in the order of `sources`.

    `known` maps a source name to the validators of its last full read of each URL;
    `on_collected` hears of each result as it comes: a folder's once the folder is listed,
    since its files are read only as its posts are iterated.
    """
    known = known or {}
    workers = max(1, min(MAX_PARALLEL_SOURCES, len(sources)))
    with Fetcher(http, sleep=sleep) as fetcher, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(_collect_source, source, SourceFetcher(fetcher, known.get(source.name, {})))
            for source in sources
        ]
        if on_collected is not None:
            for future in as_completed(futures):
                on_collected(future.result())
        return [future.result() for future in futures]


def _collect_source(source: SourceConfig, fetch: SourceFetcher) -> SourceResult:
    try:
        result = COLLECTORS[source.kind](source, fetch)
    except SourceError as exc:
        return SourceResult(source=source.name, error=str(exc))
    except Exception as exc:  # a flaw met in one source must not take the others down
        log.debug("source %r", source.name, exc_info=True)
        return SourceResult(source=source.name, error=f"unexpected error: {exc!r}")
    # The fetcher's own record: a folder adds to it as its posts are read.
    return replace(result, validators=fetch.learned)
