"""Faults around a build: killed at any point, run twice at once, a full disk, a read-only
archive. The previous outputs stay whole, the state database stays sound, and the next
build finishes the work without doubling a digest."""

from __future__ import annotations

import contextlib
import os
import random
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import run_cli, start_cli
from helpers.archive import assert_archive_complete, digest_names

from newsletter.state import lock

# Every test here runs builds in subprocesses, kills them, or fills and remounts a disk.
pytestmark = pytest.mark.slow

BATCH = 150  # posts added before each killed build: with the examples, about a second of work


def newsletter(config_path: Path, *args: str) -> subprocess.Popen:
    return start_cli("--config", str(config_path), *args)


def run_build(config_path: Path) -> subprocess.CompletedProcess:
    return run_cli("--config", str(config_path), "build", timeout=300)


def add_posts(folder: Path, batch: int, count: int = BATCH) -> None:
    """`count` release posts, each about a project of its own, so that none is taken for
    another form of an earlier post (which a digest may carry again, by design)."""
    rng = random.Random(batch)
    for n in range(count):
        project = "".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiou") for _ in range(4)).title()
        words = ["".join(rng.choice("bcdfghjklmnpqrstvwxzaeiou") for _ in range(rng.randint(4, 9)))
                 for _ in range(60)]
        features = "".join(
            f"### ({rng.choice(['Beta', 'Stable', 'Prototype'])}) {words[i].title()} {words[i + 1]}\n\n"
            f"{' '.join(rng.sample(words, 25)).capitalize()}.\n\n"
            for i in range(0, 20, 2))
        (folder / f"batch{batch}-{n}.md").write_text(
            f"# {project} {batch}.{n} released\n\nSummary:\n- {words[40]} {words[41]}\n- {words[42]} {words[43]}\n\n"
            f"## {words[50].title()}\n\n{features}", encoding="utf-8")


def state_rows(state: Path, query: str) -> list[tuple]:
    db = sqlite3.connect(f"file:{state}?mode=ro", uri=True, timeout=30)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def assert_state_sound(state: Path) -> None:
    assert state_rows(state, "PRAGMA integrity_check") == [("ok",)]
    assert state_rows(state, "PRAGMA foreign_key_check") == []
    doubled = state_rows(state, "SELECT post_id FROM digest_posts GROUP BY post_id HAVING count(*) > 1")
    assert doubled == [], "a post was carried by two digests"


def assert_all_work_done(state: Path, archive: Path, post_count: int) -> None:
    assert_state_sound(state)
    assert state_rows(state, "SELECT count(*) FROM posts") == [(post_count,)]
    assert state_rows(state, "SELECT count(DISTINCT post_id) FROM digest_posts") == [(post_count,)]
    assert sorted(n for (n,) in state_rows(state, "SELECT name FROM digests")) == digest_names(archive)
    assert_archive_complete(archive)
    assert not list(archive.rglob("*.tmp")), "a killed build's temporary files were left behind"


def snapshot(archive: Path) -> dict[str, bytes]:
    return {str(p.relative_to(archive)): p.read_bytes() for p in sorted(archive.rglob("*")) if p.is_file()}


# -- killed at any point ------------------------------------------------------------------------

def _new_rows(state: Path, table: str, before: int) -> Callable[[], bool]:
    def fired() -> bool:
        try:
            return state_rows(state, f"SELECT count(*) FROM {table}")[0][0] > before
        except sqlite3.OperationalError:
            return False
    return fired


def _kill_points(config) -> Iterator[tuple[str, Callable[[], bool]]]:
    """Moments to kill a build at, each watched from outside while the build runs."""
    state, archive = config.state.path, config.archive_dir
    started = time.monotonic()
    yield "while starting up", lambda: time.monotonic() - started > 0.15
    posts = state_rows(state, "SELECT count(*) FROM posts")[0][0]
    yield "while summarizing", _new_rows(state, "posts", posts + BATCH // 3)
    digests = state_rows(state, "SELECT count(*) FROM digests")[0][0]
    yield "right after a digest is recorded (its files wait under temporary names)", _new_rows(state, "digests", digests)
    names = set(digest_names(archive))
    yield "with a digest written but the feeds not", lambda: set(digest_names(archive)) > names
    feed = (archive / "posts.atom").stat().st_mtime_ns
    yield "with posts.atom written but digests.atom not", \
        lambda: (archive / "posts.atom").stat().st_mtime_ns != feed


def test_a_build_killed_at_any_point_loses_and_doubles_nothing(config, posts_dir):
    assert run_build(config.path).returncode == 0
    posts = len(list(posts_dir.iterdir()))
    killed = []
    for batch, (moment, reached) in enumerate(_kill_points(config)):
        before = snapshot(config.archive_dir)
        add_posts(posts_dir, batch)
        posts += BATCH
        process = newsletter(config.path, "build")
        while process.poll() is None and not reached():
            time.sleep(0.002)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=300)
        if process.returncode == -signal.SIGKILL:
            killed.append(moment)
        assert_state_sound(config.state.path)
        assert_archive_complete(config.archive_dir, settled=False)
        after = snapshot(config.archive_dir)
        for name, data in before.items():
            # A killed build's temporaries (a new digest's files wait under such names until
            # it is recorded) go with the next build; only published files must stay.
            if name.startswith("digests/") and not name.endswith(".tmp"):
                assert after[name] == data, f"{name} changed after it was written"
    assert killed, "no build was killed before it ended"
    result = run_build(config.path)
    assert result.returncode == 0, result.stderr
    assert_all_work_done(config.state.path, config.archive_dir, posts)


