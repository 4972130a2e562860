"""A `newsletter send` SIGKILLed while posting a digest to its deliveries, then run again:
every delivery has the digest once. The one window (the service took the post, the process
died before recording its answer) shows as a repeat of the very same request: Matrix makes
one event of it (the same transaction id), a webhook gets the same Idempotency-Key; Slack
and Discord, which take no key, show it twice."""

from __future__ import annotations

import subprocess

import pytest
from helpers import NOW, start_cli
from helpers.chat import deliveries_section

from newsletter import pipeline
from newsletter.config import load

# The order deliveries post in: the config's.
KINDS = ("slack", "discord", "matrix", "webhook")


def send_killed_at(config_path, chat, hook: str, number: int) -> None:
    """Run `newsletter send` and SIGKILL it as the server takes its `number`th request:
    "on_arrival", the request dropped unkept (it never reached the service), or "on_kept",
    the request kept and not answered."""
    running: list[subprocess.Popen] = []

    def kill(count: int) -> bool:
        due = count + 1 if hook == "on_arrival" else count
        if due == number:
            running[0].kill()
            return True
        return False

    setattr(chat, hook, kill)
    running.append(start_cli("--config", str(config_path), "send"))
    running[0].communicate(timeout=60)
    setattr(chat, hook, None)
    assert running[0].returncode == -9


@pytest.mark.slow
@pytest.mark.parametrize(("hook", "number"), [
    ("on_arrival", 1), ("on_kept", 1), ("on_arrival", 3), ("on_kept", 3), ("on_kept", 4),
])
def test_a_killed_send_started_again_posts_to_every_delivery_once(config, chat, hook, number):
    config.path.write_text(config.path.read_text(encoding="utf-8") + deliveries_section(KINDS), encoding="utf-8")
    pipeline.build(load(config.path), now=NOW)
    send_killed_at(config.path, chat, hook, number)
    assert len(chat.taken) == number - (hook == "on_arrival")

    again = start_cli("--config", str(config.path), "send")
    _, stderr = again.communicate(timeout=60)
    assert again.returncode == 0, stderr
    killed_kind = KINDS[number - 1]
    assert f"delivery {killed_kind}: the last run stopped while posting digest 2026-11-02-1" in stderr
    for kind in KINDS:
        requests = chat.of(kind)
        # Only a post the service kept before the process died is there twice, as the same request.
        assert len(requests) == (2 if hook == "on_kept" and kind == killed_kind else 1), kind
        assert len({(r.path, r.body, r.headers.get("Idempotency-Key")) for r in requests}) == 1
    assert len(chat.events) == 1  # one Matrix event, however often its transaction came
