"""What the feature pages keep of each entry (state/feature_entries.py): brought up to date by
every build as posts come, change project, join another entry or go, so that a build reads
again only the entries that changed, and writes the same feature files as a fresh build of
the same posts."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from test_history import FINCH_1_0, WREN, built_folder

from newsletter import config as config_module
from newsletter import history, pipeline
from newsletter.models import CacheValidators, SourceResult
from newsletter.publish import feature_pages
from newsletter.publish.feature_pages import FeatureHistories
from newsletter.state import feature_entries, post_files
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store


def feature_files(config: config_module.Config) -> dict[str, bytes]:
    archive = config.archive_dir
    files = [archive / "features.html", archive / "features.atom", *(archive / "features").iterdir()]
    return {path.relative_to(archive).as_posix(): path.read_bytes() for path in files}


def feature_file_times(config: config_module.Config) -> dict[str, int]:
    return {path: (config.archive_dir / path).stat().st_mtime_ns for path in feature_files(config)}


def check_recorded(config: config_module.Config) -> list[tuple[str | None, str | None]]:
    """Assert that the log of touched entries is empty and that every entry's record matches
    the entry as it is now; the records' projects and titles."""
    with Store.open(config.state) as store:
        assert feature_entries.touched(store) == set()
        every = feature_entries.changed(store, None)
        assert feature_entries.changed(store, [entry.release.key for entry in every]) == []
        recorded = [key for (key,) in store.db.execute("SELECT entry FROM feature_entries")]
        assert feature_entries.gone(store, recorded) == {}
        rows = store.db.execute("SELECT project, source, title FROM feature_entries ORDER BY entry").fetchall()
    assert len(rows) == len(every)
    for (project, source, title), entry in zip(rows, every, strict=True):
        named = history.project_named(source, title, config.source_projects).casefold()
        assert project == (named if entry.names_features else None)
    return [(project, title) for project, _, title in rows]


def counting_reads(monkeypatch) -> list[int]:
    """How many entries each call of feature_entries.changed reads, as the calls come."""
    read: list[int] = []
    changed = feature_entries.changed

    def counting(store, keys):
        entries = changed(store, keys)
        read.append(len(entries))
        return entries

    monkeypatch.setattr(feature_entries, "changed", counting)
    return read


@BOTH_BACKENDS
def test_the_records_follow_new_edited_regrouped_and_removed_posts_and_the_pages_match_a_fresh_build(
        state, tmp_path, monkeypatch):
    english = tmp_path / "later" / "wren-1.2.md"
    english.parent.mkdir()
    shutil.move(wren_copy(tmp_path) / "wren-1.2.md", english)
    config = built_folder(tmp_path / "built", state, [wren_copy(tmp_path)])
    posts = config.path.parent / "posts"
    check_recorded(config)
    read = counting_reads(monkeypatch)
    # Each change, and how many entries it has read again.
    steps = [
        # A new post.
        (lambda: (posts / "finch-1.0.md").write_text(FINCH_1_0, encoding="utf-8"), 1),
        # A post that moves from one project to another.
        (lambda: (posts / "wren-1.3.md").write_text(
            (posts / "wren-1.3.md").read_text(encoding="utf-8").replace("What's new in Wren 1.3", "Finch 1.1"),
            encoding="utf-8"), 1),
        # The original of a translation: the entry gains a form, which becomes its primary one.
        (lambda: shutil.copy2(english, posts / english.name), 1),
        # A post a filter leaves out: its entry goes.
        (lambda: config.path.write_text(config.path.read_text(encoding="utf-8") + 'exclude = "Finch 3.0"\n',
                                        encoding="utf-8"), 0),
    ]
    for hours, (step, entries_read) in enumerate(steps, start=1):
        read.clear()
        step()
        config = config_module.load(config.path)
        pipeline.build(config, now=NOW + timedelta(hours=hours))
        assert read == [entries_read], (hours, read)
        projects = check_recorded(config)
    assert ("finch", "Finch 1.1") in projects and ("wren", "Wren 1.2: a stable planner and Parquet export") in projects
    assert ("finch", "Finch 3.0 release notes") not in projects
    (posts / "finch-3.0.md").unlink()
    monkeypatch.undo()
    fresh = built_folder(tmp_path / "fresh", config_module.StateLocation(path=tmp_path / "fresh.sqlite"), [posts])
    assert feature_files(config) == feature_files(fresh)


