"""Profile one `pipeline.build` with pyinstrument: write its text report and print a JSON
line of hotspots (the functions with the most time of their own, and newsletter's functions
by the time spent in them and below).

    python profile_build.py CONFIG REPORT.txt
"""

import json
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from pyinstrument import Profiler

import newsletter
from newsletter import config as config_module
from newsletter import pipeline

TOP = 12


PACKAGE = str(Path(newsletter.__file__).parent)


def hotspots(root) -> tuple[Counter, Counter]:
    own, inclusive = Counter(), Counter()

    def walk(frame, on_stack: tuple[str, ...]) -> None:
        if frame.is_synthetic:
            # "[self]" and friends: already in their parent's total_self_time.
            return
        where = f"{frame.function} ({frame.file_path_short}:{frame.line_no})"
        own[where] += frame.total_self_time
        # A recursive function's time counts once, at its outermost call.
        if (frame.file_path or "").startswith(PACKAGE) and where not in on_stack:
            inclusive[where] += frame.time
        for child in frame.children:
            walk(child, (*on_stack, where))

    walk(root, ())
    return own, inclusive


def main() -> None:
    config_path, report_path = Path(sys.argv[1]), Path(sys.argv[2])
    config = config_module.load(config_path)
    profiler = Profiler(interval=0.0005)
    profiler.start()
    pipeline.build(config, now=datetime.now(UTC))
    session = profiler.stop()
    report_path.write_text(profiler.output_text(unicode=True, show_all=False), encoding="utf-8")
    own, inclusive = hotspots(session.root_frame())
    total = session.duration
    print(json.dumps({
        "seconds": total,
        "own": [[where, t / total] for where, t in own.most_common(TOP)],
        "inclusive": [[where, t / total] for where, t in inclusive.most_common(TOP)],
    }))


if __name__ == "__main__":
    main()
