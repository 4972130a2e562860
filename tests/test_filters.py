"""Source filters: which titles name a pre-release, how include and exclude read, how the
config reports a bad pattern, and real builds in which skipped posts stay in the state and
out of every output, also after the filter changes."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import NOW, SITE_TABLE, feed_config, write_config
from helpers.archive import digest_names, feed_titles
from helpers.postgres import BOTH_BACKENDS, state_table
from helpers.servers import email_section, serve_document

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.cli import cli
from newsletter.config.filters import TitleFilter, pattern, prerelease
from newsletter.errors import ConfigError
from newsletter.publish.paths import post_page_path
from newsletter.state import skipped
from newsletter.state.store import Store

PRERELEASES = {
    "Python 3.13.0a2": "3.13.0a2",
    "Kite 2.0b1 is out": "2.0b1",
    "Kite 1.0rc2": "1.0rc2",
    "v2.0.0-rc.1": "v2.0.0-rc.1",
    "Lumen 1.0.0-alpha": "1.0.0-alpha",
    "Lumen 1.2.0-beta.3 is out": "1.2.0-beta.3",
    "Kite 3.0 Beta 1": "3.0 Beta 1",
    "Announcing the Kite 3.0 beta": "3.0 beta",
    "Kite 2.0 RC1": "2.0 RC1",
    "Kite 2.0 (preview)": "2.0 preview",
    "Kite 2.0 Release Candidate 2": "2.0 Release Candidate 2",
    "Kite 2.0 Developer Preview": "2.0 Developer Preview",
    "Tern 2.5.0.dev20240101 wheels": "2.5.0.dev20240101",
    "Tern 23.0.0-nightly": "23.0.0-nightly",
    "Kite 2.0-SNAPSHOT": "2.0-SNAPSHOT",
    "Kite 4.0.0~rc2 in Debian": "4.0.0~rc2",
    "Kite 2.0-pre": "2.0-pre",
    "Spring 6.1.0-M2": "6.1.0-M2",
    "Hibernate 6.0.0.CR1": "6.0.0.CR1",
    "Android 15 Beta 2": "15 Beta 2",
    "Kite 18 beta": "18 beta",
    "Kite 15-rc1": "15-rc1",
}
RELEASES = [
    "Beta features in 2.4",
    "Preview: what comes in Kite 3",
    "Kite 2.0 released",
    "Kite 2.4: beta features graduate",
    "Kite 2.0, beta next",
    "Top 5 beta features to try",
    "Kite 2.0 developer guide",
    "Kite 2.0 Dev Days recap",
    "Kite 2.0 released with beta support for gusts",
    "Alpha and beta channels merged in 3.0",
    "Kite 1.10.2",
    "Nightly builds move to 2024-05-01",
    "Kite 3.0 adds the 2b1 codec",
    "Area 51a",
    "Kite 3.0 M1 support",
    "Kite passes 1.5m downloads",
    "",
]


@pytest.mark.parametrize("title", PRERELEASES)
def test_a_prerelease_word_attached_to_the_version_makes_a_prerelease(title: str):
    assert prerelease(title) == PRERELEASES[title]


@pytest.mark.parametrize("title", RELEASES)
def test_a_prerelease_word_apart_from_the_version_says_nothing_of_it(title: str):
    assert prerelease(title) is None


def test_include_and_exclude_search_the_title_ignoring_case():
    kept = TitleFilter(include=(pattern("kite"), pattern(r"\blumen\b")), exclude=(pattern("security"),))
    assert kept.skip_reason("KITE 2.0") is None
    assert kept.skip_reason("The Lumen 2.0 release") is None
    assert kept.skip_reason("Tern 2.0") == "matches no include pattern"
    assert kept.skip_reason(None) == "matches no include pattern"
    assert kept.skip_reason("Kite 2.0.1 Security fix") == "matches exclude pattern 'security'"
    no_prereleases = TitleFilter(prereleases=False)
    assert no_prereleases.skip_reason("Kite 2.1rc1") == "pre-release 2.1rc1"
    assert no_prereleases.skip_reason("Beta features in 2.4") is None
    assert no_prereleases.skip_reason(None) is None
    assert TitleFilter().skip_reason("Kite 2.1rc1") is None


def source_table(filters: str) -> str:
    return f"""{SITE_TABLE}
