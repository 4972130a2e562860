"""Whether reading a post takes time linear in its size, told by how the time grows rather
than by a time limit: a limit fails on a busy machine, a ratio of two runs does not."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

# A hostile post made `k` times larger (make(k)) is read in about k times the CPU time when
# the reading is linear, k * k when it is quadratic: with k = 4, 4 against 16. The bound
# leaves room for the fixed costs that weigh more in the smaller post, and for noise.
GROWTH = 4
BOUND = 10.0


def assert_linear(read: Callable[[str], object], make: Callable[[int], str]) -> None:
    small, large = make(1), make(GROWTH)
    assert len(large) > 3 * len(small), "make(k) must grow with k"
    # Each post's time is the fastest of three runs, as noise only ever adds time: a single
    # run of the larger one was once 10.4x the smaller's on a busy machine.
    small_time = min(_cpu_time(read, small) for _ in range(3))
    large_time = min(_cpu_time(read, large) for _ in range(3))
    ratio = large_time / max(small_time, 1e-3)
    assert ratio < BOUND, (f"{GROWTH}x the post took {ratio:.1f}x the time ({small_time:.3f} s, then"
                           f" {large_time:.3f} s): not linear")


def _cpu_time(read: Callable[[str], object], text: str) -> float:
    gc.collect()
    started = time.process_time()
    read(text)
    return time.process_time() - started
