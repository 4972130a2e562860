"""Rows -> bench/results.json (every figure) and bench/RESULTS.md (the tables a reader wants)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from benchmarks import Row

MB = 1024 * 1024

TITLES = {
    "startup": ("start-up (`--version`)", ""),
    "summarizer": ("summarizer throughput, one core", "posts"),
    "full_build": ("full build (collect + summarize + Atom + digest), wall time", "posts"),
    "full_build_cpu": ("full build, CPU time (all processes)", "posts"),
    "incremental": ("incremental build: one new post among N", "posts"),
    "collect_first": ("collect feed sources, first run (200)", "sources"),
    "collect_second": ("collect feed sources, second run (nothing changed)", "sources"),
    "send": ("send one digest over loopback SMTP", "subscribers"),
    "send_slices": ("send one digest to subscribers in 5 slices (peer: all in one slice)", "subscribers"),
}


def _bar_full_build(rows):
    figures = []
    met = True
    for benchmark, how in (("full_build", "wall"), ("full_build_cpu", "CPU")):
        for size in (1000, 10_000):
            row = _at(rows, benchmark, size)
            if not (row and row.ratio):
                return None
            met = met and row.ratio >= 5
            figures.append(f"{row.ratio:.1f}x ({how}, {size:,})")
    return met, ", ".join(figures)


def _bar_memory(rows):
    row = _at(rows, "full_build", 10_000)
    return row and (row.ours.max_rss <= 250 * MB, f"{row.ours.max_rss / MB:.0f} MB")


def _bar_incremental(rows):
    small, large = _at(rows, "incremental", 1000), _at(rows, "incremental", 10_000)
    if not (small and large):
        return None
    growth = math.log(large.ours.median / small.ours.median) / math.log(10)
    return (
        large.ours.median < 0.5 and growth < 1,
        f"{large.ours.median:.2f} s at 10,000 ({small.ours.median:.2f} s at 1,000: growth exponent {growth:.2f})",
    )


def _bar_collect(rows):
    row = _at(rows, "collect_second", 1000)
    return row and row.ratio and (row.ratio >= 3, f"{row.ours.median:.2f} s, {row.ratio:.1f}x rss2email's speed")


def _bar_startup(rows):
    row = _at(rows, "startup", 0)
    return row and row.ratio and (row.ratio >= 1, f"{row.ours.median * 1000:.0f} ms, {row.ratio:.2f}x Pelican's speed")


def _bar_send(rows):
    sent = sorted((r for r in rows if r.benchmark == "send" and r.ours), key=lambda r: r.size)
    if len(sent) < 2 or sent[-1].size < 10_000:
        return None
    slowest = min(r.ours.median for r in sent)
    growth = sent[-1].ours.max_rss / sent[0].ours.max_rss
    return (
        slowest >= 500 and growth <= 1.25,
        f"{slowest:.0f} msg/s at worst; peak memory x{growth:.2f} from {sent[0].size:,} to {sent[-1].size:,}",
    )


# The bars of the speed issue, then the send bar of an earlier one: (what, bar, check). A
# check returns (met, figure), or None when the run did not measure what the bar needs (a
# quick run, a failed row).
BARS = (
    ("full build vs Pelican, 1,000 and 10,000 posts", ">= 5x faster by wall and by CPU time", _bar_full_build),
    ("peak memory, full build of 10,000 posts", "<= 250 MB", _bar_memory),
    ("incremental build, one new post", "< 0.5 s at 10,000 posts, less than linear from 1,000", _bar_incremental),
    ("second collect, 1,000 sources", ">= 3x faster than rss2email", _bar_collect),
    ("start-up (`--version`)", "no slower than Pelican's", _bar_startup),
    ("send, 1,000 and 10,000 subscribers", ">= 500 msg/s, memory flat in N", _bar_send),
)


def _at(rows: list[Row], benchmark: str, size: int) -> Row | None:
    return next((r for r in rows if r.benchmark == benchmark and r.size == size and r.ours), None)


def _figure(value: float, unit: str) -> str:
    if unit == "s":
        return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"
    return f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"


def _ratio(row: Row) -> str:
    if row.ratio is None:
        return ""
    better = "faster" if row.ratio >= 1 else "slower"
    times = row.ratio if row.ratio >= 1 else 1 / row.ratio
    return f"{times:.1f}x {better}"


def _main_table(rows: list[Row]) -> list[str]:
    lines = [
        "| what | N | newsletter | peer | peer's figure | newsletter is | runs | notes |",
        "|---|---:|---:|---|---:|---|---:|---|",
    ]
    for row in rows:
        title = TITLES.get(row.benchmark, (row.benchmark, ""))[0]
        size = f"{row.size:,}" if row.size else ""
        if row.error:
            lines.append(f"| {title} | {size} | not measured | | | | | {row.error} |")
            continue
        peer = _figure(row.peer.median, row.unit) if row.peer else ""
        lines.append(
            f"| {title} | {size} | {_figure(row.ours.median, row.unit)} | {row.peer_name if row.peer else ''}"
            f" | {peer} | {_ratio(row)} | {len(row.ours.values)} | {_notes(row)} |"
        )
    return lines


def _notes(row: Row) -> str:
    return "; ".join(part for part in (row.detail, f"measured {row.measured}" if row.measured else "") if part)


def _bars_table(rows: list[Row]) -> tuple[list[str], list[str]]:
    lines = ["| bar | target | measured | met |", "|---|---|---|---|"]
    missed = []
    for what, target, check in BARS:
        verdict = check(rows)
        if verdict is None:
            lines.append(f"| {what} | {target} | not measured in this run | |")
            continue
        met, figure = verdict
        lines.append(f"| {what} | {target} | {figure} | {'yes' if met else '**no**'} |")
        if not met:
            missed.append(f"{what}: {figure} (bar: {target})")
    return lines, missed


def _cost(row_sample, unit: str, size: int) -> float:
    """Seconds for the whole job at this size (throughputs turned back into time)."""
    return row_sample.median if unit == "s" else size / row_sample.median


def _growth_table(rows: list[Row]) -> list[str]:
    """Time at each size side by side, with the exponent between neighbours (1 = linear)."""
    lines = [
        "| what | program | time at each N | growth exponent between sizes |",
        "|---|---|---|---|",
    ]
    for benchmark, (title, noun) in TITLES.items():
        measured = sorted((r for r in rows if r.benchmark == benchmark and r.ours), key=lambda r: r.size)
        if len(measured) < 2:
            continue
        unit = measured[0].unit
        sides = [("newsletter", lambda r: r.ours)]
        if all(r.peer for r in measured):
            sides.append((measured[0].peer_name, lambda r: r.peer))
        for name, pick in sides:
            costs = [(r.size, _cost(pick(r), unit, r.size)) for r in measured]
            at_sizes = ", ".join(f"{size:,} {noun}: {_figure(cost, 's')}" for size, cost in costs)
            exponents = ", ".join(
                f"{math.log(c2 / c1) / math.log(n2 / n1):.2f}"
                for (n1, c1), (n2, c2) in zip(costs, costs[1:], strict=False)
            )
            lines.append(f"| {title} | {name} | {at_sizes} | {exponents} |")
    return lines


def _memory_table(rows: list[Row]) -> list[str]:
    lines = ["| what | N | newsletter peak RSS | peer | peer's peak RSS |", "|---|---:|---:|---|---:|"]
    for row in rows:
        if row.benchmark in ("full_build", "incremental", "send") and row.ours:
            peer = f"{row.peer.max_rss / MB:.0f} MB" if row.peer else ""
            lines.append(
                f"| {TITLES[row.benchmark][0]} | {row.size:,} | {row.ours.max_rss / MB:.0f} MB"
                f" | {row.peer_name if row.peer else ''} | {peer} |"
            )
    return lines


def _profile_lines(profiles: dict) -> list[str]:
    lines = []
    for name, profile in profiles.items():
        lines += [
            f"**{name}** ({profile['seconds']:.2f} s under the profiler; full report: "
            f"`{profile['report']}` in bench/work/profiles/)",
            "",
            "| own time | function |  | time in and below | newsletter function |",
            "|---:|---|---|---:|---|",
        ]
        for (own, own_share), (inner, inner_share) in zip(profile["own"][:8], profile["inclusive"][:8], strict=False):
            lines.append(f"| {own_share:.0%} | `{own}` | | {inner_share:.0%} | `{inner}` |")
        lines.append("")
    return lines


def write(out: Path, meta: dict, rows: list[Row], profiles: dict, notes: Path) -> None:
    (out / "results.json").write_text(
        json.dumps({"meta": meta, "rows": [r.to_json() for r in rows], "profiles": profiles}, indent=2) + "\n",
        encoding="utf-8",
    )
    bars, missed = _bars_table(rows)
    lines = [
        "# Benchmark results",
        "",
        f"Made by `{meta['command']}` on {meta['date']} at commit {meta['commit']}"
        " (a row measured by an earlier run says when, in its notes); "
        f"{meta['machine']}. Every program runs as a child of the harness, newsletter and its "
        "peer alternating, and each figure is the median of the runs counted in the table. "
        "Times are wall-clock times of the whole command, start-up included, except the CPU-time rows "
        "(user and system time of the command and the worker processes it waited for).",
        "",
        "## The bars",
        "",
        *bars,
        "",
        "## Every figure",
        "",
        *_main_table(rows),
        "",
        "## How the cost grows with N",
        "",
        "The growth exponent is log(t2/t1) / log(N2/N1) between neighbouring sizes: 1 is "
        "linear, 0 is independent of N.",
        "",
        *_growth_table(rows),
        "",
        "## Peak memory (max RSS of the command)",
        "",
        *_memory_table(rows),
        "",
    ]
    if profiles:
        lines += ["## Where the time goes (pyinstrument)", "", *_profile_lines(profiles)]
    if missed:
        lines += ["## Bars missed in this run", "", *(f"- {m}" for m in missed), ""]
    if notes.exists():
        lines += [notes.read_text(encoding="utf-8").strip(), ""]
    lines += [
        "## Setup",
        "",
        f"- Peers: {', '.join(meta['peers'])}, each in its own virtualenv.",
        f"- Corpus: seed {meta['seed']}; posts 10-40 KB of Markdown (front matter, highlights, "
        "labeled feature headings, links, code blocks of `#` comments); Pelican reads the same "
        "bodies under its own metadata header. Feed sources: two entries of 3-8 KB HTML each.",
        f"- Load average before / after: {meta['load_before']} / {meta['load_after']}.",
        "",
    ]
    (out / "RESULTS.md").write_text("\n".join(lines), encoding="utf-8")
