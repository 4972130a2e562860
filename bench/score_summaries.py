"""Summarize a folder of labeled posts and score the result with the shared scorer.

    python3 bench/score_summaries.py dev                      # every dev post
    python3 bench/score_summaries.py dev --skip kubernetes numpy react
    python3 bench/score_summaries.py dev --only kubernetes numpy react
    python3 bench/score_summaries.py seeds --keep /tmp/pred   # keep the predictions
    python3 bench/score_summaries.py dev --at f368e2c          # the rules of another commit
    python3 bench/score_summaries.py held --corpus DIR --gold DIR   # a set kept elsewhere

A set name is looked up as corpus/NAME and eval/gold/NAME under the shared folder (beside
the repository, or NEWSLETTER_SHARED_DIR); --corpus and --gold name the folders instead,
for posts that must stay outside the repository. --only/--skip take file-name prefixes. Options
after `--` go to the scorer (e.g. `-- --min-features 0.95`); its exit status is this
script's. Predictions are what `newsletter summarize FILE --json` prints.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from newsletter.summarize import summarize
from newsletter.text.encoding import decode

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    return Path(os.environ.get("NEWSLETTER_SHARED_DIR") or REPO.parent / "shared")


def chosen(names: list[str], only: list[str], skip: list[str]) -> list[str]:
    return [name for name in names
            if (not only or name.startswith(tuple(only))) and not name.startswith(tuple(skip))]


def score(set_name: str, only: list[str], skip: list[str], keep: Path | None, scorer_args: list[str],
          folders: tuple[Path | None, Path | None] = (None, None)) -> int:
    shared = shared_dir()
    corpus = folders[0] or shared / "corpus" / set_name
    gold = folders[1] or shared / "eval" / "gold" / set_name
    posts = chosen(sorted(p.name for p in corpus.iterdir() if p.is_file()), only, skip)
    with tempfile.TemporaryDirectory() as work:
        gold_dir, pred_dir = Path(work) / "gold", keep or Path(work) / "pred"
        gold_dir.mkdir()
        pred_dir.mkdir(parents=True, exist_ok=True)
        for name in posts:
            (gold_dir / f"{name}.json").symlink_to(gold / f"{name}.json")
            summary = summarize(decode((corpus / name).read_bytes()))
            (pred_dir / f"{name}.json").write_text(
                json.dumps(summary.to_json(), ensure_ascii=False, indent=2), encoding="utf-8")
        result = subprocess.run([sys.executable, str(shared / "eval" / "score.py"), str(gold_dir), str(pred_dir),
                                 *scorer_args], check=False)
    return result.returncode


def score_at(revision: str, argv: list[str]) -> int:
    """Run this script on the summarizer as it was at `revision` (a commit of this repository),
    unpacked into a temporary folder: its rules, today's scorer and data."""
    with tempfile.TemporaryDirectory() as work:
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", work], input=archive.stdout, check=True)
        (Path(work) / "bench").mkdir(exist_ok=True)
        script = Path(work) / "bench" / Path(__file__).name
        script.write_text(Path(__file__).read_text(encoding="utf-8"), encoding="utf-8")
        # The unpacked package must come before an installed one (an editable install of
        # this checkout would otherwise answer with today's rules).
        path = os.pathsep.join(filter(None, [work, os.environ.get("PYTHONPATH")]))
        env = {**os.environ, "NEWSLETTER_SHARED_DIR": str(shared_dir().resolve()), "PYTHONPATH": path}
        return subprocess.run([sys.executable, str(script), *argv], env=env, check=False).returncode


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set_name", help="dev, seeds, ...")
    parser.add_argument("--only", nargs="*", default=[], help="file-name prefixes to keep")
    parser.add_argument("--skip", nargs="*", default=[], help="file-name prefixes to leave out")
    parser.add_argument("--keep", type=Path, help="write the predictions here")
    parser.add_argument("--at", metavar="REVISION", help="score the rules of this commit instead")
    parser.add_argument("--corpus", type=Path, help="the posts' folder, in place of the shared set's")
    parser.add_argument("--gold", type=Path, help="the gold labels' folder, in place of the shared set's")
    ours, scorer_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    opts = parser.parse_args(ours)
    if opts.at:
        rest = [arg for i, arg in enumerate(argv) if arg != "--at" and (i == 0 or argv[i - 1] != "--at")]
        return score_at(opts.at, rest)
    folders = (opts.corpus and opts.corpus.resolve(), opts.gold and opts.gold.resolve())
    return score(opts.set_name, opts.only, opts.skip, opts.keep, scorer_args, folders)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
