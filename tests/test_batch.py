"""Posts summarized on every core: the same summaries, in the same order, as one by one."""

from __future__ import annotations

import filecmp
import signal
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import NOW, start_cli, write_config

from newsletter import archive, pipeline
from newsletter import config as config_module
from newsletter.summarize import batch, summary
from newsletter.summarize.batch import PostText, Summarizer, summarize_post
from newsletter.text import parse as text_parse


def numbered_post(number: int) -> str:
    return (f"---\ntitle: Orrery {number}.0\n---\n\nOrrery {number}.0 is out, with [notes](https://orrery.example/{number}).\n\n"
            f"## (Beta) Star map {number}\n\nThe star map draws {number} constellations.\n\n"
            f"## Faster orbits {number}\n\nOrbits run {number} times faster.\n")


def test_a_pool_gives_the_summaries_of_one_process_in_the_batch_order():
    posts = [PostText(numbered_post(n), None, None) for n in range(batch.MIN_POOL_BATCH + 6)]
    with Summarizer(workers=2) as pooled:
        in_pool = pooled.summarize(posts)
        assert pooled._pool is not None  # the batch was big enough to start workers
    with Summarizer(workers=1) as single:
        one_by_one = single.summarize(posts)
        assert single._pool is None
    assert in_pool == one_by_one
    assert [s.summary.title for s in in_pool if s.summary] == [f"Orrery {n}.0" for n in range(len(posts))]


def test_workers_are_replaced_once_they_have_summarized_their_share(monkeypatch):
    """cmarkgfm keeps every document it parses: a worker summarizing thousands of posts grew
    by about 120 KB a post. Fresh workers take over after POOL_POSTS, with the same results."""
    monkeypatch.setattr(batch, "POOL_POSTS", batch.MIN_POOL_BATCH)
    posts = [PostText(numbered_post(n), None, None) for n in range(batch.MIN_POOL_BATCH)]
    with Summarizer(workers=2) as pooled:
        first = pooled.summarize(posts)
        pool = pooled._pool
        second = pooled.summarize(posts)
        assert pool is not None and pooled._pool is not None and pooled._pool is not pool
    assert first == second == [summarize_post(post) for post in posts]


def test_a_small_batch_is_summarized_without_starting_workers():
    with Summarizer(workers=2) as summarizer:
        results = summarizer.summarize([PostText(numbered_post(1), None, None)])
        assert summarizer._pool is None
    assert results[0].summary is not None and [f.heading for f in results[0].summary.features] == [
        "Star map 1", "Faster orbits 1"]