@BOTH_BACKENDS
def test_every_write_that_can_move_an_entrys_stamp_logs_the_entry_and_no_other_does(state, tmp_path):
    config = built_folder(tmp_path / "built", state, [wren_copy(tmp_path)])
    later = NOW + timedelta(hours=1)
    with Store.open(config.state) as store:
        assert feature_entries.touched(store) == set()
        entry, post_id = store.db.execute("SELECT entry, post_id FROM entry_forms ORDER BY post_id").fetchone()
        (post,) = store.posts([post_id])
        result = SourceResult(post.source, validators={post.location: CacheValidators("9-9", None)})
        writes = {
            "saved again": (lambda: store.save_post(source=post.source, location=post.location, url=post.url,
                                                    content_hash="edited", summary=post.summary, now=later), True),
            "read again unchanged": (lambda: store.touch(post.source, [post.location], later), False),
            "its file's validators": (lambda: store.record_collection(result, later), True),
            "the same validators": (lambda: store.record_collection(result, later), False),
            "its file gone": (lambda: post_files.forget_gone_files(store, post.source, [post.location]), True),
            "its file renamed": (lambda: post_files.move_post(store, post_id, post.source, "renamed.md"), True),
            "its entry rewritten": (lambda: store.db.execute("UPDATE entries SET updated = updated WHERE id = ?",
                                                             (entry,)), True),
        }
        for name, (write, logs) in writes.items():
            with store.transaction() as db:
                db.execute("DELETE FROM touched_entries")
            write()
            assert feature_entries.touched(store) == ({entry} if logs else set()), name
    # The build reads the entry again, records it and empties the log.
    pipeline.build(config, now=later)
    check_recorded(config)


@BOTH_BACKENDS
def test_a_project_named_in_the_config_reads_every_entry_again_and_regroups_the_pages(state, tmp_path, monkeypatch):
    config = built_folder(tmp_path / "built", state, [wren_copy(tmp_path)])
    with config.path.open("a", encoding="utf-8") as file:
        file.write('project = "Birds"\n')
    config = config_module.load(config.path)
    read = counting_reads(monkeypatch)
    pipeline.build(config, now=NOW + timedelta(hours=1))
    assert read == [len(list(WREN.iterdir())) - 1]  # the translation is a form of its original's entry
    assert {project for project, _ in check_recorded(config)} == {"birds"}
    assert sorted(feature_files(config)) == ["features.atom", "features.html", "features/birds.html"]
    fresh = built_folder(tmp_path / "fresh", config_module.StateLocation(path=tmp_path / "fresh.sqlite"), [WREN],
                         project="Birds")
    assert feature_files(config) == feature_files(fresh)


def wren_copy(tmp_path: Path) -> Path:
    """The Wren posts, copied once into the test's folder (with their times)."""
    copy = tmp_path / "wren"
    if not copy.exists():
        shutil.copytree(WREN, copy)
        (tmp_path / "built").mkdir()
        (tmp_path / "fresh").mkdir()
    return copy


def test_a_state_from_before_the_records_gets_them_without_rewriting_the_pages(tmp_path):
    config = built_folder(tmp_path / "built", config_module.StateLocation(path=tmp_path / "state.sqlite"),
                          [wren_copy(tmp_path)])
    before = feature_files(config)
    times = {path: path.stat().st_mtime_ns for path in (config.archive_dir / "features").iterdir()}
    # As version 15 left it: no record of the entries, no row kept as HTML.
    with Store.open(config.state) as store, store.transaction() as db:
        db.execute("DELETE FROM feature_entries")
        db.execute("UPDATE feature_projects SET row_html = NULL")
        db.execute("DELETE FROM archive_marks WHERE name = 'feature entries settings'")
    pipeline.build(config, now=NOW + timedelta(hours=1))
    check_recorded(config)
    assert feature_files(config) == before
    assert {path: path.stat().st_mtime_ns for path in (config.archive_dir / "features").iterdir()} == times
    with Store.open(config.state) as store:
        assert store.db.execute("SELECT count(*) FROM feature_projects WHERE row_html IS NULL").fetchone() == (0,)


