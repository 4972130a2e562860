"""Digests that are not the mailing list's: a one-off of the posts published in a span of
time, the preview of the next digest, a test send to one address; and what the next
digest carries: no failed build's leftovers, no backlog of a new feed, no old post in a new
language."""

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import feedparser
import pytest
from click.testing import CliRunner
from helpers import NOW, SITE_TABLE, feed_config, write_config
from helpers.servers import email_section, serve_document

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.cli import cli
from newsletter.cli.base import parse_span
from newsletter.errors import ConfigError, StoreError, TemplateError
from newsletter.state.store import Store


def run(config: config_module.Config, *args: str):
    return CliRunner().invoke(cli, ["--config", str(config.path), *args])


def rows(config: config_module.Config, query: str) -> list[tuple]:
    db = sqlite3.connect(config.state.path)
    try:
        return db.execute(query).fetchall()
    finally:
        db.close()


def dated_post(folder: Path, name: str, title: str, date: str) -> None:
    (folder / f"{name}.md").write_text(
        f"---\ntitle: {title}\ndate: {date}\n---\n\nSummary:\n- {title} makes things faster.\n\n"
        f"## New features\n\n### A {name} planner (Beta)\n\nIt plans.\n", encoding="utf-8")


# -- a one-off digest ------------------------------------------------------------------------


def test_parse_span_reads_days_months_years_and_times_ago():
    now = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)
    june = (datetime(2022, 6, 1, tzinfo=UTC), datetime(2022, 7, 1, tzinfo=UTC))
    assert parse_span("2022-06", now) == june
    assert parse_span("2022-12", now)[1] == datetime(2023, 1, 1, tzinfo=UTC)
    assert parse_span("2022", now) == (datetime(2022, 1, 1, tzinfo=UTC), datetime(2023, 1, 1, tzinfo=UTC))
    assert parse_span("2022-06-30", now) == (datetime(2022, 6, 30, tzinfo=UTC), datetime(2022, 7, 1, tzinfo=UTC))
    assert parse_span("yesterday", now) == (datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 2, tzinfo=UTC))
    assert parse_span("7d", now) == (now - timedelta(days=7),) * 2
    assert parse_span("2022-06-01T12:00+02:00", now)[0] == datetime(2022, 6, 1, 10, 0, tzinfo=UTC)
    for wrong in ("2022-13", "June", "7y"):
        with pytest.raises(ValueError):
            parse_span(wrong, now)


