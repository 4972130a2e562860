"""How wide the repeat window of deliveries is: `newsletter send` posting one digest to 100
webhook deliveries (the chat stand-in of tests/helpers/chat.py on 127.0.0.1), killed (SIGKILL)
at random moments of its posting, each time from the same state; a post the server kept
whose row was left `pending` is posted again by the next send. Prints the kills, those
repeats, and the window they imply.

    .venv/bin/python bench/delivery_kill_window.py /tmp/window 100
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO)]

from helpers import EXAMPLES, NOW  # noqa: E402 (after the path is set)
from helpers.chat import ChatServer  # noqa: E402

from newsletter import config as config_module  # noqa: E402
from newsletter import pipeline  # noqa: E402

HOOKS = 100


def main(work: Path, kills: int) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "posts")
    with ChatServer() as server:
        tables = "".join(f'[[deliveries]]\nname = "hook{n}"\nkind = "webhook"\nurl_env = "HOOK{n}_URL"\n\n'
                         for n in range(HOOKS))
        os.environ.update({f"HOOK{n}_URL": f"{server.url}/hook{n}" for n in range(HOOKS)})
        config_path = work / "config.toml"
        config_path.write_text('[site]\ntitle = "Window"\nurl = "https://digest.example.org/"\n\n'
                               '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n\n' + tables,
                               encoding="utf-8")
        config = config_module.load(config_path)
        pipeline.build(config, now=NOW)
        shutil.copy(config.state_path, work / "state.built")
        kept_at: list[float] = []
        server.on_kept = lambda _count: kept_at.append(time.monotonic())
        send(config, work, server).wait()
        per_post = (kept_at[-1] - kept_at[0]) / (len(kept_at) - 1)
        server.on_kept = None
        repeats = 0
        for _ in range(kills):
            process = send(config, work, server)
            while not server.taken and process.poll() is None:
                time.sleep(0.001)
            time.sleep(random.uniform(0, per_post * HOOKS))
            process.send_signal(signal.SIGKILL)
            process.wait()
            time.sleep(0.2)  # a post already on its way is kept all the same
            with sqlite3.connect(config.state_path) as db:
                pending = {row[0] for row in db.execute("SELECT delivery FROM deliveries WHERE state = 'pending'")}
            repeats += len(pending & {request.path.lstrip("/") for request in server.taken})
        print(f"one post every {per_post * 1000:.2f} ms; {kills} kills, {repeats} posts kept but left pending;"
              f" window about {repeats / kills * per_post * 1000:.2f} ms a post")


def send(config: config_module.Config, work: Path, server: ChatServer) -> subprocess.Popen:
    """`send` started from the state as built, before any post."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{config.state_path}{suffix}").unlink(missing_ok=True)
    shutil.copy(work / "state.built", config.state_path)
    server.taken.clear()
    return subprocess.Popen([sys.executable, "-m", "newsletter", "--config", str(config.path), "send"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
