"""Score the summarizer on a labeled set of the shared folder with the shared scorer."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from newsletter.summarize import summarize
from newsletter.text.encoding import decode

_FIGURES = {
    "bullets F1": r"bullets F1 ([\d.]+)",
    "features F1": r"features P [\d.]+ R [\d.]+ F1 ([\d.]+)",
    "stability": r"stability ([\d.]+)",
    "section": r"section ([\d.]+)",
    "title": r"title ([\d.]+)",
}


def score_set(shared: Path, set_name: str, out_dir: Path) -> tuple[dict[str, float], str]:
    """Summarize every post of corpus/SET_NAME into out_dir and score it against
    eval/gold/SET_NAME: the overall figures and the scorer's whole report."""
    for post in sorted((shared / "corpus" / set_name).iterdir()):
        summary = summarize(decode(post.read_bytes()))
        (out_dir / f"{post.name}.json").write_text(json.dumps(summary.to_json(), ensure_ascii=False), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(shared / "eval" / "score.py"), str(shared / "eval" / "gold" / set_name), str(out_dir)],
        capture_output=True, text=True, check=False)
    last_line = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    found = {name: re.search(pattern, last_line) for name, pattern in _FIGURES.items()}
    assert all(found.values()), f"unexpected scorer output: {result.stdout}{result.stderr}"
    return {name: float(match.group(1)) for name, match in found.items() if match}, result.stdout


def below_bar(figures: dict[str, float], bar: dict[str, float]) -> dict[str, float]:
    return {name: value for name, value in figures.items() if value < bar[name]}