def test_digest_writes_the_posts_published_in_the_span_and_records_nothing(config, posts_dir, tmp_path):
    """`build --since` picks posts *changed* since DATE and records a digest the next send
    mails to everyone; `digest` picks posts *published* in the span, and only writes files."""
    dated_post(posts_dir, "old", "Heron 1.0", "2021-03-10")
    dated_post(posts_dir, "june", "Heron 2.0", "2022-06-15")
    dated_post(posts_dir, "july", "Heron 2.1", "2022-07-20")
    assert run(config, "build").exit_code == 0
    digests_before = rows(config, "SELECT id, name FROM digests")

    out = tmp_path / "summer"
    result = run(config, "digest", "--from", "2022-06", "--to", "2022-06-30", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "1 post: " in result.output and "nothing recorded or sent" in result.output
    name = "published-2022-06-01-to-2022-06-30"
    assert sorted(p.name for p in out.iterdir()) == [f"{name}.eml", f"{name}.html", f"{name}.txt"]
    text = (out / f"{name}.txt").read_text(encoding="utf-8")
    assert "Heron 2.0" in text and "Heron 1.0" not in text and "Heron 2.1" not in text
    assert "Heron 2.0" in (out / f"{name}.html").read_text(encoding="utf-8")
    assert rows(config, "SELECT id, name FROM digests") == digests_before
    assert rows(config, "SELECT count(*) FROM digest_copies") == [(len(digests_before),)]

    result = run(config, "digest", "--from", "2022", "--to", "2022", "--out", str(out))
    assert "2 posts: " in result.output
    text = (out / "published-2022-01-01-to-2022-12-31.txt").read_text(encoding="utf-8")
    assert "Heron 2.1" in text and "Heron 2.0" in text and "Heron 1.0" not in text

    # Without --to, up to now; a source that is not there is one clear line.
    result = run(config, "digest", "--from", "2022-07", "--out", str(out))
    text = next(out.glob("published-2022-07-01-to-*.txt")).read_text(encoding="utf-8")
    assert "Heron 2.1" in text and "Lumen" in text and "Heron 2.0" not in text
    result = run(config, "digest", "--from", "2022", "--source", "nowhere", "--out", str(out))
    assert result.exit_code == 2 and "no source is named 'nowhere'" in result.output


def test_digest_keeps_to_the_sources_named(tmp_path, posts_dir):
    other = tmp_path / "other"
    other.mkdir()
    dated_post(other, "kite", "Kite 3.0", "2026-10-20")
    config = config_module.load(write_config(tmp_path, f"""{SITE_TABLE}
[[sources]]
name = "posts"
kind = "folder"
path = "{posts_dir.name}"

[[sources]]
name = "other"
kind = "folder"
path = "other"
"""))
    assert run(config, "build").exit_code == 0
    out = tmp_path / "out"
    result = run(config, "digest", "--from", "2026-10", "--source", "other", "--out", str(out))
    assert result.exit_code == 0 and "1 post: " in result.output, result.output
    text = next(out.glob("*.txt")).read_text(encoding="utf-8")
    assert "Kite 3.0" in text and "Lumen" not in text
    result = run(config, "digest", "--from", "2026-10", "--to", "2026-10-15", "--source", "other", "--out", str(out))
    assert "no post was published then; nothing written" in result.output


# -- the preview of the next digest ----------------------------------------------------------


def test_preview_writes_the_next_digest_without_recording_it(config, posts_dir, tmp_path):
    assert run(config, "build").exit_code == 0
    out = tmp_path / "preview"
    result = run(config, "preview", "--out", str(out))
    assert result.exit_code == 0 and "nothing new" in result.output and not out.exists()

    dated_post(posts_dir, "kite", "Kite 3.0", "2026-10-20")
    result = run(config, "preview", "--out", str(out))
    assert result.exit_code == 0 and "1 post: " in result.output, result.output
    text = (out / "preview.txt").read_text(encoding="utf-8")
    assert "Kite 3.0" in text and "Lumen" not in text
    assert (out / "preview.html").exists() and (out / "preview.eml").exists()
    assert rows(config, "SELECT count(*) FROM digests") == [(1,)]
    # The post was collected, and is still the next digest's news.
    result = run(config, "build")
    assert "new digest" in result.output
    [(name,)] = rows(config, "SELECT name FROM digests ORDER BY id DESC LIMIT 1")
    assert "Kite 3.0" in (config.archive_dir / "digests" / f"{name}.txt").read_text(encoding="utf-8")


# -- a test send -----------------------------------------------------------------------------


def test_send_test_mails_the_newest_digest_to_one_address_outside_the_outbox(config, smtp_server):
    config.path.write_text(config.path.read_text(encoding="utf-8")
                           + email_section(smtp_server.port, ["ada@example.org"]), encoding="utf-8")
    assert run(config, "build").exit_code == 0
    result = run(config, "send", "--test", "Me <me@example.net>")
    assert result.exit_code == 0, result.output
    assert "sent to me@example.net as a test" in result.output
    [received] = smtp_server.sink.received
    assert received.recipient == "me@example.net"
    assert received.message["Subject"].startswith("[test] Test digest: ")
    assert "List-Unsubscribe" not in received.message
    assert rows(config, "SELECT count(*) FROM outbox") == [(0,)]
    assert rows(config, "SELECT mailing FROM digests") == [(None,)]

    # The subscribers' mailing is untouched: the next send mails the digest to them.
    smtp_server.sink.received.clear()
    assert run(config, "send").exit_code == 0
    assert [r.recipient for r in smtp_server.sink.received] == ["ada@example.org"]
    assert run(config, "send", "--test", "not an address").exit_code == 2


# -- what the next digest carries ------------------------------------------------------------


def test_a_build_that_fails_records_no_digest_for_a_later_build_to_mail(config, posts_dir, tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "digest.mjml.j2").write_text("<mjml><mj-body>{{ no_such_value }}</mj-body></mjml>\n",
                                               encoding="utf-8")
    config.path.write_text(config.path.read_text(encoding="utf-8") + '\n[templates]\ndir = "templates"\n',
                           encoding="utf-8")
    broken = config_module.load(config.path)
    with pytest.raises(TemplateError):
        pipeline.build(broken, now=NOW)
    assert rows(config, "SELECT count(*) FROM digests") == [(0,)]
    assert not (config.archive_dir / "digests").exists() or not list((config.archive_dir / "digests").iterdir())

    (templates / "digest.mjml.j2").unlink()
    report = pipeline.build(broken, now=NOW + timedelta(hours=1))
    assert report.new_digest == "2026-11-02-1"
    assert rows(config, "SELECT count(*) FROM digests") == [(1,)]
    assert rows(config, "SELECT count(*) FROM digest_copies") == [(1,)]


def test_a_digest_whose_recording_fails_leaves_no_file_in_the_archive(config, monkeypatch):
    """The other half of "a digest only with its files": no digest file without its record
    (a later build would pick another name, and the first would stay published, unlisted)."""
    def full_database(*_args, **_kwargs):
        raise StoreError("state.sqlite: cannot write the state database: database or disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(Store, "add_digest", full_database)
        with pytest.raises(StoreError):
            pipeline.build(config, now=NOW)
    digests = config.archive_dir / "digests"
    assert sorted(path.suffix for path in digests.iterdir()) == [".tmp"] * 3

    assert pipeline.build(config, now=NOW).new_digest == "2026-11-02-1"
    assert sorted(path.name for path in digests.iterdir()) == [
        "2026-11-02-1.eml", "2026-11-02-1.html", "2026-11-02-1.txt"]


def test_a_new_translation_of_a_post_already_mailed_updates_its_entry_and_makes_no_digest(config, posts_dir):
    translation = posts_dir / "lumen-2.0-de.md"
    german = translation.read_bytes()
    translation.unlink()
    assert pipeline.build(config, now=NOW).new_digest == "2026-11-02-1"

    translation.write_bytes(german)
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    assert (report.posts_summarized, report.new_digest) == (1, None)
    posts = feedparser.parse((config.archive_dir / "posts.atom").read_bytes())
    lumen = next(e for e in posts.entries if "Lumen" in e.title)
    assert {link.get("hreflang") for link in lumen.links} == {"en", "de"}

    # A post that is news still makes one, without the old post.
    dated_post(posts_dir, "kite", "Kite 3.0", "2026-11-01")
    report = pipeline.build(config, now=NOW + timedelta(days=2))
    text = (config.archive_dir / "digests" / f"{report.new_digest}.txt").read_text(encoding="utf-8")
    assert "Kite 3.0" in text and "Lumen" not in text


def feed(server, titles: list[str]) -> None:
    server.clear()
    items = "".join(
        f"<item><title>{title}</title><link>{server.url_for('/' + title.replace(' ', '-'))}</link>"
        f"<pubDate>Sun, 01 Nov 2026 0{n}:00:00 GMT</pubDate>"
        f"<description>{(title + ' is out, with much to tell about it. ') * 20}</description></item>"
        for n, title in enumerate(titles))
    serve_document(server, "/feed", f"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Blog</title><link>{server.url_for("/")}</link>{items}</channel></rss>""",
                   "application/rss+xml")


def test_a_feed_s_first_build_marks_its_backlog_seen_and_digests_only_what_comes_after(tmp_path, httpserver):
    config = feed_config(tmp_path, httpserver.url_for("/feed"))
    feed(httpserver, ["Kite 1.0", "Kite 1.1", "Kite 1.2"])
    report = pipeline.build(config, now=NOW)
    assert (report.posts_summarized, report.new_digest) == (3, None)
    assert len(feedparser.parse((config.archive_dir / "posts.atom").read_bytes()).entries) == 3

    feed(httpserver, ["Kite 1.0", "Kite 1.1", "Kite 1.2", "Kite 2.0"])
    report = pipeline.build(config, now=NOW + timedelta(days=1))
    assert report.new_digest == "2026-11-03-1"
    text = (config.archive_dir / "digests" / "2026-11-03-1.txt").read_text(encoding="utf-8")
    assert "Kite 2.0" in text and "Kite 1.2" not in text


def test_a_feed_whose_backlog_is_digest_makes_its_first_build_s_digest(tmp_path, httpserver):
    config = feed_config(tmp_path, httpserver.url_for("/feed"), 'backlog = "digest"')
    feed(httpserver, ["Kite 1.0", "Kite 1.1"])
    assert pipeline.build(config, now=NOW).new_digest == "2026-11-02-1"


def test_an_unknown_backlog_is_a_config_error(tmp_path, httpserver):
    with pytest.raises(ConfigError, match=r"sources\[0\]\.backlog: must be one of skip, digest \(got 'mail'\)"):
        feed_config(tmp_path, httpserver.url_for("/feed"), 'backlog = "mail"')
