"""How wide the duplicate window of `send` is: `newsletter send` to 300 subscribers, killed
(SIGKILL) at random moments of its mailing, each time from the same state; a message the SMTP
server (aiosmtpd on 127.0.0.1) stored whose outbox row was left `pending` is mailed again by
the next send. Prints the kills, those duplicates, and the window they imply.

    .venv/bin/python bench/send_kill_window.py /tmp/window 100
"""

from __future__ import annotations

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

from aiosmtpd.controller import Controller  # noqa: E402 (after the path is set)
from helpers import EXAMPLES, NOW  # noqa: E402
from helpers.servers import SmtpSink, email_section, free_port  # noqa: E402

from newsletter import config as config_module  # noqa: E402
from newsletter import pipeline  # noqa: E402

SUBSCRIBERS = [f"reader{n}@example.org" for n in range(300)]


def main(work: Path, kills: int) -> None:
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "posts")
    sink, port = SmtpSink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        config_path = work / "config.toml"
        config_path.write_text('[site]\ntitle = "Window"\nurl = "https://digest.example.org/"\n\n'
                               '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n\n'
                               + email_section(port, SUBSCRIBERS), encoding="utf-8")
        config = config_module.load(config_path)
        pipeline.build(config, now=NOW)
        shutil.copy(config.state_path, work / "state.built")
        stored_at: list[float] = []
        sink.on_data = lambda _count: stored_at.append(time.monotonic())
        send(config, work, sink).wait()
        per_message = (stored_at[-1] - stored_at[0]) / (len(stored_at) - 1)
        sink.on_data = None
        duplicates = 0
        for _ in range(kills):
            process = send(config, work, sink)
            while not sink.received and process.poll() is None:
                time.sleep(0.001)
            time.sleep(random.uniform(0, 0.5))
            process.send_signal(signal.SIGKILL)
            process.wait()
            time.sleep(0.2)  # a message already on its way is stored all the same
            with sqlite3.connect(config.state_path) as db:
                pending = {row[0] for row in db.execute("SELECT recipient FROM outbox WHERE state = 'pending'")}
            duplicates += len(pending & {item.recipient for item in sink.received})
        print(f"one message every {per_message * 1000:.2f} ms; {kills} kills, {duplicates} messages stored but"
              f" left pending; window about {duplicates / kills * per_message * 1000:.2f} ms a message")
    finally:
        controller.stop()


def send(config: config_module.Config, work: Path, sink: SmtpSink) -> subprocess.Popen:
    """`send` started from the state as built, before any mailing."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{config.state_path}{suffix}").unlink(missing_ok=True)
    shutil.copy(work / "state.built", config.state_path)
    sink.received.clear()
    return subprocess.Popen([sys.executable, "-m", "newsletter", "--config", str(config.path), "send"],
                            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]))