[[sources]]
name = "posts"
kind = "folder"
path = "posts"
{filters}
"""


def test_filters_are_read_from_a_string_or_a_list(tmp_path: Path):
    config = config_module.load(write_config(tmp_path, source_table(
        'include = "kite"\nexclude = ["security", "^Re:"]\nprereleases = false')))
    source_filter = config.sources[0].title_filter
    assert [p.pattern for p in source_filter.include] == ["kite"]
    assert [p.pattern for p in source_filter.exclude] == ["security", "^Re:"]
    assert source_filter.prereleases is False
    assert config.title_filters == {"posts": source_filter}
    plain = config_module.load(write_config(tmp_path, source_table("")))
    assert plain.title_filters == {} and plain.sources[0].title_filter == TitleFilter()


def test_a_bad_filter_is_one_line_naming_its_key(tmp_path: Path):
    path = write_config(tmp_path, source_table('include = ["kite", "[unclosed"]\nexclude = "(x"\nprereleases = "no"'))
    with pytest.raises(ConfigError) as error:
        config_module.load(path)
    lines = str(error.value).splitlines()
    assert len(lines) == 3
    assert lines[0] == f"{path}: sources[0].prereleases: must be true or false (got 'no')"
    assert lines[1].startswith(f"{path}: sources[0].include[1]: is not a regular expression (")
    assert lines[1].endswith("): '[unclosed'")
    assert lines[2].startswith(f"{path}: sources[0].exclude: is not a regular expression (")
    path = write_config(tmp_path, source_table("exclude = [1]"))
    with pytest.raises(ConfigError, match=r"sources\[0\]\.exclude: must be a regular expression or a list of them"):
        config_module.load(path)


POSTS = {
    "kite-2.0.md": "# Kite 2.0\n\nPublished 2026-10-01.\n\n## Highlights\n\n- Faster kites.\n\n### Gust control (Beta)\n\nSteadier.\n",
    "kite-2.1rc1.md": "# Kite 2.1rc1\n\nPublished 2026-10-20.\n\n## Highlights\n\n- Longer lines.\n\n### Night flying (Beta)\n\nLamps.\n",
    "kite-2.0.1.md": "# Kite 2.0.1 security fix\n\nPublished 2026-10-10.\n\n## Highlights\n\n- A knot fixed.\n",
    "beta-features.md": "# Beta features in 2.4\n\nPublished 2026-10-15.\n\n## Highlights\n\n- Sails.\n",
}


def filtered_config(
    tmp_path: Path, state: config_module.StateLocation, filters: str, extra: str = "",
) -> config_module.Config:
    return config_module.load(write_config(tmp_path, source_table(filters) + extra + state_table(state)))


def send(config: config_module.Config) -> None:
    result = CliRunner().invoke(cli, ["--config", str(config.path), "send"])
    assert result.exit_code == 0, result.output


def listed(config: config_module.Config) -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["--config", str(config.path), "posts", "--json"])
    assert result.exit_code == 0, result.output
    return {post["location"]: post for post in json.loads(result.output)}


def outputs_text(archive: Path) -> str:
    """Every feed and page of the archive but the digests made before, as one text."""
    paths = [*archive.glob("*.atom"), *archive.glob("*.html"), *archive.glob("*.json"), *archive.glob("posts/*"),
             *archive.glob("features/*")]
    return "\n".join(path.read_text(encoding="utf-8") for path in paths)


def features_text(archive: Path) -> str:
    """Every project's feature page, as one text."""
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(archive.glob("features/*.html")))


