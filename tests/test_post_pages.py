"""Every post's page in the archive (posts/<slug>.html), and the links that lead there."""

import shutil
from datetime import timedelta
from pathlib import Path

import feedparser
from helpers import NOW, REPO, SITE_TABLE, write_config
from helpers.posts import lumen, numbered

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.models import Digest
from newsletter.publish import digest as digests
from newsletter.publish import page_texts
from newsletter.publish.paths import post_page_path

SITE = "https://digest.example.org/"
FIXTURES = REPO / "tests" / "fixtures"
DRAFT = ("---\ntitle: Moss 1.2 draft\n---\n\nMoss 1.2 is *nearly* here.\n\n"
         "- Faster sync, see the [notes](https://moss.example.org/n).\n- <script>alert(1)</script>Safe\n\n"
         "## New features\n\n### Sync engine (Beta)\n\nText.\n")


def page(config, location: str) -> str:
    return (config.archive_dir / post_page_path("posts", location)).read_text(encoding="utf-8")


def test_every_post_gets_a_page_with_its_highlights_features_and_forms(config):
    pipeline.build(config, now=NOW)
    pages = sorted(p.name for p in (config.archive_dir / "posts").glob("*.html"))
    assert len(pages) == 3, pages
    html = page(config, "lumen-2.0.md")
    assert "<li>Streaming queries that emit results while the input is still arriving</li>" in html
    assert "<h2>Query engine</h2>" in html
    assert '<strong class="badge badge-beta">Beta</strong>' in html
    assert '<a class="read" href="https://lumen.example.org/blog/lumen-2.0/">Read the post →</a>' in html
    assert '<a href="https://lumen.example.org/de/blog/lumen-2.0/" hreflang="de">Deutsch</a>' in html
    # A post read elsewhere is not copied here.
    assert "The post</h2>" not in html


def test_a_post_without_an_address_shows_its_text_sanitized_and_is_linked_everywhere(config, posts_dir: Path):
    (posts_dir / "moss-draft.md").write_text(DRAFT, encoding="utf-8")
    report = pipeline.build(config, now=NOW)
    html = page(config, "moss-draft.md")
    assert "<p>Moss 1.2 is <em>nearly</em> here.</p>" in html
    assert '<a href="https://moss.example.org/n" rel="noopener">notes</a>' in html
    assert "<script" not in html and "alert(1)" not in html
    assert "Read the post" not in html
    # Its date is not made up.
    assert f"Undated (first seen {NOW.day} {NOW:%B %Y})" in html

    address = SITE + post_page_path("posts", "moss-draft.md")
    entries = {e.title: e for e in feedparser.parse(config.archive_dir / "posts.atom").entries}
    assert entries["Moss 1.2 draft"].link == address
    digest = (config.archive_dir / "digests" / f"{report.new_digest}.html").read_text(encoding="utf-8")
    assert f'<a href="{address}">Moss 1.2 draft</a>' in digest
    index = (config.archive_dir / "index.html").read_text(encoding="utf-8")
    assert f'<a href="{post_page_path("posts", "moss-draft.md")}">Moss 1.2 draft</a>' in index


def test_a_translation_naming_the_original_links_to_its_own_page_never_the_originals(config, posts_dir: Path):
    german = posts_dir / "lumen-2.0-de.md"
    german.write_text(german.read_text(encoding="utf-8").replace(
        "https://lumen.example.org/de/blog/lumen-2.0/", "https://lumen.example.org/blog/lumen-2.0/"), encoding="utf-8")
    report = pipeline.build(config, now=NOW)
    own_page = SITE + post_page_path("posts", "lumen-2.0-de.md")
    digest = (config.archive_dir / "digests" / f"{report.new_digest}.html").read_text(encoding="utf-8")
    assert f'<a href="{own_page}" hreflang="de" lang="de">Deutsch</a>' in digest
    html = page(config, "lumen-2.0-de.md")
    # Its text is shown, since it has no address of its own; the original is a link away.
    assert "Read the post" not in html
    assert "Wir freuen uns" in html
    assert '<a href="https://lumen.example.org/blog/lumen-2.0/" hreflang="en">English</a>' in html


