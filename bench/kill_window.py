"""How wide the repeat window of `newsletter send` is: send one digest to 300 subscribers
(aiosmtpd on 127.0.0.1) or to 100 webhook deliveries (the chat stand-in of
tests/helpers/chat.py), killed (SIGKILL) at random moments, each time from the same state. A
message or post the server kept whose row was left `pending` goes again with the next send.
Prints the kills, those repeats, and the window they imply.

    .venv/bin/python bench/kill_window.py mail /tmp/window 100
    .venv/bin/python bench/kill_window.py deliveries /tmp/window 100
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO)]

from aiosmtpd.controller import Controller  # noqa: E402 (after the path is set)
from helpers import EXAMPLES, NOW  # noqa: E402
from helpers.chat import ChatServer  # noqa: E402
from helpers.servers import SmtpSink, email_section, free_port  # noqa: E402

from newsletter import config as config_module  # noqa: E402
from newsletter import pipeline  # noqa: E402

SUBSCRIBERS = [f"reader{n}@example.org" for n in range(300)]
HOOKS = 100


@dataclass
class Target:
    """What the sender talks to, seen the same way for mail and for deliveries."""

    config_tail: str
    # The names (recipient, delivery) the server has kept so far, in order.
    kept: Callable[[], list[str]]
    forget: Callable[[], None]
    # Called with the count kept, once per message or post kept.
    set_on_kept: Callable[[Callable[[int], None] | None], None]
    pending_query: str
    # How long a mailing lasts, roughly: kills land at random within it.
    span: Callable[[float], float]


@contextmanager
def mail_target() -> Iterator[Target]:
    sink, port = SmtpSink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield Target(email_section(port, SUBSCRIBERS), lambda: [item.recipient for item in sink.received],
                     sink.received.clear, lambda hook: setattr(sink, "on_data", hook),
                     "SELECT recipient FROM outbox WHERE state = 'pending'", lambda _each: 0.5)
    finally:
        controller.stop()


@contextmanager
def delivery_target() -> Iterator[Target]:
    with ChatServer() as server:
        os.environ.update({f"HOOK{n}_URL": f"{server.url}/hook{n}" for n in range(HOOKS)})
        tables = "".join(f'[[deliveries]]\nname = "hook{n}"\nkind = "webhook"\nurl_env = "HOOK{n}_URL"\n\n'
                         for n in range(HOOKS))
        yield Target(tables, lambda: [request.path.lstrip("/") for request in server.taken],
                     server.taken.clear, lambda hook: setattr(server, "on_kept", hook),
                     "SELECT delivery FROM deliveries WHERE state = 'pending'", lambda each: each * HOOKS)


def main(kind: str, work: Path, kills: int) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "posts")
    with (mail_target() if kind == "mail" else delivery_target()) as target:
        config_path = work / "config.toml"
        config_path.write_text('[site]\ntitle = "Window"\nurl = "https://digest.example.org/"\n\n'
                               '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n\n'
                               + target.config_tail, encoding="utf-8")
        config = config_module.load(config_path)
        pipeline.build(config, now=NOW)
        shutil.copy(config.state.path, work / "state.built")
        kept_at: list[float] = []
        target.set_on_kept(lambda _count: kept_at.append(time.monotonic()))
        send(config, work, target).wait()
        each = (kept_at[-1] - kept_at[0]) / (len(kept_at) - 1)
        target.set_on_kept(None)
        repeats = 0
        for _ in range(kills):
            process = send(config, work, target)
            while not target.kept() and process.poll() is None:
                time.sleep(0.001)
            time.sleep(random.uniform(0, target.span(each)))
            process.send_signal(signal.SIGKILL)
            process.wait()
            time.sleep(0.2)  # what is already on its way is kept all the same
            with sqlite3.connect(config.state.path) as db:
                pending = {row[0] for row in db.execute(target.pending_query)}
            repeats += len(pending & set(target.kept()))
        unit = "message" if kind == "mail" else "post"
        print(f"one {unit} every {each * 1000:.2f} ms; {kills} kills, {repeats} {unit}s kept by the server but"
              f" left pending; window about {repeats / kills * each * 1000:.2f} ms a {unit}")


def send(config: config_module.Config, work: Path, target: Target) -> subprocess.Popen:
    """`send` started from the state as built, before any message or post."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{config.state.path}{suffix}").unlink(missing_ok=True)
    shutil.copy(work / "state.built", config.state.path)
    target.forget()
    return subprocess.Popen([sys.executable, "-m", "newsletter", "--config", str(config.path), "send"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("mail", "deliveries"):
        sys.exit("usage: kill_window.py mail|deliveries WORK_DIR KILLS")
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]))
