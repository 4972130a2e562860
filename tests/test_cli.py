import json
import socket
from pathlib import Path

import pytest
from helpers import EXAMPLES, run_cli

# Every test here runs the command line in a subprocess.
pytestmark = pytest.mark.slow


def test_summarize_json_has_the_gold_shape():
    result = run_cli("summarize", str(EXAMPLES / "lumen-2.0.md"), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    for key in ("title", "author", "language", "canonical_url"):
        assert key in summary
    assert isinstance(summary["summary_bullets"], list)
    assert all(set(f) == {"heading", "stability", "section"} for f in summary["features"])


def test_summarize_explain_gives_every_heading_its_role_and_rule(tmp_path: Path):
    post = tmp_path / "post.md"
    post.write_text("# Lumen 3.0\n\n## Runtime\n\n### (Beta) Faster sync\n\nText.\n\n```sh\n# a comment\n```\n\n"
                    "### Example usage:\n\nText.\n\n## Thanks\n\nText.\n", encoding="utf-8")
    result = run_cli("summarize", str(post), "--explain")
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        "title", "section", "feature", "code", "skipped", "skipped"]
    lines = result.stdout.splitlines()
    assert "Faster sync" in lines[2] and "maturity label" in lines[2]
    assert "Example usage:" in lines[4] and "aside" in lines[4]
    assert "Thanks" in lines[5] and "closing" in lines[5]


def test_build_runs_on_a_config_and_reports_in_one_line(tmp_path: Path, config):
    result = run_cli("--config", str(config.path), "build")
    assert result.returncode == 0, result.stderr
    assert "3 posts seen, 3 summarized, new digest" in result.stderr
    assert (config.archive_dir / "posts.atom").exists()


def test_a_bad_config_exits_non_zero_with_one_clear_line(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text('[[sources]]\nname = "x"\nkind = "mail"\n', encoding="utf-8")
    result = run_cli("--config", str(path), "build")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        f"error: {path}: sources[0].kind: must be one of folder, page, feed (got 'mail')")


def test_an_unwritable_archive_exits_non_zero(tmp_path: Path, config):
    blocker = tmp_path / "archive"
    blocker.write_text("a file where the archive folder should be", encoding="utf-8")
    result = run_cli("--config", str(config.path), "build")
    assert result.returncode == 1
    assert "cannot write" in result.stderr and "Traceback" not in result.stderr


def test_sources_lists_each_source_with_its_last_success_error_and_posts(tmp_path: Path, posts_dir: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        down = f"http://127.0.0.1:{probe.getsockname()[1]}/news"
    path = tmp_path / "config.toml"
    path.write_text(f"""
[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"

[[sources]]
name = "down"
kind = "page"
url = "{down}"

[http]
retries = 0
""", encoding="utf-8")
    before = run_cli("--config", str(path), "sources")
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines()[1:] == [
        f"posts\tfolder\t{posts_dir.resolve()}\t-\t-\t-\t0", f"down\tpage\t{down}\t-\t-\t-\t0"]
    assert not (tmp_path / "state.sqlite").exists()

    build = run_cli("--config", str(path), "build")
    assert build.returncode == 0, build.stderr
    assert f"source 'down': {down}: cannot connect: Connection refused" in build.stderr

    result = run_cli("--config", str(path), "sources")
    header, posts, failing = (line.split("\t") for line in result.stdout.splitlines())
    assert header == ["source", "kind", "location", "last success", "last error at", "last error", "posts"]
    assert posts[:3] == ["posts", "folder", str(posts_dir.resolve())]
    assert posts[3].endswith(" UTC") and posts[4:] == ["-", "-", "3"]
    assert failing[:4] == ["down", "page", down, "-"]
    assert failing[4].endswith(" UTC") and failing[5:] == [f"{down}: cannot connect: Connection refused", "0"]
