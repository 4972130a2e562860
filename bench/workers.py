"""Messages a second of one mailing by 1, 2 and 4 `newsletter worker` processes on a state on
PostgreSQL, beside one `newsletter send` on a SQLite state, in the same run, to the same
number of subscribers, against the bench's SMTP sink (drivers/smtp_sink.py, which costs a
sender little, so the figure is the senders').

Each figure is the subscribers divided by the time from the first message the sink receives
to the last: the mailing alone, not the processes' start-up nor the build before it. The
workers are started on a fresh database whose [schedule] has a digest due: one of them
builds it and starts the mailing, the others join it through the job queue. A PostgreSQL
server is started for the run (tests/helpers/postgres.py).

    .venv/bin/python bench/workers.py /tmp/bench-workers 5000 3
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO)]

from helpers import EXAMPLES  # noqa: E402 (after the path is set)
from helpers.postgres import PostgresServer  # noqa: E402
from helpers.servers import free_port  # noqa: E402
from helpers.workers import missed_by, worker_config  # noqa: E402

WORKERS = (1, 2, 4)
SINK = REPO / "bench" / "drivers" / "smtp_sink.py"


class Sink:
    """The bench's SMTP sink in a process of its own; `received()` is the count so far."""

    def __init__(self, process: subprocess.Popen, port: int):
        self.process, self.port, self.total = process, port, 0

    def received(self) -> int:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        self.total += int(self.process.stdout.readline().split()[0])
        return self.total

    def reset(self) -> None:
        """Count from zero: called before each mailing starts."""
        self.received()
        self.total = 0

    def mailing_seconds(self, size: int, timeout: float = 600) -> float:
        """From the first message received since `reset` to the `size`th, polled every 20 ms."""
        deadline = time.monotonic() + timeout
        first = None
        while (count := self.received()) < size:
            if first is None and count:
                first = time.monotonic()
            if time.monotonic() > deadline:
                raise RuntimeError(f"the sink received {count} of {size} messages")
            time.sleep(0.02)
        return time.monotonic() - (first or time.monotonic())


@contextmanager
def sink() -> Iterator[Sink]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SINK), str(port)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout and process.stdout.readline().strip() == "ready"
    try:
        yield Sink(process, port)
    finally:
        assert process.stdin
        process.stdin.close()
        process.wait(timeout=30)


def newsletter(*args: str) -> subprocess.Popen:
    """`python -m newsletter ARGS` on this checkout, its log dropped."""
    return subprocess.Popen([sys.executable, "-m", "newsletter", *args], cwd=REPO, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(REPO)})


def fresh(work: Path, name: str) -> Path:
    folder = work / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(EXAMPLES, folder / "posts")
    return folder


def sqlite_send(work: Path, target: Sink, size: int) -> float:
    folder = fresh(work, "sqlite")
    config = worker_config(folder, folder / "posts", None, target.port, _subscribers(size))
    assert newsletter("--config", str(config), "build").wait() == 0
    target.reset()
    sender = newsletter("--config", str(config), "send")
    seconds = target.mailing_seconds(size)
    assert sender.wait(timeout=60) == 0
    return size / seconds


def workers_mail(work: Path, server: PostgresServer, target: Sink, size: int, workers: int) -> float:
    folder = fresh(work, f"workers-{workers}")
    url = server.url(server.create_database())
    config = worker_config(folder, folder / "posts", url, target.port, _subscribers(size), missed_by())
    target.reset()
    running = [newsletter("--config", str(config), "worker") for _ in range(workers)]
    try:
        seconds = target.mailing_seconds(size)
    finally:
        for process in running:
            process.send_signal(signal.SIGTERM)
        for process in running:
            process.wait(timeout=60)
    return size / seconds


def _subscribers(size: int) -> list[str]:
    return [f"reader{n}@example.org" for n in range(size)]


def main(work: Path, size: int, runs: int) -> None:
    server = PostgresServer()
    server.start()
    figures: dict[str, list[float]] = {"sqlite send": [], **{f"{n} workers": [] for n in WORKERS}}
    try:
        with sink() as target:
            for run in range(runs):
                # Alternating the order, so a drift in the machine's load falls on every side.
                sides = ["sqlite send", *figures.keys() - {"sqlite send"}]
                for side in sorted(sides, reverse=run % 2 == 1):
                    if side == "sqlite send":
                        figures[side].append(sqlite_send(work, target, size))
                    else:
                        figures[side].append(workers_mail(work, server, target, size, int(side.split()[0])))
                    print(f"run {run + 1}: {side}: {figures[side][-1]:.0f} msg/s", file=sys.stderr, flush=True)
    finally:
        server.stop()
    medians = {side: statistics.median(values) for side, values in figures.items()}
    print(json.dumps({"subscribers": size, "runs": runs, "load": os.getloadavg(),
                      "msg/s": {side: round(value) for side, value in medians.items()},
                      "each run": {side: [round(v) for v in values] for side, values in figures.items()}}))


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
