"""The summarizer against the labeled seed posts, scored by the shared scorer.

The seeds live in the `shared/` folder beside the repository (where CI clones it); set
NEWSLETTER_SHARED_DIR to point elsewhere. A clone without it skips this test.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from newsletter.summarize import summarize
from newsletter.text import decode

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("NEWSLETTER_SHARED_DIR") or REPO_ROOT.parent / "shared")
SCORER = SHARED / "eval" / "score.py"
SEEDS = SHARED / "corpus" / "seeds"
GOLD = SHARED / "eval" / "gold" / "seeds"

BAR = {"bullets F1": 1.0, "features F1": 0.98, "stability": 0.98, "section": 0.95, "title": 1.0}


@pytest.mark.slow
@pytest.mark.skipif(not SCORER.is_file(), reason=f"no shared eval folder at {SHARED}")
def test_seed_posts_meet_the_bar(tmp_path):
    for seed in sorted(SEEDS.iterdir()):
        summary = summarize(decode(seed.read_bytes()))
        (tmp_path / f"{seed.name}.json").write_text(json.dumps(summary.to_json(), ensure_ascii=False), encoding="utf-8")
    result = subprocess.run([sys.executable, str(SCORER), str(GOLD), str(tmp_path)],
                            capture_output=True, text=True, check=False)
    last_line = result.stdout.strip().splitlines()[-1]
    scores = {
        "bullets F1": re.search(r"bullets F1 ([\d.]+)", last_line),
        "features F1": re.search(r"features P [\d.]+ R [\d.]+ F1 ([\d.]+)", last_line),
        "stability": re.search(r"stability ([\d.]+)", last_line),
        "section": re.search(r"section ([\d.]+)", last_line),
        "title": re.search(r"title ([\d.]+)", last_line),
    }
    assert all(scores.values()), f"unexpected scorer output: {result.stdout}"
    below = {name: float(found.group(1)) for name, found in scores.items() if float(found.group(1)) < BAR[name]}
    assert not below, f"below the bar {BAR}: {below}\n{result.stdout}"