# -- two at once -----------------------------------------------------------------------------------

def test_a_build_while_another_holds_the_state_exits_with_a_clear_message(config):
    with lock.exclusive(config.state.path.with_name(config.state.path.name + ".lock")):
        result = run_build(config.path)
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: ") and "another newsletter run is using this state" in line
    assert not config.archive_dir.exists()


def test_two_builds_started_at_once_double_nothing(config, posts_dir):
    add_posts(posts_dir, 0)
    first, second = newsletter(config.path, "build"), newsletter(config.path, "build")
    outcomes = [(p.wait(timeout=300), p.communicate()[1]) for p in (first, second)]
    for status, stderr in outcomes:
        assert status == 0 or (status == 1 and "another newsletter run is using this state" in stderr), stderr
    assert 0 in [status for status, _ in outcomes]
    assert state_rows(config.state.path, "SELECT count(*) FROM digests") == [(1,)]
    assert_all_work_done(config.state.path, config.archive_dir, 3 + BATCH)


# -- a full disk, a read-only archive ----------------------------------------------------------

@contextlib.contextmanager
def mounted(target: Path, *options: str) -> Iterator[Path]:
    """`mount` at `target` for the duration, or skip the test where mounting is not allowed."""
    target.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(["mount", *options, target], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount here ({result.stderr.strip() or 'not permitted'})")
    try:
        yield target
    finally:
        subprocess.run(["umount", target], check=True)


def fill(folder: Path) -> None:
    # Unbuffered: a buffer holding the last partial write would fail again on closing.
    with open(folder / "filler", "wb", buffering=0) as filler:
        with contextlib.suppress(OSError):
            while True:
                filler.write(b"\0" * 65536)
                filler.flush()
                os.fsync(filler.fileno())


def config_at(tmp_path: Path, archive: Path, state: Path) -> Path:
    path = tmp_path / "disk.toml"
    path.write_text(f"""
[[sources]]
name = "posts"
kind = "folder"
path = "posts"

[archive]
dir = "{archive}"

[state]
path = "{state}"
""", encoding="utf-8")
    return path


def assert_fails_in_one_line(config_path: Path, *expected: str) -> str:
    result = run_build(config_path)
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()[-1:]
    assert line.startswith("error: ") and "Traceback" not in result.stderr, result.stderr
    assert any(e in line.lower() for e in expected), line
    return line


@pytest.mark.parametrize("full", ["archive", "archive and state"])
def test_a_full_disk_is_a_clear_error_and_loses_nothing(tmp_path, posts_dir, full):
    # Room for the archive and state of 33 posts and a build's journal once the filler goes
    # (2m held them until posts.json came beside posts.atom); the filler takes the rest first.
    with mounted(tmp_path / "disk", "-t", "tmpfs", "-o", "size=3m", "tmpfs") as disk:
        state = disk / "state.sqlite" if full == "archive and state" else tmp_path / "state.sqlite"
        config_path = config_at(tmp_path, disk / "archive", state)
        assert run_build(config_path).returncode == 0
        before = snapshot(disk / "archive")
        add_posts(posts_dir, 1, count=30)
        fill(disk)
        line = assert_fails_in_one_line(config_path, "no space left on", "disk is full")
        assert str(disk) in line
        assert snapshot(disk / "archive") == before

        (disk / "filler").unlink()
        assert_state_sound(state)
        # A digest is recorded only with its files: none is left for a later send to mail.
        assert state_rows(state, "SELECT count(*) FROM digests") == [(1,)]
        result = run_build(config_path)
        assert result.returncode == 0, result.stderr
        assert "new digest" in result.stderr
        assert_all_work_done(state, disk / "archive", 3 + 30)


@pytest.mark.parametrize("read_only", ["archive", "state folder"])
def test_a_read_only_archive_or_state_is_a_clear_error(tmp_path, posts_dir, read_only):
    archive, state_dir = tmp_path / "archive", tmp_path / "state"
    config_path = config_at(tmp_path, archive, state_dir / "state.sqlite")
    assert run_build(config_path).returncode == 0
    before = snapshot(archive)
    add_posts(posts_dir, 1, count=5)
    target = archive if read_only == "archive" else state_dir
    with mounted(target, "--bind", str(target)):
        subprocess.run(["mount", "-o", "remount,ro,bind", target], check=True)
        line = assert_fails_in_one_line(config_path, "read-only file system", "readonly database")
        assert str(target) in line
    assert snapshot(archive) == before
    assert state_rows(state_dir / "state.sqlite", "SELECT count(*) FROM digests") == [(1,)]
    result = run_build(config_path)
    assert result.returncode == 0, result.stderr
    assert_all_work_done(state_dir / "state.sqlite", archive, 3 + 5)


def test_a_state_file_that_is_not_a_database_is_a_clear_error(config):
    config.state.path.write_bytes(b"not a database, whatever it was\n" * 200)
    line = assert_fails_in_one_line(config.path, "not a database")
    assert str(config.state.path) in line
    assert not config.archive_dir.exists()
