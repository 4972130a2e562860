"""The build's early worker: jobs run in it give what they give here, an error raised there is
raised here, and a worker gone leaves its jobs to the build."""

from __future__ import annotations

import multiprocessing
import os
import time
from pathlib import Path

import pytest

from newsletter import processes
from newsletter.processes import EarlyWorker


def test_jobs_run_in_the_worker_in_their_order(early_worker):
    early = early_worker([])
    assert early.run(abs, [-3, 2, -1]) == [3, 2, 1]
    worker_pids = early.run(_own_pid, [None])
    assert worker_pids is not None and worker_pids[0] != os.getpid()


def test_a_jobs_error_is_raised_in_the_build(early_worker):
    early = early_worker([])
    with pytest.raises(ValueError, match="invalid literal"):
        early.run(int, ["seven"])
    assert early.run(int, ["7"]) == [7]  # and the worker goes on


def test_the_build_loads_its_own_while_the_worker_does_its_first_job(early_worker, tmp_path):
    marker = tmp_path / "loaded"
    loaded: list[str] = []
    early = early_worker([], meanwhile=[lambda: loaded.append("first"), lambda: marker.touch()])
    # The job waits for what the build does meanwhile: had the build waited for the job
    # first, the marker would never come.
    assert early.run(_sees, [marker]) == [True]
    assert loaded == ["first"]
    assert early.run(_sees, [marker]) == [True] and loaded == ["first"]  # once only


def test_a_failure_of_the_builds_own_loading_leaves_the_next_job_its_own_results(early_worker):
    def failing() -> None:
        raise ImportError("no such module")

    early = early_worker([], meanwhile=[failing])
    with pytest.raises(ImportError):
        early.run(abs, [-1])
    assert early.run(abs, [-2]) == [2]


def test_jobs_sent_ahead_run_before_the_next_and_answer_nothing_even_failing(early_worker):
    early = early_worker([])
    early.send_ahead(_remember, ["ready"])
    early.send_ahead(_fail_oddly, [None])
    early.send_ahead(int, ["not a number"])
    assert early.run(_remembered, [None]) == [["ready"]]
    assert early.run(abs, [-4]) == [4]


class _OddError(Exception):
    """An error a pipe could not carry back: unpickling calls __init__ with its args alone."""

    def __init__(self, first: str, second: str) -> None:
        super().__init__(first)


def _fail_oddly(_item: object) -> None:
    raise _OddError("one", "two")


_kept: list[str] = []


def _remember(word: str) -> None:
    _kept.append(word)


def _remembered(_item: object) -> list[str]:
    return _kept


def test_a_worker_killed_from_outside_returns_no_results(early_worker):
    early = early_worker([])
    early.process.kill()
    early.process.join()
    assert early.run(abs, [-1]) is None
    assert early.lost


def test_a_started_worker_ends_with_its_block(monkeypatch):
    # As in a build by hand, where no other thread runs (the test session's servers do).
    monkeypatch.setattr(processes, "start_method", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setattr(processes, "cores", lambda: 2)
    with EarlyWorker.started([]) as early:
        assert early is not None and early.run(abs, [-2]) == [2]
    assert early.process.exitcode is not None


def test_one_core_starts_no_worker(monkeypatch):
    monkeypatch.setattr(processes, "cores", lambda: 1)
    with EarlyWorker.started([]) as early:
        assert early is None


def _own_pid(_item: object) -> int:
    return os.getpid()


def _sees(path: Path) -> bool:
    """Whether `path` appears within ten seconds."""
    for _ in range(1000):
        if path.exists():
            return True
        time.sleep(0.01)
    return False