def test_entries_logged_that_did_not_move_are_taken_out_of_the_log_and_nothing_is_written(tmp_path, monkeypatch):
    config = built_folder(tmp_path / "built", config_module.StateLocation(path=tmp_path / "state.sqlite"),
                          [wren_copy(tmp_path)])
    before = feature_files(config)
    times = feature_file_times(config)
    # As migration 17 leaves a state: every entry logged.
    with Store.open(config.state) as store, store.transaction() as db:
        db.execute("INSERT INTO touched_entries (entry) SELECT id FROM entries")
    read = counting_reads(monkeypatch)
    pipeline.build(config, now=NOW + timedelta(hours=1))
    assert read == [0]
    check_recorded(config)
    assert feature_files(config) == before
    assert feature_file_times(config) == times


def test_a_digests_projects_are_read_a_turn_at_a_time_and_the_first_turn_kept_for_the_pages(tmp_path, monkeypatch):
    config = built_folder(tmp_path / "built", config_module.StateLocation(path=tmp_path / "state.sqlite"),
                          [wren_copy(tmp_path)])
    with Store.open(config.state) as store:
        index = EntryIndex(store)
        keys = [key for (key,) in store.db.execute("SELECT id FROM entries")]
        whole = list(FeatureHistories(index, config).of_entries(keys))
        monkeypatch.setattr(feature_pages, "_PROJECTS_AT_ONCE", 1)
        reads = []
        appearances = EntryIndex.appearances

        def recording(self, keys=None):
            reads.append(keys)
            return appearances(self, keys)

        monkeypatch.setattr(EntryIndex, "appearances", recording)
        histories = FeatureHistories(index, config)
        turned = list(histories.of_entries(keys))
        # The pages ask again: the first turn's history is kept for them, the other read again;
        # once taken, it is kept no more.
        again = histories.of(["wren", "finch"])
        once_more = histories.of(["finch"])
    assert [project.project for project in whole] == ["Finch", "Wren"]
    assert turned == whole and again == whole and once_more == whole[:1]
    assert len(reads) == 4 and reads[2] == reads[1] and reads[3] == reads[0]


def test_a_write_between_the_logs_read_and_its_record_stays_logged(tmp_path, monkeypatch):
    """As another writer's, beside a build that lost its lock: the entry is read again by the
    next build, not left with the record of what it was before."""
    config = built_folder(tmp_path / "built", config_module.StateLocation(path=tmp_path / "state.sqlite"),
                          [wren_copy(tmp_path)])
    with Store.open(config.state) as store:
        entry, post_id = store.db.execute("SELECT entry, post_id FROM entry_forms ORDER BY post_id").fetchone()
        (post,) = store.posts([post_id])
        store.record_collection(SourceResult(post.source, validators={post.location: CacheValidators("1-1", None)}),
                                NOW)
        assert feature_entries.touched(store) == {entry}
    record = feature_entries.record

    def written_meanwhile(store, read, gone, touched):
        with store.transaction() as db:
            db.execute("UPDATE entries SET updated = ? WHERE id = ?", ((NOW + timedelta(days=9)).isoformat(), entry))
        record(store, read, gone, touched)

    monkeypatch.setattr(feature_entries, "record", written_meanwhile)
    pipeline.build(config, now=NOW + timedelta(hours=1))
    monkeypatch.undo()
    with Store.open(config.state) as store:
        assert feature_entries.touched(store) == {entry}
    pipeline.build(config, now=NOW + timedelta(hours=2))
    check_recorded(config)