def test_a_post_that_cannot_be_summarized_is_an_error_of_its_own(monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("parser gave up")
    monkeypatch.setattr(summary, "summarize_document", broken)
    result = summarize_post(PostText(numbered_post(1), None, None))
    assert result.summary is None and result.error == "cannot summarize: parser gave up"


def test_a_post_over_the_time_budget_is_skipped_and_the_next_summarized(monkeypatch):
    """A post the summarizer would spend minutes on (a shape it is slow on) is skipped with a
    reason once its budget is spent; the post after it is summarized as usual."""
    summarize_document = summary.summarize_document

    def slow_on_one(document, url=None):
        if url == "https://blog.example/slow":
            start = time.monotonic()
            while time.monotonic() - start < 30:  # far past the budget, yet bounded
                pass
        return summarize_document(document, url=url)

    monkeypatch.setattr(summary, "summarize_document", slow_on_one)
    monkeypatch.setattr(batch, "POST_BUDGET", 0.2)
    slow, fine = Summarizer(workers=1).summarize([
        PostText(numbered_post(1), None, "https://blog.example/slow"), PostText(numbered_post(2), None, None)])
    assert slow.summary is None and slow.error == "not summarized within 0.2 s, skipped"
    assert fine.summary is not None and fine.error is None


@pytest.mark.slow
def test_a_post_summarized_outside_the_main_thread_keeps_its_time_budget(monkeypatch):
    """A scheduled job summarizes in the service's job thread, which no timer signal reaches:
    even a batch of two goes to worker processes there, each post under its budget. The
    slow post is real: 20 MB of Markdown, about half a minute of work."""
    monkeypatch.setattr(batch, "POST_BUDGET", 2)
    long_post = PostText(numbered_post(1) + "\n\n- an item with [a link](https://orrery.example/x)\n" * 400_000, None, None)
    results: list[batch.SummarizedPost] = []

    def job() -> None:
        with Summarizer(workers=1) as summarizer:
            results.extend(summarizer.summarize([long_post, PostText(numbered_post(2), None, None)]))

    thread = threading.Thread(target=job)
    thread.start()
    thread.join()
    slow, fine = results
    assert slow.summary is None and slow.over_budget and slow.error == "not summarized within 2 s, skipped"
    assert fine.summary is not None and fine.summary.title == "Orrery 2.0"


def posts_config(folder: Path, posts: Path) -> Path:
    """A config in `folder` for one folder source, `posts`."""
    return write_config(folder, f"""
[site]
title = "Orrery digest"
url = "https://digest.example.org/"

[[sources]]
name = "posts"
kind = "folder"
path = "{posts}"
""")


def build_archive(tmp_path: Path, posts: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    config = config_module.load(posts_config(folder, posts))
    pipeline.build(config, now=NOW)
    return config.archive_dir


@pytest.mark.slow
def test_a_build_on_every_core_writes_the_same_bytes_as_one_on_one(tmp_path: Path, monkeypatch):
    posts = tmp_path / "posts"
    posts.mkdir()
    for number in range(batch.MIN_POOL_BATCH * 2 + 5):
        (posts / f"orrery-{number:03d}.md").write_text(numbered_post(number), encoding="utf-8")
    monkeypatch.setattr(batch, "cores", lambda: 2)
    pooled = build_archive(tmp_path, posts, "pooled")
    monkeypatch.setattr(batch, "cores", lambda: 1)
    single = build_archive(tmp_path, posts, "single")
    compared = filecmp.dircmp(pooled, single)
    files = sorted(p.relative_to(pooled) for p in pooled.rglob("*") if p.is_file())
    assert len(files) > 5
    for relative in files:
        assert (pooled / relative).read_bytes() == (single / relative).read_bytes(), relative
    assert not compared.left_only and not compared.right_only


@pytest.mark.slow
def test_a_text_over_the_budget_is_skipped_until_it_changes(tmp_path: Path, monkeypatch):
    """A post over budget is reported once and not tried again on every build (each try
    would hold the build for the budget); once its file changes it is tried again."""
    parse = text_parse.parse
    tried: list[str] = []

    def slow_on_one(text, media_type, base_url=None):
        if "Comet" in text:
            tried.append(text)
            start = time.monotonic()
            while time.monotonic() - start < 30:  # far past the budget, yet bounded
                pass
        return parse(text, media_type, base_url=base_url)

    monkeypatch.setattr(text_parse, "parse", slow_on_one)
    monkeypatch.setattr(batch, "POST_BUDGET", 0.3)
    posts = tmp_path / "posts"
    posts.mkdir()
    (posts / "orrery.md").write_text(numbered_post(1), encoding="utf-8")
    (posts / "comet.md").write_text("# Comet 1.0\n\nComet is out.\n", encoding="utf-8")
    config = config_module.load(posts_config(tmp_path, posts))
    first = pipeline.build(config, now=NOW)
    assert first.problems == ("comet.md: not summarized within 0.3 s, skipped",) and first.posts_summarized == 1
    (posts / "orrery.md").write_text(numbered_post(2), encoding="utf-8")
    second = pipeline.build(config, now=NOW + timedelta(hours=1))
    assert (second.problems, second.posts_summarized, len(tried)) == ((), 1, 1)
    (posts / "comet.md").write_text("# Comet 1.1\n\nComet is out again.\n", encoding="utf-8")
    third = pipeline.build(config, now=NOW + timedelta(hours=2))
    assert third.problems == ("comet.md: not summarized within 0.3 s, skipped",) and len(tried) == 2


def children_of(pid: int) -> set[int]:
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_workers_of_a_killed_build_go_with_it(tmp_path: Path):
    posts = tmp_path / "posts"
    posts.mkdir()
    for number in range(400):
        (posts / f"orrery-{number:03d}.md").write_text(numbered_post(number) * 20, encoding="utf-8")
    build = start_cli("--config", str(posts_config(tmp_path, posts)), "build")
    deadline = time.monotonic() + 60
    while len(workers := children_of(build.pid)) < 2 and build.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(workers) >= 2, "the build started no workers"
    build.send_signal(signal.SIGKILL)
    build.communicate(timeout=30)  # returns only once every holder of its output pipes is gone
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)


def test_a_batch_spans_sources_so_many_small_feeds_fill_the_pool(tmp_path: Path, monkeypatch):
    sources = []
    for number in range(batch.MIN_POOL_BATCH + 2):
        folder = tmp_path / f"project-{number}"
        folder.mkdir()
        (folder / "release.md").write_text(numbered_post(number), encoding="utf-8")
        sources.append(f'[[sources]]\nname = "project-{number}"\nkind = "folder"\npath = "{folder}"\n')
    path = write_config(tmp_path, '[site]\ntitle = "Orrery digest"\nurl = "https://digest.example.org/"\n\n'
                        + "\n".join(sources))
    sizes: list[int] = []
    summarize = Summarizer.summarize
    monkeypatch.setattr(Summarizer, "summarize", lambda self, posts: sizes.append(len(posts)) or summarize(self, posts))
    report = pipeline.build(config_module.load(path), now=NOW)
    assert report.posts_summarized == len(sources) and not report.problems
    assert sizes == [len(sources)]  # one batch across every source, big enough for the pool


def test_a_worker_whose_build_died_before_it_started_watching_exits():
    # The build handed its pid to the worker before forking it; by the time the worker looks,
    # its parent is someone else (here: a process that ended long ago), so it leaves at once
    # instead of waiting forever with the build's pipes open.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    worker = subprocess.run(
        [sys.executable, "-c", "import time; from newsletter.processes import exit_with_parent;"
         f" exit_with_parent({int(gone.stdout)}); time.sleep(60)"], capture_output=True, text=True, timeout=30)
    assert (worker.returncode, worker.stderr) == (1, "")