@pytest.fixture
def posts(tmp_path: Path) -> Path:
    folder = tmp_path / "posts"
    folder.mkdir()
    for name, text in POSTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@BOTH_BACKENDS
def test_skipped_posts_stay_in_the_state_and_out_of_every_output(state, tmp_path: Path, posts: Path):
    config = filtered_config(tmp_path, state, 'exclude = "security"\nprereleases = false')
    report = pipeline.build(config, now=NOW)
    archive = config.archive_dir
    assert sorted(feed_titles(archive / "posts.atom")) == ["Beta features in 2.4", "Kite 2.0"]
    text = outputs_text(archive) + (archive / "digests" / f"{report.new_digest}.txt").read_text(encoding="utf-8")
    for gone in ("2.1rc1", "Night flying", "Longer lines", "security fix", "A knot fixed"):
        assert gone not in text
    assert "Gust control" in features_text(archive)
    for name in ("kite-2.1rc1.md", "kite-2.0.1.md"):
        assert not (archive / post_page_path("posts", name)).exists()
    assert (archive / post_page_path("posts", "kite-2.0.md")).exists()
    posts_listed = listed(config)
    assert posts_listed["kite-2.1rc1.md"]["skipped"] == "pre-release 2.1rc1"
    assert posts_listed["kite-2.0.1.md"]["skipped"] == "matches exclude pattern 'security'"
    assert posts_listed["kite-2.0.1.md"]["entry"] is None and posts_listed["kite-2.0.1.md"]["digests"] == []
    assert posts_listed["kite-2.0.md"]["skipped"] is None and posts_listed["kite-2.0.md"]["digests"] == [report.new_digest]
    table = CliRunner().invoke(cli, ["--config", str(config.path), "posts"]).output.splitlines()
    assert any(line.startswith("Kite 2.1rc1\t") and line.endswith("\tpre-release 2.1rc1") for line in table)


@BOTH_BACKENDS
def test_a_filter_change_takes_effect_next_build_without_mailing_anything_again(state,
    tmp_path: Path, posts: Path, smtp_server,
):
    email = email_section(smtp_server.port, ["ada@example.org"])
    config = filtered_config(tmp_path, state, "prereleases = false", email)
    first = pipeline.build(config, now=NOW).new_digest
    send(config)
    assert len(smtp_server.sink.received) == 1
    archive = config.archive_dir
    rc_page = archive / post_page_path("posts", "kite-2.1rc1.md")

    # Let the pre-release in: in the feeds and on its page, but no news after a digest went out.
    config = filtered_config(tmp_path, state, "", email)
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    send(config)
    assert report.posts_summarized == 0 and report.new_digest is None
    assert "Kite 2.1rc1" in feed_titles(archive / "posts.atom")
    assert rc_page.exists() and "Night flying" in features_text(archive)
    assert listed(config)["kite-2.1rc1.md"]["skipped"] is None

    # Skip a post mailed already: it leaves the feeds and its page, and is not mailed again.
    config = filtered_config(tmp_path, state, 'exclude = "^Kite 2\\\\.0$"', email)
    mailed_page = archive / post_page_path("posts", "kite-2.0.md")
    report = pipeline.build(config, now=NOW + timedelta(days=2))
    send(config)
    assert report.new_digest is None
    assert "Kite 2.0" not in feed_titles(archive / "posts.atom") and not mailed_page.exists()
    assert "Gust control" not in features_text(archive)
    assert listed(config)["kite-2.0.md"]["digests"] == [first]

    # Back in: as it was, still carried by the first digest only.
    config = filtered_config(tmp_path, state, "", email)
    assert pipeline.build(config, now=NOW + timedelta(days=3)).new_digest is None
    send(config)
    assert "Kite 2.0" in feed_titles(archive / "posts.atom") and mailed_page.exists()
    assert digest_names(archive) == [first]
    assert len(smtp_server.sink.received) == 1


