"""Work through a list of recipients over several SMTP connections at once.

Each lane is an SMTP session with a state-database connection of its own. A lane takes the
next recipient when it is free and does everything for it (claim, hand-over, record) before
taking another, so each message goes through exactly the steps, and the transactions, it
goes through when there is one lane: the lanes overlap only their waits for the server.
Lane 0 runs in the calling thread with the caller's own connections; with one lane, nothing
else runs.

A failure in one lane (a MailError: the server refuses the sender or cannot be reached)
stops the others after the message each has in hand, and is raised when all have stopped;
so is an interrupt of the calling thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

Item = TypeVar("Item")
Lane = TypeVar("Lane")


def in_lanes(
    items: Sequence[Item], lanes: int, open_lane: Callable[[int], AbstractContextManager[Lane]],
    handle: Callable[[Lane, Item], None], should_stop: Callable[[], bool],
) -> bool:
    """Call `handle(lane, item)` once for each item, over `lanes` lanes made by
    `open_lane(number)`. True if `should_stop` said to stop before every item was handled."""
    queue: Iterator[Item] = iter(items)
    taking = threading.Lock()
    stop = threading.Event()
    stopped_early = threading.Event()
    errors: list[BaseException] = []

    def next_item() -> tuple[bool, Item | None]:
        with taking:
            for item in queue:
                return True, item
            return False, None

    def run(number: int) -> None:
        try:
            with open_lane(number) as lane:
                while not stop.is_set():
                    if should_stop():
                        stopped_early.set()
                        return
                    found, item = next_item()
                    if not found:
                        return
                    handle(lane, item)  # type: ignore[arg-type]  # found: an item
        except BaseException as exc:
            errors.append(exc)
        finally:
            if errors or stopped_early.is_set():
                stop.set()

    others = [threading.Thread(target=run, args=(number,), name=f"smtp-lane-{number}") for number in range(1, lanes)]
    for thread in others:
        thread.start()
    try:
        run(0)
        for thread in others:
            thread.join()
    except BaseException:  # interrupted while waiting: the other lanes finish what they hold
        stop.set()
        for thread in others:
            thread.join()
        raise
    if errors:
        raise errors[0]
    return stopped_early.is_set()
