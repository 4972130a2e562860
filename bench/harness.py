"""What every benchmark needs: virtual environments, timed child processes, medians, and
loopback servers.

Each program under test runs as a child process of the harness, so its wall time, its CPU
time and its peak memory (from wait4) are measured the same way for newsletter and for its
peers.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import venv
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DRIVERS = Path(__file__).resolve().parent / "drivers"

# Peers and bench tools, pinned so a rerun measures the same programs.
PELICAN = ("pelican==4.12.0", "markdown==3.11.3")
RSS2EMAIL = ("rss2email==3.14",)
TOOL_EXTRAS = ("pyinstrument==5.1.1", "aiosmtpd==1.4.6")

# Children talk to 127.0.0.1 only; a proxy setting must never route them elsewhere.
_LOOPBACK_ENV = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


class BenchError(Exception):
    """A program under test failed; the message is its last line of error output."""


@dataclass(frozen=True)
class Env:
    """A Python to run programs with, and the environment they get."""

    python: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    # Where its programs run unless told otherwise (None: the harness's current folder).
    cwd: Path | None = None

    @property
    def bin(self) -> Path:
        return self.python.parent

    def command(self, name: str) -> list[str]:
        """A console script of this environment (e.g. "pelican"), run by its Python."""
        return [str(self.python), str(self.bin / name)]

    def environ(self) -> dict[str, str]:
        return {**os.environ, **_LOOPBACK_ENV, **self.extra_env}


def ensure_venv(folder: Path, requirements: tuple[str, ...], log) -> Env:
    """A virtualenv at `folder` with `requirements` installed; reinstalled only when the
    requirements (or, where they hold the repo, its pyproject) change."""
    stamp_text = "\n".join(requirements)
    if str(REPO) in requirements:
        stamp_text += (REPO / "pyproject.toml").read_text(encoding="utf-8")
    stamp = hashlib.sha256(stamp_text.encode()).hexdigest()
    stamp_file = folder / "bench-stamp"
    python = folder / "bin" / "python"
    if not (stamp_file.exists() and stamp_file.read_text() == stamp and python.exists()):
        log(f"installing {' '.join(requirements)} into {folder}")
        venv.EnvBuilder(with_pip=True, clear=True).create(folder)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
            check=True,
        )
        stamp_file.write_text(stamp)
    return Env(python)


def tool_env(python: Path, own_venv: bool) -> Env:
    """What measures the code in the tree now. In the bench's own venv, the tree is installed
    there as a user installs a wheel (copied, compiled to bytecode): an editable install's
    import hook would cost every start ~20 ms no user pays. Another Python is left as it is:
    the repo goes first on its path, its modules compiled first, as an install compiles them
    (with PYTHONDONTWRITEBYTECODE set, every run would otherwise compile the tree again,
    0.1-0.2 s of each incremental build)."""
    if own_venv:
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                        "--force-reinstall", str(REPO)], check=True)
        # Run from the venv's folder: from the checkout, `python -m newsletter` would find the
        # checkout's package first (the current folder leads the path), without its templates.
        return Env(python, cwd=python.parent.parent)
    subprocess.run([str(python), "-m", "compileall", "-q", str(REPO / "newsletter")], check=True,
                   stdout=subprocess.DEVNULL)
    return Env(python, {"PYTHONPATH": str(REPO)})


@dataclass(frozen=True)
class Run:
    seconds: float
    # The child's peak resident memory, in bytes.
    max_rss: int
    stdout: str
    stderr: str
    # CPU time (user and system) of the child and of its own children it waited for (a
    # process pool's workers): what the work cost, however many cores shared it.
    cpu_seconds: float = 0.0

    @property
    def measured(self) -> tuple[float, int]:
        return self.seconds, self.max_rss

    @property
    def cpu_measured(self) -> tuple[float, int]:
        return self.cpu_seconds, self.max_rss


def run(argv: list[str], env: Env, *, cwd: Path | None = None, timeout: float = 3600) -> Run:
    """Run one child to completion: its wall time, peak memory and output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, cwd=cwd or env.cwd, env=env.environ())
        killer = threading.Timer(timeout, child.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(child.pid, 0)
        finally:
            killer.cancel()
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if child.returncode != 0:
        lines = stderr.strip().splitlines() or [f"exit status {child.returncode}"]
        program = argv[2] if argv[1:2] == ["-m"] else Path(argv[min(1, len(argv) - 1)]).name
        raise BenchError(f"{program}: {lines[-1]}")
    # ru_maxrss is in kilobytes on Linux.
    return Run(seconds, usage.ru_maxrss * 1024, stdout, stderr, usage.ru_utime + usage.ru_stime)


def driver(name: str) -> str:
    return str(DRIVERS / name)


@dataclass(frozen=True)
class Sample:
    """One program's figure at one size: a value per run, and its peak memory over them."""

    values: tuple[float, ...]
    max_rss: int = 0

    @classmethod
    def of(cls, measured: list[tuple[float, int]]) -> Sample | None:
        """The sample of (value, max_rss) pairs; None when nothing was measured."""
        if not measured:
            return None
        return cls(tuple(value for value, _ in measured), max(rss for _, rss in measured))

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def to_json(self) -> dict:
        return {"median": self.median, "runs": list(self.values), "max_rss": self.max_rss}

    @classmethod
    def from_json(cls, data: dict | None) -> Sample | None:
        return cls(tuple(data["runs"]), data["max_rss"]) if data else None


def alternate(runs: int, ours, peer=None) -> tuple[list, list]:
    """Call `ours` and `peer` `runs` times each, alternating which goes first so a drift
    in the machine's load falls on both; returns what each call returned."""
    results: dict = {ours: [], peer: []}
    sides = [ours, peer] if peer else [ours]
    for index in range(runs):
        for measure in sides if index % 2 == 0 else reversed(sides):
            results[measure].append(measure())
    return results[ours], results[peer]


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class FeedServer:
    """Feeds served on 127.0.0.1 with ETag and Last-Modified, answering a conditional
    request for an unchanged feed with 304, and counting the statuses it sent."""

    MODIFIED = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def __init__(self, feeds: list):
        # Feed bodies are made once the port is known: a feed names its own URL.
        self._make_feeds = feeds
        self.statuses: Counter = Counter()
        self._lock = threading.Lock()

    def __enter__(self) -> FeedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body leave in one write, with no Nagle delay: a keep-alive client
            # must not wait on the server's TCP settings.
            wbufsize = -1
            disable_nagle_algorithm = True

            def do_GET(self):
                body, etag = server.bodies.get(self.path, (None, None))
                if body is None:
                    self._answer(404, b"", {})
                elif self._not_modified(etag):
                    self._answer(304, b"", {"ETag": etag})
                else:
                    self._answer(200, body, {
                        "ETag": etag, "Last-Modified": format_datetime(server.MODIFIED, usegmt=True),
                        "Content-Type": "application/atom+xml; charset=utf-8",
                    })

            def _not_modified(self, etag: str) -> bool:
                # If-None-Match wins over If-Modified-Since (RFC 9110, 13.2.2).
                if (tags := self.headers.get("If-None-Match")) is not None:
                    return tags.strip() == "*" or etag in (t.strip().removeprefix("W/") for t in tags.split(","))
                try:
                    return parsedate_to_datetime(self.headers["If-Modified-Since"]) >= server.MODIFIED
                except (TypeError, ValueError):
                    return False

            def _answer(self, status: int, body: bytes, headers: dict) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                with server._lock:
                    server.statuses[status] += 1

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.urls = [f"{base}/feeds/{number}.xml" for number in range(len(self._make_feeds))]
        self.bodies = {}
        for url, make in zip(self.urls, self._make_feeds, strict=True):
            body = make(url)
            path = url[len(base):]
            self.bodies[path] = (body, f'"{hashlib.sha1(body).hexdigest()}"')
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def take_statuses(self) -> dict[int, int]:
        """The statuses sent since the last call, e.g. {304: 1000}."""
        with self._lock:
            counts, self.statuses = dict(self.statuses), Counter()
        return counts
