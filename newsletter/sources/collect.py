"""Sources -> posts. Each source kind is one function; a failing source becomes an error
in its result and never stops the others.

Sources are collected at the same time, host by host: each host (each folder, too) gets as
many workers as it may have requests in flight (http.per_host), and they take its sources
one after another. So hosts are collected in parallel, no worker sits waiting for a host's
request slot (see http.py) while another host has work, and a host listed after many
sources of another is not kept waiting behind them. Web sources ask "changed since?" with
the validators of their last full read, so an unchanged page or feed costs one 304 answer,
on a connection the host's previous request left open.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING

from newsletter.config import FeedSource, FolderSource, HttpConfig, PageSource, SourceConfig
from newsletter.errors import SourceError
from newsletter.models import CacheValidators, SourceResult
from newsletter.sources.folder import FileValidators, collect_folder

if TYPE_CHECKING:
    from newsletter.sources.guard import Resolver
    from newsletter.sources.http import Fetcher, SourceFetcher

log = logging.getLogger(__name__)

# Threads collecting at once: with two requests per host, eight hosts.
MAX_WORKERS = 16


def collect(
    sources: tuple[SourceConfig, ...], *, http: HttpConfig = HttpConfig(),
    known: Mapping[str, Mapping[str, CacheValidators]] | None = None,
    on_collected: Callable[[SourceResult], None] | None = None,
    sleep: Callable[[float], None] = time.sleep, resolver: Resolver | None = None,
) -> list[SourceResult]:
    """Every source's result, in the order of `sources`.

    `known` maps a source name to the validators of its last full read of each URL;
    `on_collected` hears of each result as it comes, from the worker that collected it, one
    call at a time: a folder's once the folder is listed, since its files are read only as
    its posts are iterated. `resolver` looks up the hosts of URLs found in fetched content
    (tests pass their own; by default, the system's, through guard.resolve). The web
    client (urllib3 and its pools) is loaded only when a source is on the web.
    """
    known = known or {}
    results: dict[int, SourceResult] = {}
    reporting = threading.Lock()

    def work(fetcher: Fetcher | None, waiting: deque[int]) -> None:
        # deque.popleft is atomic: the workers of a host share its queue without a lock.
        while True:
            try:
                index = waiting.popleft()
            except IndexError:
                return
            result = _collect_source(sources[index], _fetcher_for(sources[index], fetcher, known))
            results[index] = result
            if on_collected is not None:
                with reporting:
                    on_collected(result)

    lanes = [queue for queue in _queues(sources) for _ in range(min(http.per_host, len(queue)))]
    with _web_fetcher(sources, http, sleep, resolver) as fetcher, \
            ThreadPoolExecutor(max_workers=max(1, min(MAX_WORKERS, len(lanes)))) as pool:
        for worker in [pool.submit(work, fetcher, queue) for queue in lanes]:
            # Re-raised here, should anything ever escape a worker.
            worker.result()
    return [results[index] for index in range(len(sources))]


def _web_fetcher(
    sources: tuple[SourceConfig, ...], http: HttpConfig, sleep: Callable[[float], None], resolver: Resolver | None,
) -> AbstractContextManager[Fetcher | None]:
    """The web client the sources share; none when every source is a folder."""
    if all(isinstance(source, FolderSource) for source in sources):
        return nullcontext()
    from newsletter.sources.guard import resolve
    from newsletter.sources.http import Fetcher

    return Fetcher(http, sleep=sleep, resolver=resolver or resolve)


def _queues(sources: tuple[SourceConfig, ...]) -> list[deque[int]]:
    """The indexes of `sources`, one queue per host (per folder source), in order."""
    queues: dict[str, deque[int]] = {}
    for index, source in enumerate(sources):
        if isinstance(source, FolderSource):
            key = f"folder {source.name}"
        else:
            from newsletter.sources.http import host_of

            key = host_of(source.url)
        queues.setdefault(key, deque()).append(index)
    return list(queues.values())


def _fetcher_for(
    source: SourceConfig, fetcher: Fetcher | None, known: Mapping[str, Mapping[str, CacheValidators]],
) -> SourceFetcher | FileValidators:
    """The fetcher as `source` uses it: its own validators; URLs other than its configured
    origin must lead to public addresses unless it sets allow_private. A folder's files
    need their validators only."""
    validators = known.get(source.name, {})
    if isinstance(source, FolderSource):
        return FileValidators(validators)
    from newsletter.sources.http import SourceFetcher

    assert fetcher is not None  # made whenever a source is on the web
    return SourceFetcher(fetcher, validators, source_url=source.url, allow_private=source.allow_private)


def _collect_source(source: SourceConfig, fetch: SourceFetcher | FileValidators) -> SourceResult:
    try:
        match source, fetch:
            case FolderSource(), FileValidators():
                result = collect_folder(source, fetch)
            case PageSource(), _ if not isinstance(fetch, FileValidators):
                from newsletter.sources.page import collect_page

                result = collect_page(source, fetch)
            case FeedSource(), _ if not isinstance(fetch, FileValidators):
                from newsletter.sources.feed import collect_feed

                result = collect_feed(source, fetch)
    except SourceError as exc:
        return SourceResult(source=source.name, error=_printable(str(exc)))
    except Exception as exc:  # a flaw met in one source must not take the others down
        log.debug("source %r", source.name, exc_info=True)
        return SourceResult(source=source.name, error=_printable(f"unexpected error: {exc!r}"))
    # The fetcher's own record: a folder adds to it as its posts are read.
    return replace(result, validators=fetch.learned)


def _printable(error: str) -> str:
    """`error` on one line, a control character it quotes from a server (a header, a status
    line) shown as an escape: it is logged and stored, and PostgreSQL's text refuses NUL."""
    from newsletter.sources.http import NOT_HEADER_TEXT

    return NOT_HEADER_TEXT.sub(lambda found: f"\\x{ord(found.group()):02x}", error)