@BOTH_BACKENDS
def test_a_post_let_in_before_any_digest_went_out_is_news(state, tmp_path: Path, posts: Path):
    config = filtered_config(tmp_path, state, 'include = "^Kite 2\\\\.0$"')
    pipeline.build(config, now=NOW, make_digest=False)
    assert feed_titles(config.archive_dir / "posts.atom") == ["Kite 2.0"]
    report = pipeline.build(filtered_config(tmp_path, state, ""), now=NOW + timedelta(hours=1))
    assert report.new_digest is not None
    digest = (config.archive_dir / "digests" / f"{report.new_digest}.txt").read_text(encoding="utf-8")
    assert "Kite 2.1rc1" in digest and "Kite 2.0.1 security fix" in digest


@BOTH_BACKENDS
def test_an_edit_that_changes_the_title_is_filtered_again(state, tmp_path: Path, posts: Path):
    config = filtered_config(tmp_path, state, "prereleases = false")
    pipeline.build(config, now=NOW)
    (posts / "kite-2.1rc1.md").write_text(POSTS["kite-2.1rc1.md"].replace("2.1rc1", "2.1"), encoding="utf-8")
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    assert report.new_digest is not None
    assert "Kite 2.1" in feed_titles(config.archive_dir / "posts.atom")
    (posts / "kite-2.0.md").write_text(POSTS["kite-2.0.md"].replace("2.0", "2.0b1", 1), encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(days=2))
    assert "Kite 2.0b1" not in feed_titles(config.archive_dir / "posts.atom")
    assert listed(config)["kite-2.0.md"]["skipped"] == "pre-release 2.0b1"


@BOTH_BACKENDS
def test_a_build_stopped_after_the_filter_decided_is_finished_by_the_next(state, tmp_path: Path, posts: Path):
    config = filtered_config(tmp_path, state, "")
    pipeline.build(config, now=NOW)
    strict = filtered_config(tmp_path, state, "prereleases = false")
    # What a build killed after deciding, before regrouping, leaves: the decision is recorded
    # (and the filters' mark with it), the post still in its entry and on its page.
    with Store.open(strict.state) as store:
        skipped.refilter(store, strict.title_filters)
    assert "Kite 2.1rc1" in feed_titles(strict.archive_dir / "posts.atom")
    pipeline.build(strict, now=NOW + timedelta(hours=1))
    assert "Kite 2.1rc1" not in feed_titles(strict.archive_dir / "posts.atom")
    assert not (strict.archive_dir / post_page_path("posts", "kite-2.1rc1.md")).exists()
    assert listed(strict)["kite-2.1rc1.md"]["entry"] is None


def test_a_feed_source_filters_its_entries_by_their_titles(tmp_path: Path, httpserver):
    """A release feed as forges publish them: tags for titles, the body saying little."""
    entries = "".join(
        f"<entry><title>{title}</title><id>urn:release:{n}</id><updated>2026-11-0{n + 1}T00:00:00Z</updated>"
        f"<content type=\"text\">Changes in this release, with more to say than a line.</content></entry>"
        for n, title in enumerate(["v3.0.0", "v3.1.0-rc.1", "v3.1.0b2", "docs-2026-11"]))
    serve_document(httpserver, "/releases.atom", f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Releases</title><id>urn:releases</id>
<updated>2026-11-01T00:00:00Z</updated>{entries}</feed>""", "application/atom+xml")
    config = feed_config(tmp_path, httpserver.url_for("/releases.atom"),
                         'backlog = "digest"\ninclude = "^v"\nprereleases = false')
    report = pipeline.build(config, now=NOW)
    assert report.posts_summarized == 4 and not report.problems
    assert feed_titles(config.archive_dir / "posts.atom") == ["v3.0.0"]
    reasons = {post["title"]: post["skipped"] for post in listed(config).values()}
    assert reasons == {"v3.0.0": None, "v3.1.0-rc.1": "pre-release v3.1.0-rc.1", "v3.1.0b2": "pre-release v3.1.0b2",
                       "docs-2026-11": "matches no include pattern"}
