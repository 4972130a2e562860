"""Sources -> posts. Each source kind is one function; a failing source becomes an error
in its result and never stops the others.

Sources are collected at the same time, a few requests at most per host (see http.py).
Web sources ask "changed since?" with the validators of their last full read, so an
unchanged page or feed costs one 304 answer.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace

from newsletter.config import FeedSource, FolderSource, HttpConfig, PageSource, SourceConfig
from newsletter.errors import SourceError
from newsletter.models import CacheValidators, SourceResult
from newsletter.sources.feed import collect_feed
from newsletter.sources.folder import collect_folder
from newsletter.sources.guard import Resolver, resolve
from newsletter.sources.http import Fetcher, SourceFetcher
from newsletter.sources.page import collect_page

log = logging.getLogger(__name__)

MAX_PARALLEL_SOURCES = 8


def collect(
    sources: tuple[SourceConfig, ...], *, http: HttpConfig = HttpConfig(),
    known: Mapping[str, Mapping[str, CacheValidators]] | None = None,
    on_collected: Callable[[SourceResult], None] | None = None,
    sleep: Callable[[float], None] = time.sleep, resolver: Resolver = resolve,
) -> list[SourceResult]:
    """Every source's result, in the order of `sources`.

    `known` maps a source name to the validators of its last full read of each URL;
    `on_collected` hears of each result as it comes: a folder's once the folder is listed,
    since its files are read only as its posts are iterated. `resolver` looks up the hosts
    of URLs found in fetched content (tests pass their own).
    """
    known = known or {}
    workers = max(1, min(MAX_PARALLEL_SOURCES, len(sources)))
    with Fetcher(http, sleep=sleep, resolver=resolver) as fetcher, ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(_collect_source, source, _fetcher_for(source, fetcher, known)) for source in sources]
        if on_collected is not None:
            for future in as_completed(futures):
                on_collected(future.result())
        return [future.result() for future in futures]


def _fetcher_for(
    source: SourceConfig, fetcher: Fetcher, known: Mapping[str, Mapping[str, CacheValidators]],
) -> SourceFetcher:
    """The fetcher as `source` uses it: its own validators; URLs other than its configured
    origin must lead to public addresses unless it sets allow_private."""
    validators = known.get(source.name, {})
    if isinstance(source, FolderSource):
        return SourceFetcher(fetcher, validators)
    return SourceFetcher(fetcher, validators, source_url=source.url, allow_private=source.allow_private)


def _collect_source(source: SourceConfig, fetch: SourceFetcher) -> SourceResult:
    try:
        match source:
            case FolderSource():
                result = collect_folder(source, fetch)
            case PageSource():
                result = collect_page(source, fetch)
            case FeedSource():
                result = collect_feed(source, fetch)
    except SourceError as exc:
        return SourceResult(source=source.name, error=str(exc))
    except Exception as exc:  # a flaw met in one source must not take the others down
        log.debug("source %r", source.name, exc_info=True)
        return SourceResult(source=source.name, error=f"unexpected error: {exc!r}")
    # The fetcher's own record: a folder adds to it as its posts are read.
    return replace(result, validators=fetch.learned)
