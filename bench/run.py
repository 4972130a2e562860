"""Run every benchmark and write bench/RESULTS.md and bench/results.json.

    python3 bench/run.py            # the full run (about half an hour)
    python3 bench/run.py --quick    # small sizes, one run each: a smoke test in seconds

It makes its own virtualenvs under bench/work/ (newsletter from this repository, Pelican,
rss2email) and its own corpus there; nothing outside bench/work/ is touched but the two
result files.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchmarks  # noqa: E402
import mailing  # noqa: E402
import report  # noqa: E402
from harness import (  # noqa: E402
    PELICAN,
    REPO,
    RSS2EMAIL,
    TOOL_EXTRAS,
    BenchError,
    ensure_venv,
    log,
    tool_env,
)

BENCH = Path(__file__).resolve().parent

# name: (function, sizes of the full run, sizes of a quick run), in the order they run.
BENCHMARKS = {
    "startup": (benchmarks.startup, [0], [0]),
    "summarizer": (benchmarks.summarizer_throughput, [1000], [20]),
    "profile": (benchmarks.profile, [1000], [30]),
    "collect": (benchmarks.collect, [100, 1000], [5, 10]),
    "send": (mailing.send, [1000, 10_000], [20, 50]),
    "send_slices": (mailing.send_slices, [1000, 10_000], [20, 50]),
    "incremental": (benchmarks.incremental_build, [1000, 10_000], [30]),
    "full_build": (benchmarks.full_build, [100, 1000, 10_000], [10, 30]),
}
# Report order: what the reader asks first comes first.
ROW_ORDER = [
    "summarizer", "full_build", "full_build_cpu", "incremental", "collect_first", "collect_second", "send",
    "send_slices", "startup", "profile",
]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one run each")
    parser.add_argument("--only", help=f"comma-separated subset of: {', '.join(BENCHMARKS)}")
    parser.add_argument("--no-peers", action="store_true", help="measure newsletter alone")
    parser.add_argument("--sizes", help="comma-separated sizes to measure, of each benchmark's full-run sizes")
    parser.add_argument("--runs", type=int, help="runs per figure (default 3, 1 with --quick)")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    parser.add_argument("--tool-python", type=Path,
                        help="measure newsletter with this Python instead of a venv of its own")
    # Resolved: the programs measured run from other folders (harness.tool_env).
    parser.add_argument("--work", type=lambda path: Path(path).resolve(), default=BENCH / "work",
                        help="venvs, corpus, scratch (default bench/work)")
    parser.add_argument("--out", type=Path, default=BENCH, help="where RESULTS.md and results.json go (default bench/)")
    parser.add_argument("--report-only", action="store_true",
                        help="measure nothing: write RESULTS.md again from results.json")
    args = parser.parse_args(argv)
    args.only = args.only.split(",") if args.only else list(BENCHMARKS)
    unknown = set(args.only) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmarks: {', '.join(sorted(unknown))}")
    args.runs = args.runs or (1 if args.quick else 3)
    args.sizes = {int(size) for size in args.sizes.split(",")} if args.sizes else None
    return args


def make_bench(args: argparse.Namespace) -> benchmarks.Bench:
    venvs = args.work / "venvs"
    tool_python = args.tool_python or ensure_venv(venvs / "newsletter", (str(REPO), *TOOL_EXTRAS), log).python
    wants = set(args.only)
    peers = not args.no_peers
    return benchmarks.Bench(
        work=args.work,
        tool=tool_env(tool_python, own_venv=args.tool_python is None),
        pelican=ensure_venv(venvs / "pelican", PELICAN, log)
        if peers and wants & {"startup", "summarizer", "full_build"} else None,
        rss2email=ensure_venv(venvs / "rss2email", RSS2EMAIL, log) if peers and "collect" in wants else None,
        runs=args.runs, seed=args.seed, log=log,
    )


def metadata(args: argparse.Namespace, argv: list[str] | None) -> dict:
    commit = subprocess.run(
        ["git", "-C", str(REPO), "describe", "--always", "--dirty"], capture_output=True, text=True,
    ).stdout.strip() or "unknown"
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")), platform.machine(),
    )
    return {
        "command": " ".join(["python3 bench/run.py", *(sys.argv[1:] if argv is None else argv)]).strip(),
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "machine": f"{os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, {platform.system()}",
        "peers": [*PELICAN, *RSS2EMAIL],
        "seed": args.seed, "runs": args.runs, "quick": args.quick,
        "load_before": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report_only:
        saved = json.loads((args.out / "results.json").read_text(encoding="utf-8"))
        rows = [benchmarks.Row.from_json(row) for row in saved["rows"]]
        report.write(args.out, saved["meta"], rows, saved["profiles"], BENCH / "NOTES.md")
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    args.out.mkdir(parents=True, exist_ok=True)
    meta = metadata(args, argv)
    bench = make_bench(args)
    rows: list[benchmarks.Row] = []
    profiles: dict = {}
    kept, kept_profiles = _earlier_results(args)

    def save() -> None:
        meta["load_after"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
        measured = {(r.benchmark, r.size) for r in rows}
        merged = rows + [r for r in kept if (r.benchmark, r.size) not in measured]
        ordered = sorted(merged, key=lambda r: (ROW_ORDER.index(r.benchmark), r.size))
        report.write(args.out, meta, ordered, profiles or kept_profiles, BENCH / "NOTES.md")

    for name in [n for n in BENCHMARKS if n in args.only]:
        function, full_sizes, quick_sizes = BENCHMARKS[name]
        sizes = quick_sizes if args.quick else full_sizes
        for size in [size for size in sizes if args.sizes is None or size in args.sizes]:
            log(f"{name} at {size:,}")
            started = time.perf_counter()
            try:
                result = function(bench, size)
            except (BenchError, OSError, ValueError) as exc:
                log(f"{name} at {size:,} failed: {exc}")
                row_name = name if name != "collect" else "collect_first"
                rows.append(benchmarks.Row(row_name, size, "s", None, error=str(exc)))
                continue
            if name == "profile":
                profiles.update(result)
            else:
                rows.extend(result if isinstance(result, list) else [result])
            log(f"{name} at {size:,} done in {time.perf_counter() - started:.0f} s")
        save()
    log(f"wrote {args.out / 'RESULTS.md'} and {args.out / 'results.json'}")
    return 0


def _earlier_results(args: argparse.Namespace) -> tuple[list[benchmarks.Row], dict]:
    """The rows and profiles of results.json that a run of a subset (--only, --sizes) keeps,
    each row saying when it was measured; none for a whole run or a quick one."""
    saved_path = args.out / "results.json"
    if args.quick or (set(args.only) >= set(BENCHMARKS) and args.sizes is None) or not saved_path.exists():
        return [], {}
    saved = json.loads(saved_path.read_text(encoding="utf-8"))
    earlier = f"{saved['meta']['date']} at {saved['meta']['commit']}"
    rows = [benchmarks.Row.from_json(row) for row in saved["rows"]]
    return [dataclasses.replace(row, measured=row.measured or earlier) for row in rows], saved["profiles"]


if __name__ == "__main__":
    sys.exit(main())
