"""`newsletter worker` processes as the tests and the bench start them, and their config."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from helpers import REPO, SITE_TABLE, write_config
from helpers.postgres import state_table
from helpers.servers import email_section
from newsletter.config import StateLocation


def worker_config(tmp_path: Path, posts_dir: Path, postgres_url: str | None, smtp_port: int,
                  subscribers: list[str], schedule: str = "") -> Path:
    """Folder posts, the state on PostgreSQL (in a SQLite file without `postgres_url`),
    `subscribers` in a file, mailed to the SMTP server on `smtp_port`."""
    (tmp_path / "subscribers.txt").write_text("".join(f"{address}\n" for address in subscribers))
    email = email_section(smtp_port, []).replace("subscribers = []", 'subscribers_file = "subscribers.txt"')
    state = state_table(StateLocation(url=postgres_url)) if postgres_url else ""
    return write_config(tmp_path, f"""{SITE_TABLE}
[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"

{state}
{email}
{schedule}""")


def missed_by(minutes: int = 1) -> str:
    """[schedule]: a digest daily at the minute `minutes` ago (UTC), which every worker
    finds due and missed (within the default misfire grace of 6 hours)."""
    return digest_daily_at(datetime.now(UTC) - timedelta(minutes=minutes))


def digest_daily_at(then: datetime) -> str:
    """[schedule]: a digest daily at the minute of `then` (UTC)."""
    return f'[schedule]\ndigest = "{then.minute} {then.hour} * * *"\n'


class Workers:
    """`newsletter worker` processes, each logging to a file of its own."""

    def __init__(self, config: Path, logs: Path):
        self.config, self.logs = config, logs
        logs.mkdir()
        self.running: list[subprocess.Popen] = []
        self.started = 0

    def start(self) -> None:
        self.started += 1
        log = (self.logs / f"worker-{self.started}.log").open("w")
        self.running.append(subprocess.Popen(
            [sys.executable, "-m", "newsletter", "--config", str(self.config), "worker"], cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=log, env={**os.environ, "PYTHONPATH": str(REPO)},
        ))

    def kill_one(self) -> int:
        """SIGKILL a random one; its process id."""
        victim = self.running.pop(random.randrange(len(self.running)))
        victim.kill()
        victim.wait()
        return victim.pid

    def stop(self) -> list[int]:
        """SIGTERM to each; their exit statuses."""
        for process in self.running:
            process.send_signal(signal.SIGTERM)
        return [process.wait(timeout=30) for process in self.running]

    def log(self) -> str:
        return "".join(path.read_text() for path in sorted(self.logs.glob("*.log")))
