"""features.html once it lists many projects: their initials, each linking a page of its
projects' rows beside it (publish/feature_pages.py), so that a build of one new post writes
the page of its project's initial, not the rows of every project."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from test_history import built_folder as built_once

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.errors import PublishError
from newsletter.publish import feature_pages
from newsletter.state import feature_projects
from newsletter.state.store import Store

_ROW = re.compile(r'<tr><th class="project" scope="row"><a href="([^"]+)">([^<]+)</a>')


def release_post(project: str) -> str:
    return f"""---
title: "{project} 1.0"
date: 2025-06-01
---

{project} 1.0 brings one feature.

## (Beta) Quiet Mode

Fewer messages.
"""


def posts_of(folder: Path, *projects: str) -> Path:
    folder.mkdir(exist_ok=True)
    for project in projects:
        (folder / f"{project.casefold()}-1.0.md").write_text(release_post(project), encoding="utf-8")
    return folder


def rows(page: Path) -> list[str]:
    return [name for _, name in _ROW.findall(page.read_text(encoding="utf-8"))]


def initial_pages(archive: Path) -> dict[str, list[str]]:
    return {path.name: rows(path) for path in sorted(archive.glob("features-*.html"))}


def built_folder(folder: Path, state: config_module.StateLocation, posts: list[Path]) -> config_module.Config:
    """A folder source of a copy of these posts (in folder/posts), built once."""
    folder.mkdir()
    return built_once(folder, state, posts)


def rebuilt(config: config_module.Config, hours: int) -> None:
    pipeline.build(config_module.load(config.path), now=NOW + timedelta(hours=hours))


@contextmanager
def failing_to_write(name: str, monkeypatch) -> Iterator[None]:
    """Writing the feature file `name` fails for the duration, as on a full disk."""
    write_atomic = feature_pages.write_atomic

    def failing(path: Path, data: bytes | str) -> None:
        if path.name == name:
            raise PublishError(f"{path}: cannot write: disk full")
        write_atomic(path, data)

    monkeypatch.setattr(feature_pages, "write_atomic", failing)
    try:
        yield
    finally:
        monkeypatch.setattr(feature_pages, "write_atomic", write_atomic)


@pytest.fixture
def paged_from_three(monkeypatch) -> None:
    monkeypatch.setattr(feature_pages, "PAGE_PROJECTS", 3)


@BOTH_BACKENDS
def test_many_projects_are_listed_by_initial_each_page_with_the_rows_one_page_of_all_shows(
        state, tmp_path, monkeypatch, paged_from_three):
    posts = posts_of(tmp_path / "posts", "Birch", "Alder", "Élan", "Aspen", "7zip")
    archive = built_folder(tmp_path / "paged", state, [posts]).archive_dir
    index = (archive / "features.html").read_text(encoding="utf-8")
    assert rows(archive / "features.html") == []
    assert re.findall(r'<li><a href="(features-[^"]+)">([^<]+)</a> \((\d+)\)</li>', index) == [
        ("features-a.html", "A", "2"), ("features-b.html", "B", "1"), ("features-other.html", "Other", "2")]
    assert initial_pages(archive) == {
        "features-a.html": ["Alder", "Aspen"], "features-b.html": ["Birch"], "features-other.html": ["7zip", "Élan"]}
    page_b = (archive / "features-b.html").read_text(encoding="utf-8")
    assert '<a href="features-b.html" aria-current="page">B</a>' in page_b
    assert "<title>Histories: features across releases, B</title>" in page_b
    # Each initial's rows, links to the projects' pages and all, are those one page of all shows.
    monkeypatch.setattr(feature_pages, "PAGE_PROJECTS", 5)
    one_page = built_folder(tmp_path / "one", config_module.StateLocation(path=tmp_path / "one.sqlite"), [posts])
    every_row = row_lines(one_page.archive_dir / "features.html")
    assert len(every_row) == 5 and not list(one_page.archive_dir.glob("features-*.html"))
    for page, names in initial_pages(archive).items():
        assert row_lines(archive / page) == [line for line in every_row if any(f">{name}</a>" in line for name in names)]


def row_lines(page: Path) -> list[str]:
    return [line for line in page.read_text(encoding="utf-8").splitlines() if _ROW.match(line)]


@BOTH_BACKENDS
def test_a_new_project_reads_and_writes_its_initials_page_and_the_index_and_no_other(
        state, tmp_path, monkeypatch, paged_from_three):
    posts = posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")
    config = built_folder(tmp_path / "built", state, [posts])
    archive, posts = config.archive_dir, config.path.parent / "posts"
    times = {path.name: path.stat().st_mtime_ns for path in archive.glob("features*.html")}
    rows_read: list[str | None] = []
    rows_html = feature_projects.rows_html

    def reading(store, initial=None):
        rows_read.append(initial)
        return rows_html(store, initial)

    monkeypatch.setattr(feature_projects, "rows_html", reading)
    posts_of(posts, "Aspen")
    rebuilt(config, 1)
    assert rows_read == ["a"]
    changed = {path.name for path in archive.glob("features*.html") if path.stat().st_mtime_ns != times.get(path.name)}
    assert changed == {"features.html", "features-a.html"}
    assert rows(archive / "features-a.html") == ["Alder", "Aspen"]
    # A new initial changes the list every page shows: each is written again.
    posts_of(posts, "Elm")
    rebuilt(config, 2)
    assert set(initial_pages(archive)) == {f"features-{initial}.html" for initial in "abcde"}
    assert all('href="features-e.html"' in (archive / page).read_text("utf-8") for page in initial_pages(archive))


@BOTH_BACKENDS
def test_back_under_the_limit_one_page_lists_every_project_and_the_initials_pages_go(
        state, tmp_path, paged_from_three):
    posts = posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")
    config = built_folder(tmp_path / "built", state, [posts])
    # A filter that leaves a project's one post out: the project goes.
    config.path.write_text(config.path.read_text(encoding="utf-8") + 'exclude = "Dogwood"\n', encoding="utf-8")
    rebuilt(config, 1)
    assert initial_pages(config.archive_dir) == {}
    assert rows(config.archive_dir / "features.html") == ["Alder", "Birch", "Cedar"]


@BOTH_BACKENDS
def test_an_initials_page_deleted_by_hand_is_written_again_by_the_next_build(state, tmp_path, paged_from_three):
    config = built_folder(tmp_path / "built", state, [posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")])
    page = config.archive_dir / "features-c.html"
    written = page.read_bytes()
    page.unlink()
    rebuilt(config, 1)
    assert page.read_bytes() == written


@BOTH_BACKENDS
def test_a_build_stopped_while_writing_the_initials_pages_leaves_the_next_to_write_them(
        state, tmp_path, monkeypatch, paged_from_three):
    posts = posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")
    config = built_folder(tmp_path / "built", state, [posts])
    posts_of(config.path.parent / "posts", "Aspen")
    with failing_to_write("features-a.html", monkeypatch), pytest.raises(PublishError):
        rebuilt(config, 1)
    # The project's own page and record were written before the failure: only the page of
    # its initial still lacks it.
    assert rows(config.archive_dir / "features-a.html") == ["Alder"]
    rebuilt(config, 2)
    assert rows(config.archive_dir / "features-a.html") == ["Alder", "Aspen"]


def test_a_build_with_nothing_new_still_writes_the_pages_of_initials_left_waiting(tmp_path, paged_from_three):
    config = built_folder(tmp_path / "built", config_module.StateLocation(path=tmp_path / "state.sqlite"),
                          [posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")])
    page = config.archive_dir / "features-b.html"
    # As a build stopped after its projects' records and before their initials' pages
    # leaves it: B waiting, its page recorded as it was before.
    with Store.open(config.state) as store:
        written = feature_pages._InitialsWritten.read(store)
        feature_pages._InitialsWritten(written.settings, written.initials, ["b"]).keep(store)
        store.record_page(page.name, "the page before")
    page.write_text("the page before", encoding="utf-8")
    rebuilt(config, 1)
    assert rows(page) == ["Birch"]
    with Store.open(config.state) as store:
        assert feature_pages._InitialsWritten.read(store).waiting == []


@BOTH_BACKENDS
def test_a_build_that_takes_the_projects_past_the_limit_writes_every_initials_page(
        state, tmp_path, monkeypatch, paged_from_three):
    config = built_folder(tmp_path / "built", state, [posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar")])
    assert initial_pages(config.archive_dir) == {}
    assert rows(config.archive_dir / "features.html") == ["Alder", "Birch", "Cedar"]
    posts_of(config.path.parent / "posts", "Aspen")
    # Stopped at an initial's page, the build leaves features.html as it was: it never links
    # a page not written yet.
    with failing_to_write("features-c.html", monkeypatch), pytest.raises(PublishError):
        rebuilt(config, 1)
    assert rows(config.archive_dir / "features.html") == ["Alder", "Birch", "Cedar"]
    rebuilt(config, 2)
    assert initial_pages(config.archive_dir) == {
        "features-a.html": ["Alder", "Aspen"], "features-b.html": ["Birch"], "features-c.html": ["Cedar"]}
    assert rows(config.archive_dir / "features.html") == []


@BOTH_BACKENDS
def test_a_new_site_title_is_written_into_every_initials_page(state, tmp_path, paged_from_three):
    config = built_folder(tmp_path / "built", state, [posts_of(tmp_path / "posts", "Alder", "Birch", "Cedar", "Dogwood")])
    config.path.write_text(config.path.read_text(encoding="utf-8").replace('title = "Histories"', 'title = "Changes"'),
                           encoding="utf-8")
    rebuilt(config, 1)
    titles = {page: re.search(r"<title>([^<]*)</title>", (config.archive_dir / page).read_text("utf-8"))[1]
              for page in initial_pages(config.archive_dir)}
    assert titles == {f"features-{i}.html": f"Changes: features across releases, {i.upper()}" for i in "abcd"}


@BOTH_BACKENDS
def test_the_initial_a_project_is_listed_under_is_the_one_the_database_counts_and_reads_it_under(state):
    # Casefolded names as the records keep them: edges of a to z, other scripts, none.
    names = ["", "a", "az", "z", "zzz", "{x", "~t", "_u", "0x", "ff", "é", "ä", "ß", "ω", "漢"]
    with Store.open(state) as store:
        feature_projects.record(store, {name: feature_projects.WrittenProject("f", {}, [], f"<tr>{name}</tr>")
                                        for name in names})
        expected: dict[str, list[str]] = {}
        for name in sorted(names):
            expected.setdefault(feature_projects.initial_of(name), []).append(name)
        assert feature_projects.initials(store) == {initial: len(listed) for initial, listed in sorted(
            expected.items(), key=lambda item: (item[0] == feature_projects.OTHER_INITIAL, item[0]))}
        for initial, listed in expected.items():
            assert list(feature_projects.rows_html(store, initial)) == listed, initial