def test_pages_are_written_again_only_for_posts_that_changed(config, posts_dir: Path):
    pipeline.build(config, now=NOW)
    folder = config.archive_dir / "posts"
    written = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.html")}
    (posts_dir / "moss-draft.md").write_text(DRAFT, encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(hours=1))
    now_written = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.html")}
    new = Path(post_page_path("posts", "moss-draft.md")).name
    assert set(now_written) == {*written, new}
    assert {name: now_written[name] for name in written} == written

    (posts_dir / "moss-draft.md").write_text(DRAFT.replace("nearly", "almost"), encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(hours=2))
    again = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.html")}
    assert {name: again[name] for name in written} == written
    assert again[new] != now_written[new] and "almost" in page(config, "moss-draft.md")


def test_the_index_shows_highlights_and_tells_same_day_digests_apart(config):
    morning = Digest(1, "2026-11-02-1", NOW, (lumen(),))
    evening = Digest(2, "2026-11-02-2", NOW + timedelta(hours=8), (numbered(5),))
    earlier = Digest(3, "2026-10-01-1", NOW - timedelta(days=32), (numbered(1),))
    html = digests.render_index(config, [morning, evening, earlier])
    assert "2 November 2026, 09:30 UTC</time>" in html and "2 November 2026, 17:30 UTC</time>" in html
    assert '<time datetime="2026-10-01">1 October 2026</time>' in html
    assert '<ul class="highlights"><li>Rendering is twice as fast.</li>' in html


def test_pages_rendered_by_worker_processes_are_the_bytes_rendered_in_process(tmp_path: Path, monkeypatch):
    def pages(folder: str) -> dict[str, bytes]:
        (tmp_path / folder).mkdir()
        shutil.copytree(FIXTURES / "posts", tmp_path / folder / "posts")
        config = config_module.load(write_config(tmp_path / folder, f"""{SITE_TABLE}
[[sources]]
name = "posts"
kind = "folder"
path = "posts"
"""))
        pipeline.build(config, now=NOW)
        return {path.name: path.read_bytes() for path in (config.archive_dir / "posts").glob("*.html")}

    alone = pages("alone")
    monkeypatch.setattr(page_texts, "MIN_POOL_TEXTS", 1)
    monkeypatch.setattr(page_texts, "cores", lambda: 2)
    pooled = pages("pooled")
    assert len(alone) == len(list((FIXTURES / "posts").iterdir()))
    assert pooled == alone


def test_texts_rendered_by_the_early_worker_are_the_html_rendered_in_process(early_worker):
    texts = [page_texts.PostText((FIXTURES / "posts" / name).read_text(encoding="utf-8"), "markdown")
             for name in sorted(path.name for path in (FIXTURES / "posts").glob("*.md"))[:3]]
    here = list(page_texts.rendered(texts))
    early = early_worker([])
    assert list(page_texts.rendered(texts, early=early)) == here
    early.process.kill()
    early.process.join()
    assert list(page_texts.rendered(texts, early=early)) == here and early.lost
    assert len(here) == 3 and all("<p>" in html for html in here)


def test_texts_rendered_ahead_by_the_early_worker_are_taken_as_rendered(early_worker):
    text = page_texts.PostText(DRAFT, "markdown")
    early = early_worker([])
    page_texts.render_ahead([text], early)
    assert early.run(_rendered_ahead_in_the_worker, [text]) == [True]
    assert list(page_texts.rendered([text], early=early)) == [page_texts.post_html(DRAFT, "markdown")]
    assert early.run(_rendered_ahead_in_the_worker, [text]) == [False]  # taken by its page


def _rendered_ahead_in_the_worker(text: page_texts.PostText) -> bool:
    return text in page_texts._rendered_ahead
