import os
from pathlib import Path

from newsletter.collector import collect
from newsletter.config import SourceConfig


def folder_source(path: Path, glob: str = "**/*") -> SourceConfig:
    return SourceConfig(name="posts", kind="folder", path=path, glob=glob)


def test_a_folder_yields_one_post_per_file_with_relative_locations(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "sub" / "b.txt").write_text("B\n", encoding="utf-8")
    (tmp_path / ".hidden").write_text("x", encoding="utf-8")
    [result] = collect((folder_source(tmp_path),))
    assert result.error is None
    assert [p.location for p in result.posts] == ["a.md", "sub/b.txt"]
    assert result.posts[0].text == "# A\n"


def test_the_glob_selects_files(tmp_path: Path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("B\n", encoding="utf-8")
    [result] = collect((folder_source(tmp_path, "*.md"),))
    assert [p.location for p in result.posts] == ["a.md"]


def test_a_link_out_of_the_folder_and_an_empty_file_are_skipped_with_reasons(tmp_path: Path):
    outside = tmp_path / "secret.txt"
    outside.write_text("secret", encoding="utf-8")
    folder = tmp_path / "posts"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n", encoding="utf-8")
    (folder / "empty.md").write_text("", encoding="utf-8")
    os.symlink(outside, folder / "link.md")
    [result] = collect((folder_source(folder),))
    assert [p.location for p in result.posts] == ["good.md"]
    reasons = dict((Path(loc).name, why) for loc, why in result.skipped)
    assert reasons == {"empty.md": "empty file", "link.md": "a link that leaves the folder, not read"}


def test_a_missing_folder_is_an_error_of_that_source_only(tmp_path: Path):
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "a.md").write_text("# A\n", encoding="utf-8")
    missing, ok = collect((folder_source(tmp_path / "nope"), folder_source(tmp_path / "ok")))
    assert "not a folder" in missing.error
    assert len(ok.posts) == 1
