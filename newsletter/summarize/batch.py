"""Summaries of many posts at once, on every core: the per-post work of a build.

Each post is read and summarized on its own, so a batch is spread over a pool of processes
and its results come back in the batch's order: a build's outputs are the same whether a
post was summarized here or in a worker. A batch too small to pay for starting the pool is
summarized in this process, when this process can hold each post to its time budget.

The budget is a timer signal (SIGALRM), which interrupts any Python code the summarizer
runs, at no cost to a post that stays within it. Checks inside the summarizer's loops would
have to be in every loop, present and future, and would still miss a slow regular
expression. A signal reaches only the main thread, though: in any other thread (the
service's scheduled jobs run in one) every batch, however small, goes to the pool, whose
workers summarize on their own main threads. Starting it costs a scheduled job about two
seconds; a build by hand stays in its main thread and starts no pool for a small batch,
which goes to the one worker it forked as it started (`processes.EarlyWorker`).
"""

from __future__ import annotations

import importlib
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from types import FrameType, TracebackType
from typing import TYPE_CHECKING

from newsletter.models import Summary
from newsletter.processes import EarlyWorker, cores, exit_with_parent, start_method, worker_parent

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# Below this many posts a batch costs less in this process than starting workers does.
MIN_POOL_BATCH = 24
# Posts handed to a worker at a time: fewer round trips, still an even spread.
_CHUNK = 4
# Seconds one post may take to read and summarize. Every step is meant to be linear in the
# post's size (a 5 MB post takes seconds); a post that still takes this long is skipped and
# reported, rather than holding the build and its lock.
POST_BUDGET = 60.0
# Posts a pool summarizes before its workers are replaced by fresh ones. cmarkgfm's
# markdown_to_html_with_extensions never frees the document it parses (about 120 KB for a
# 20 KB post), so a worker grew without bound: 830 MB in a first build of 10,000 posts.
POOL_POSTS = 512


@dataclass(frozen=True)
class PostText:
    text: str
    media_type: str | None
    url: str | None


@dataclass(frozen=True)
class SummarizedPost:
    # None when the post could not be summarized; `error` says why.
    summary: Summary | None
    front_matter_problem: str | None = None
    error: str | None = None
    # It was skipped for taking longer than its budget.
    over_budget: bool = False


def summarize_post(post: PostText, budget: float = POST_BUDGET) -> SummarizedPost:
    """Summarize one post in at most `budget` seconds (when called on a main thread)."""
    # Imported here: a build whose posts go to a worker never loads the parsers itself.
    from newsletter.summarize.summary import summarize_document
    from newsletter.text.parse import parse

    try:
        with _time_budget(budget):
            document = parse(post.text, post.media_type, base_url=post.url)
            summary = summarize_document(document, url=post.url)
    except _OverBudget:
        return SummarizedPost(None, error=f"not summarized within {budget:g} s, skipped", over_budget=True)
    except Exception as exc:  # one bad post must not take the build down
        return SummarizedPost(None, error=f"cannot summarize: {exc}")
    return SummarizedPost(summary, document.front_matter_problem)


class _OverBudget(BaseException):
    """Raised by the budget's timer; a BaseException, so no `except Exception` in the
    summarizer swallows it."""


@contextmanager
def _time_budget(seconds: float) -> Iterator[None]:
    """Interrupts the block after `seconds` with _OverBudget, on a main thread (the only one
    a timer signal reaches: Summarizer sends the posts of any other thread to its pool)."""
    if not _can_time():
        yield
        return

    def over(_signum: int, _frame: FrameType | None) -> None:
        raise _OverBudget

    previous = signal.signal(signal.SIGALRM, over)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Summarizer:
    """Summarizes batches of posts; the pool starts with the first batch big enough for it
    and stops when the with-block ends."""

    def __init__(self, workers: int | None = None, budget: float | None = None,
                 early: EarlyWorker | None = None) -> None:
        self.workers = workers if workers is not None else cores()
        # Seconds each post may take (POST_BUDGET), handed to the workers with each post.
        self.budget = budget if budget is not None else POST_BUDGET
        self._pool: ProcessPoolExecutor | None = None
        self._pool_posts = 0
        # The build's early worker, whose small batches go to it; its owner stops it.
        self.early = early

    def __enter__(self) -> Summarizer:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop_pool()

    def summarize(self, posts: list[PostText]) -> list[SummarizedPost]:
        if not posts:
            return []
        small = self.workers < 2 or len(posts) < MIN_POOL_BATCH
        job = partial(summarize_post, budget=self.budget)
        if small and self.early is not None and (results := self.early.run(job, posts)) is not None:
            return results
        # Where no timer exists at all (Windows), the pool's workers have none either.
        if small and (_can_time() or not hasattr(signal, "setitimer")):
            return [job(post) for post in posts]
        if self._pool_posts >= POOL_POSTS:
            self._stop_pool()
        self._pool_posts += len(posts)
        return list(self._started_pool().map(job, posts, chunksize=_CHUNK))

    def _stop_pool(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        self._pool_posts = 0

    def _started_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # Imported by a build that starts a pool only: with the process pool's machinery
            # (~10 ms), a build of a few new posts has no use for it.
            from concurrent.futures import ProcessPoolExecutor

            # Loaded here first, a forked worker finds the parsers and the model in memory.
            load_summarizer()
            context = start_method()
            self._pool = ProcessPoolExecutor(max(self.workers, 1), mp_context=context,
                                             initializer=_start_worker, initargs=(worker_parent(context),))
        return self._pool


def _can_time() -> bool:
    """Whether a post summarized here can be held to its budget by a timer signal."""
    return threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")


def _start_worker(parent: int | None) -> None:
    exit_with_parent(parent)
    # A worker not forked from the build loads the model before its first post's timer starts.
    load_summarizer()


def load_summarizer() -> None:
    """Imports what summarize_post uses, and loads the language model."""
    from newsletter.summarize.language import load_model

    for module in ("newsletter.summarize.summary", "newsletter.text.parse"):
        importlib.import_module(module)
    load_model()
