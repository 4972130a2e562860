"""Plain helpers shared by the tests (fixtures live in conftest.py). This module holds what
nearly every test file reaches for: the checkout's paths, the fixed clock, a config file, the
command line in a subprocess and the state lock held elsewhere. By topic:

- helpers.posts: posts, entries and digests built without running the pipeline;
- helpers.servers: a web document with validators, an SMTP sink, the [email] table;
- helpers.archive: checks over a built archive (whole, well-formed, nothing active).

pyproject.toml puts tests/ on sys.path, so tests write `from helpers import NOW`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from newsletter import config as config_module
from newsletter.state import lock

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "posts"
NOW = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)


def shared_dir() -> Path | None:
    """The project's shared folder (seed posts, gold labels, validators) beside the clone,
    or None in a clone that has none."""
    path = Path(os.environ.get("NEWSLETTER_SHARED_DIR", REPO.parent / "shared"))
    return path if path.is_dir() else None


# The [site] table of the tests' configs.
SITE_TABLE = """[site]
title = "Test digest"
url = "https://digest.example.org/"
author = "Test team"
"""


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(body, encoding="utf-8")
    return path


def feed_config(tmp_path: Path, feed_url: str, extra: str = "") -> config_module.Config:
    """A config of one feed source, "blog", at `feed_url`, with `extra` lines in its table;
    a request that fails is not tried again."""
    return config_module.load(write_config(tmp_path, f"""{SITE_TABLE}
[[sources]]
name = "blog"
kind = "feed"
url = "{feed_url}"
{extra}
[http]
timeout = 5
retries = 0
"""))


def start_cli(*args: str, cwd: Path = REPO) -> subprocess.Popen:
    """`python -m newsletter ARGS` started in a subprocess on this checkout's code, its output
    piped as text, for a test to signal, kill or wait for."""
    return subprocess.Popen(
        [sys.executable, "-m", "newsletter", *args], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def run_cli(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess:
    """`python -m newsletter ARGS` in a subprocess on this checkout's code, run to its end."""
    return subprocess.run(
        [sys.executable, "-m", "newsletter", *args], cwd=cwd, capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=timeout,
    )


@contextmanager
def held_elsewhere(where: Path | config_module.StateLocation):
    """The lock file `where`, or the lock of the state at `where` (an advisory lock on
    PostgreSQL, taken on a connection of its own), held by another thread, as another process
    or host would hold it."""
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock.exclusive(where) if isinstance(where, Path) else lock.state(where, "build"):
            taken.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(timeout=10)
    try:
        yield
    finally:
        release.set()
        holder.join()
