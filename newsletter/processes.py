"""The worker processes of a build: how many cores it may use, how its workers start and end,
and the one worker `newsletter build` forks as it starts.

A worker outlives a build killed with SIGKILL unless it watches for it; a fork copies what
the build has loaded but is unsafe beside a thread; the early worker loads what a build will
need while the build loads its pipeline, so a build with little new waits for no import.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import TypeVar

# Seconds between a worker's checks that the build it works for is still running.
_PARENT_CHECK = 0.2

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")


class EarlyWorker:
    """One process forked before the build loads its pipeline. It loads what the build will
    ask of it meanwhile (`warm_ups`, in the order the build will ask), then runs the build's
    small jobs (a few new posts' summaries, their pages' HTML), one batch at a time, over a
    pipe: a process pool would start a thread here, after which no fork is safe. The build
    does its own loading (`meanwhile`) while it waits for its first job: it has nothing
    else to do then, and it would otherwise load the same before its first job."""

    def __init__(self, warm_ups: Sequence[Callable[[], object]],
                 meanwhile: Sequence[Callable[[], object]] = ()) -> None:
        context = multiprocessing.get_context("fork")
        self.connection, theirs = context.Pipe()
        self.process = context.Process(target=_serve, args=(theirs, self.connection, os.getpid(), warm_ups),
                                       name="newsletter-worker", daemon=True)
        self.process.start()
        theirs.close()
        self.lost = False
        self.meanwhile = list(meanwhile)

    @classmethod
    @contextmanager
    def started(cls, warm_ups: Sequence[Callable[[], object]],
                meanwhile: Sequence[Callable[[], object]] = ()) -> Iterator[EarlyWorker | None]:
        """A worker for the with-block, stopped as it ends; none where a fork is not safe or
        no second core is free for it."""
        if cores() < 2 or start_method().get_start_method() != "fork":
            yield None
            return
        worker = cls(warm_ups, meanwhile)
        try:
            yield worker
        finally:
            worker.stop()

    def run(self, job: Callable[[_Item], _Result], items: Sequence[_Item]) -> list[_Result] | None:
        """`job` of each item, in their order; None once the worker is gone (killed from
        outside, out of memory): the caller does the job itself, as without a worker."""
        if not self._send(job, items, reply=True):
            return None
        try:
            while self.meanwhile:
                self.meanwhile.pop(0)()
        finally:
            # Read even when the build's own loading failed: left in the pipe, this reply
            # would be taken for the next job's.
            try:
                done, results = self.connection.recv()
            except (EOFError, OSError):
                self.lost = True
        if self.lost:
            return None
        if not done:
            raise results
        return results  # type: ignore[no-any-return]

    def send_ahead(self, job: Callable[[_Item], object], items: Sequence[_Item]) -> None:
        """Has the worker start `job` on the items now, while the build goes on, for what the
        job leaves in the worker (a cache its next jobs read). It answers nothing: a failure
        leaves the next job to do without what it would have left."""
        self._send(job, items, reply=False)

    def _send(self, job: Callable[[_Item], object], items: Sequence[_Item], *, reply: bool) -> bool:
        if not self.lost:
            try:
                self.connection.send((job, list(items), reply))
            except OSError:
                self.lost = True
        return not self.lost

    def stop(self) -> None:
        # Killed, not asked: it keeps nothing, and may still be loading (a build that stops
        # early, on a config error, would wait for that).
        self.connection.close()
        self.process.kill()
        self.process.join()


def _serve(connection: Connection, builds_end: Connection, parent: int,
           warm_ups: Sequence[Callable[[], object]]) -> None:
    # Its copy of the build's end closed, the pipe ends when the build closes its own.
    builds_end.close()
    exit_with_parent(parent)
    # Ctrl-C reaches the whole process group: the build stops this worker as it ends,
    # without a traceback from here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Its work is a bet that the build finds something new: on a busy machine it yields to
    # the build and to everything else (a build of sources answering "not modified" never
    # sends it a job).
    if hasattr(os, "nice"):
        os.nice(10)
    pending = list(warm_ups)
    while True:
        # Loaded while the build has nothing to ask: a job sent meanwhile waits for one
        # warm-up at most, and loads what it needs itself.
        while pending and not connection.poll():
            pending.pop(0)()
        try:
            job, items, reply = connection.recv()
        except EOFError:
            return
        try:
            results = [job(item) for item in items]
        except Exception as exc:  # raised in the build, as if the job had run there
            if reply:
                connection.send((False, exc))
            continue
        if reply:
            connection.send((True, results))


def exit_with_parent(parent: int | None = None) -> None:
    """A worker outlives a build killed with SIGKILL (nothing runs to stop it), waiting for
    work forever and holding the build's output pipes open: it watches for its parent (the
    build, or the fork server, which ends with it) to go. `parent` is the build's pid where
    the build is the parent (worker_parent): read here instead, it would be the pid a worker
    was handed to if the build died between the fork and this call, and it would wait forever."""
    parent = parent or os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def worker_parent(context: multiprocessing.context.BaseContext) -> int | None:
    """This process's pid when the workers `context` starts are its own children; None
    under a fork server, whose pid only a worker can read."""
    return os.getpid() if context.get_start_method() in ("fork", "spawn") else None


def cores() -> int:
    if hasattr(os, "sched_getaffinity"):  # the cores this process may run on, where known
        return len(os.sched_getaffinity(0))
    # Windows' process pools take at most 61 workers.
    return min(os.cpu_count() or 1, 61) if sys.platform == "win32" else os.cpu_count() or 1


def start_method() -> multiprocessing.context.BaseContext:
    """fork where it is safe: it copies the loaded modules and model instead of importing
    and loading them again in every worker. It is not safe in a process running other
    threads (the scheduler's), which may hold a lock at that moment, nor where the platform
    itself spawns (macOS, Windows)."""
    methods = multiprocessing.get_all_start_methods()
    if threading.active_count() == 1 and multiprocessing.get_context().get_start_method() != "spawn":
        return multiprocessing.get_context("fork")
    # A fresh interpreter per worker (or per pool, with a fork server) holds no lock.
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