def test_an_early_worker_gives_the_summaries_of_this_process(early_worker):
    """The command line's build forks its worker before it loads the pipeline: the worker
    loads the summarizer meanwhile, and the build's few new posts are summarized there."""
    posts = [PostText(numbered_post(n), None, None) for n in range(3)]
    early = early_worker([batch.load_summarizer])
    with Summarizer(workers=2, early=early) as summarizer:
        assert summarizer.summarize(posts) == [summarize_post(post) for post in posts]
        assert summarizer._pool is None and not early.lost
    assert early.process.is_alive()  # its owner stops it, not the summarizer


def test_a_lost_early_worker_leaves_its_batches_to_this_process(early_worker):
    early = early_worker([batch.load_summarizer])
    early.process.kill()
    early.process.join()
    with Summarizer(workers=2, early=early) as summarizer:
        results = summarizer.summarize([PostText(numbered_post(4), None, None)])
    assert early.lost
    assert results == [summarize_post(PostText(numbered_post(4), None, None))]


def test_a_build_stops_its_pool_before_publishing_and_keeps_the_early_worker(tmp_path: Path, monkeypatch,
                                                                                early_worker):
    """The pool's workers would hold their memory through publishing, and its thread would
    keep the post pages' renderers from forking; the early worker renders the few pages."""
    posts = tmp_path / "posts"
    posts.mkdir()
    for number in range(batch.MIN_POOL_BATCH + 1):
        (posts / f"orrery-{number:03d}.md").write_text(numbered_post(number), encoding="utf-8")
    write_archive = archive.write
    threads = threading.active_count()
    seen_while_publishing = []

    def write(*args, **kwargs):
        seen_while_publishing.append((threading.active_count() - threads, early.process.is_alive()))
        return write_archive(*args, **kwargs)

    monkeypatch.setattr(archive, "write", write)
    early = early_worker([batch.load_summarizer])
    report = pipeline.build(config_module.load(posts_config(tmp_path, posts)), now=NOW, early=early)
    assert report.posts_summarized == batch.MIN_POOL_BATCH + 1
    assert seen_while_publishing == [(0, True)]
