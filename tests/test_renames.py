"""A post whose file is renamed stays the same entry, whether its text changes with the
rename, in a later build, or not at all: its id and its mailed state follow it, and an edit
shows as an update, never as news. The rule (newsletter/state/post_files.py): a file of a
folder that its last collection had and this one does not list, continued by a new file of
the same folder with the very same text, or else with its title, which no other such file
has. Anything else is two posts."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import feedparser
import pytest
from helpers import NOW, SITE_TABLE, write_config
from helpers.postgres import BOTH_BACKENDS, state_table

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.state import post_files
from newsletter.state.store import Store


def post(title: str, sentence: str) -> str:
    return f"# {title}\n\n{sentence}\n\n## Highlights\n\n- {sentence}\n"


KITE = post("Kite 1.0", "Kite flies in any wind.")
KITE_EDITED = post("Kite 1.0", "Kite flies in any wind, and lands softly.")


def folder_build(
    tmp_path: Path, state: config_module.StateLocation, files: dict[str, str],
) -> tuple[config_module.Config, Path]:
    """A folder source holding `files`, built once on `state`: the first digest carries them all."""
    posts = tmp_path / "posts"
    posts.mkdir()
    for name, text in files.items():
        (posts / name).write_text(text, encoding="utf-8")
    config = config_module.load(write_config(tmp_path, f'{SITE_TABLE}\n[[sources]]\nname = "posts"\nkind = "folder"\n'
                                                       f'path = "{posts}"\n{state_table(state)}'))
    assert pipeline.build(config, now=NOW).new_digest is not None
    return config, posts


def entries(config: config_module.Config) -> dict[str, feedparser.FeedParserDict]:
    return {entry.title: entry for entry in feedparser.parse(config.archive_dir / "posts.atom").entries}


@pytest.mark.parametrize("steps", ["rename, then edit", "rename and edit at once"])
@BOTH_BACKENDS
def test_a_renamed_post_then_edited_stays_its_entry_and_is_not_mailed_again(state, tmp_path: Path, steps: str):
    config, posts = folder_build(tmp_path, state, {"kite.md": KITE, "orrery.md": post("Orrery 2.0", "Orbits run faster.")})
    before = entries(config)["Kite 1.0"]
    (posts / "kite.md").rename(posts / "kite-1.0.md")
    if steps == "rename, then edit":
        assert pipeline.build(config, now=NOW + timedelta(days=1)).new_digest is None
    (posts / "kite-1.0.md").write_text(KITE_EDITED, encoding="utf-8")
    report = pipeline.build(config, now=NOW + timedelta(days=2))
    assert report.new_digest is None and not report.problems
    after = entries(config)
    assert len(after) == 2
    kite = after["Kite 1.0"]
    assert kite.id == before.id and kite.updated != before.updated
    assert "lands softly" in kite.summary
    with Store.open(config.state) as store:
        assert [post.location for post in store.posts()] == ["kite-1.0.md", "orrery.md"]


@BOTH_BACKENDS
def test_a_renamed_post_keeps_its_row_and_its_page_follows_the_file(state, tmp_path: Path):
    config, posts = folder_build(tmp_path, state, {"kite.md": KITE})
    before = entries(config)["Kite 1.0"]
    (posts / "2026").mkdir()
    (posts / "kite.md").rename(posts / "2026" / "kite.md")
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    assert report.new_digest is None
    with Store.open(config.state) as store:
        assert [post.location for post in store.posts()] == ["2026/kite.md"]
    # The entry (the same one) links to the post's page in the archive, made for the new name.
    after = entries(config)["Kite 1.0"]
    assert after.id == before.id and after.link != before.link
    page = config.archive_dir / after.link.removeprefix("https://digest.example.org/")
    assert "Kite flies in any wind." in page.read_text(encoding="utf-8")


@BOTH_BACKENDS
def test_posts_that_merely_follow_one_another_stay_two(state, tmp_path: Path):
    """A post deleted while another is added, a title several gone files had, and a file
    deleted in an earlier build: none is a rename. Each new post is news."""
    notes = [post("Release notes", "Gears turn."), post("Release notes", "Springs coil.")]
    config, posts = folder_build(tmp_path, state, {"kite.md": KITE, "notes-1.md": notes[0], "notes-2.md": notes[1]})
    for name in ("kite.md", "notes-1.md", "notes-2.md"):
        (posts / name).unlink()
    (posts / "comet.md").write_text(post("Comet 1.0", "Comet is bright."), encoding="utf-8")
    (posts / "notes.md").write_text(post("Release notes", "Levers lift."), encoding="utf-8")
    first = pipeline.build(config, now=NOW + timedelta(days=1))
    (posts / "kite-again.md").write_text(KITE_EDITED, encoding="utf-8")
    second = pipeline.build(config, now=NOW + timedelta(days=2))
    assert first.new_digest is not None and second.new_digest is not None
    mailed = {name: (config.archive_dir / "digests" / f"{name}.txt").read_text(encoding="utf-8")
              for name in (first.new_digest, second.new_digest)}
    assert "Comet 1.0" in mailed[first.new_digest] and "Levers lift" in mailed[first.new_digest]
    assert "lands softly" in mailed[second.new_digest]
    with Store.open(config.state) as store:
        assert len(store.posts()) == 6


@BOTH_BACKENDS
def test_a_build_stopped_right_after_moving_a_renamed_post_is_finished_by_the_next(state, tmp_path: Path):
    config, posts = folder_build(tmp_path, state, {"kite.md": KITE})
    before = entries(config)["Kite 1.0"]
    (posts / "kite.md").rename(posts / "kite-1.0.md")
    # What the build's reading does first, committed on its own, before the build is killed.
    with Store.open(config.state) as store:
        (kept,) = store.posts()
        post_files.move_post(store, kept.id, "posts", "kite-1.0.md")
    assert pipeline.build(config, now=NOW + timedelta(days=1)).new_digest is None
    after = entries(config)["Kite 1.0"]
    assert after.id == before.id and after.link != before.link
