import email
import re
import subprocess
import sys
from dataclasses import replace
from datetime import timedelta
from email import policy
from pathlib import Path

import jinja2
import pytest
from helpers import NOW, run_cli
from helpers.posts import (
    big_digest,
    large_entry,
    lumen,
    numbered,
    small_digest,
    stored_post,
)

from newsletter import pipeline
from newsletter.errors import TemplateError
from newsletter.mail.message import archive_message
from newsletter.models import Digest, Entry, Feature
from newsletter.publish import digest as digests
from newsletter.publish import views

LIMIT = 102 * 1024


def test_twenty_large_posts_stay_under_the_clipping_size_and_say_what_was_left_out(config):
    rendered = digests.render_digest(config, big_digest())
    assert len(rendered.html.encode("utf-8")) <= LIMIT
    for n in range(20):
        assert f"Project {n} release {n}.0" in rendered.html
        assert f'<a href="https://blog.example.com/{n}">And ' in rendered.html
    assert re.search(r"And \d+ more highlights and \d+ more features in the post", rendered.html)
    assert re.search(r"And \d+ more highlights and \d+ more features in the post:\s+https://blog.example.com/0",
                     rendered.text)


def test_a_long_feature_list_collapses_into_and_n_more_linking_to_the_post(config):
    features = tuple(Feature(f"Feature {i}", "stable", None) for i in range(15))
    entry = Entry("e", stored_post(1, "Many features", url="https://example.org/many", features=features))
    rendered = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, (entry,)))
    assert "Feature 9" in rendered.html and "Feature 10" not in rendered.html
    assert '<a href="https://example.org/many">And 5 more features in the post →</a>' in rendered.html
    assert "And 5 more features in the post: https://example.org/many" in rendered.text


def test_the_email_links_its_web_copy_and_says_why_the_reader_gets_it(config):
    rendered = digests.render_digest(config, small_digest())
    web_copy = "https://digest.example.org/digests/2026-11-02-1.html"
    assert f'<a href="{web_copy}">View this digest in your browser</a>' in rendered.html
    assert f"View in your browser: {web_copy}" in rendered.text
    why = "You get this email because you subscribed to Test digest at"
    assert why in rendered.html and why in rendered.text


def test_the_subject_names_the_releases_in_about_80_characters(config):
    titles = ["Tern 0.9: offline mode and a settled plugin interface",
              "Lumen 2.0: streaming queries, a new planner and faster joins",
              "Kestrel v3.1.0-rc1 brings a new scheduler to every platform it supports",
              "A very long announcement title with no version in it at all whatsoever", "Post 5"]
    entries = tuple(Entry(f"e{n}", stored_post(n, title, url=f"https://example.org/{n}"))
                    for n, title in enumerate(titles))
    subject = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, entries)).subject
    assert subject == "Test digest: Tern 0.9, Lumen 2.0, Kestrel v3.1.0-rc1 and 2 more"
    many = tuple(Entry(f"e{n}", stored_post(n, "x" * 40 + f" {n}", url=f"https://example.org/{n}"))
                 for n in range(5))
    subject = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, many)).subject
    assert len(subject) <= 80 and subject.endswith(" and 4 more")


def test_features_under_no_section_get_their_own_heading(config):
    features = (Feature("Denoiser", "stable", "Rendering"), Feature("Faster start", None, None))
    entry = Entry("e", stored_post(1, "Lumen", url="https://example.org/l", features=features))
    rendered = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, (entry,)))
    assert re.search(r"<h3>Rendering</h3>\s*<ul><li>Denoiser.*</li></ul>\s*<h3>Other features</h3>\s*<ul><li>Faster start</li>",
                     rendered.html)
    assert "Other features:\n  - Faster start" in rendered.text
    alone = Entry("e", stored_post(1, "Lumen", url="https://example.org/l", features=features[1:]))
    assert "<h3>Features</h3>" in digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, (alone,))).html


def test_an_undated_post_says_so_instead_of_showing_the_build_date(config):
    undated = Entry("e", stored_post(1, "No date here", url="https://example.org/u"))
    rendered = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, (undated,)))
    assert f"Undated (first seen {NOW.day} {NOW:%B %Y})" in rendered.html
    assert f"Undated (first seen {NOW.day} {NOW:%B %Y})" in rendered.text


def test_a_small_digest_shows_everything(config):
    rendered = digests.render_digest(config, small_digest())
    html = rendered.html
    assert "Rendering is twice as fast." in html and "Old hooks removed" in html
    assert "more feature" not in html
    # Title linking to the post, its date, the other language by its own name, badges as text.
    assert '<h2><a href="https://lumen.example.org/blog/2.0#top">Lumen 2.0 is out</a></h2>' in html
    assert "1 November 2026" in html
    assert re.search(r'Also in <a href="https://lumen.example.org/de/2.0" hreflang="de" lang="de">Deutsch</a>', html)
    for label in ("Stable", "Beta", "Prototype"):
        assert re.search(rf'<strong class="badge badge-{label.lower()}"[^>]*>{label}</strong>', html)
    assert "&lt;script&gt;" in html and "<script" not in html


def test_the_email_is_safe_for_mail_clients_and_dark_mode(config):
    html = digests.render_digest(config, small_digest()).html
    assert html.startswith("<!doctype html><html lang=\"en\"")
    for forbidden in ("<script", "<form", "<input", "rel=\"stylesheet\"", "@import", "fonts.googleapis", "<link"):
        assert forbidden not in html
    assert '<meta name="color-scheme" content="light dark"' in html
    assert "@media (prefers-color-scheme: dark)" in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs and all(h.startswith("https://") for h in hrefs)


def test_the_header_names_the_date_range_and_the_preheader_is_one_line(config):
    rendered = digests.render_digest(config, small_digest())
    preheader = re.search(r'<div style="display:none;[^"]*">([^<]*)</div>', rendered.html).group(1)
    # The first highlights, not the subject again.
    assert preheader == "Rendering is twice as fast. · Post 5"
    assert rendered.subject == "Test digest: Lumen 2.0 and Post 5"
    assert "2 posts · 30 July – 1 November 2026" in rendered.html
    assert "2 posts · 30 July – 1 November 2026" in rendered.text


def test_the_text_twin_is_made_from_the_same_data_and_wrapped(config):
    text = digests.render_digest(config, big_digest()).text
    assert "<" not in text.replace("<script>", "")
    assert "Also in Deutsch: https://blog.example.com/de/3" in text
    assert "  - Feature 0 of post 0: a considerably long heading" in text
    assert "[Stable]" in text and "[Beta]" in text
    long_lines = [line for line in text.splitlines() if len(line) > 72 and "://" not in line and " " in line.strip()]
    assert long_lines == []
    small = digests.render_digest(config, small_digest()).text
    assert "  * Rendering is twice as fast." in small
    assert "Rendering:\n  - GPU path tracer [Beta]\n  - Denoiser [Stable]" in small


def test_unsubscribe_is_a_placeholder_that_the_archive_copy_points_to_the_archive(config):
    rendered = digests.render_digest(config, small_digest())
    placeholder = rendered.unsubscribe_slot
    assert f'<a href="{placeholder}">Unsubscribe</a>' in rendered.html
    assert f"Unsubscribe: {placeholder}" in rendered.text

    archived = digests.archive_copy(config, rendered)
    assert '<a href="https://digest.example.org/">Unsubscribe</a>' in archived.html
    assert "Unsubscribe: https://digest.example.org/" in archived.text
    assert placeholder not in archived.html + archived.text
    raw = archive_message(config.site, "2026-11-02-1", NOW, rendered)
    assert b"List-Unsubscribe" not in raw
    assert b"https://unsubscribe.invalid" not in raw


def test_the_message_is_multipart_alternative_with_a_safe_one_line_subject(config):
    evil = stored_post(1, "Größer & besser\r\nBcc: victim@example.com", url="https://example.org/x",
                       bullets=("x" * 5000,))
    digest = Digest(1, "2026-11-02-1", NOW, (Entry("e", evil),))
    raw = archive_message(config.site, digest.name, digest.created, digests.render_digest(config, digest))
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998
    headers = raw.split(b"\r\n\r\n", 1)[0]
    headers.decode("ascii")  # non-ASCII is encoded, never raw
    message = email.message_from_bytes(raw, policy=policy.default)
    assert message["Bcc"] is None
    # One line: the title named up to its colon.
    assert message["Subject"] == "Test digest: Größer & besser Bcc"
    assert message.get_content_type() == "multipart/alternative"
    assert [p.get_content_type() for p in message.iter_parts()] == ["text/plain", "text/html"]
    assert "Größer & besser" in message.get_body(("plain",)).get_content()


def test_the_feed_body_leaves_out_what_only_a_mailbox_needs(config):
    html = digests.render_digest(config, small_digest()).html
    body = digests.feed_body(html)
    assert "<body" not in body and "<head" not in body
    assert "Lumen 2.0 is out" in body
    assert "Rendering is twice as fast. · Post 5" not in body  # the hidden preheader
    assert "View this digest in your browser" not in body and "You get this email" not in body
    assert "Unsubscribe" not in body


def test_the_archive_index_lists_digests_newest_first_with_both_feeds(config):
    older = Digest(1, "2026-10-01-1", NOW - timedelta(days=32), (numbered(1),))
    newer = Digest(2, "2026-11-02-1", NOW, (lumen(), numbered(5)))
    html = digests.render_index(config, [older, newer])
    assert html.index("digests/2026-11-02-1.html") < html.index("digests/2026-10-01-1.html")
    feed_link = '<link rel="alternate" type="application/atom+xml" title="Test digest: {}" href="{}">'
    assert feed_link.format("every post", "posts.atom") in html
    assert feed_link.format("digests", "digests.atom") in html
    assert '<time datetime="2026-10-01">1 October 2026</time>' in html
    assert '<a href="https://lumen.example.org/blog/2.0#top">Lumen 2.0 is out</a>' in html
    assert '<html lang="en">' in html and "prefers-color-scheme: dark" in html


def test_user_templates_replace_the_bundled_ones(config, tmp_path: Path):
    folder = tmp_path / "my-templates"
    folder.mkdir()
    (folder / "digest.txt.j2").write_text("{{ post_count }} posts, my way\n", encoding="utf-8")
    rendered = digests.render_digest(replace(config, templates_dir=folder), small_digest())
    assert rendered.text == "2 posts, my way\n"
    assert "Lumen 2.0 is out" in rendered.html


@pytest.fixture
def fresh_environments():
    """Template environments made anew, as in a new process, and none left made in a test's cache."""
    digests._environment_for.cache_clear()
    yield
    digests._environment_for.cache_clear()


def test_compiled_templates_are_kept_for_the_next_run_and_an_edited_one_compiled_again(
    config, tmp_path: Path, monkeypatch, fresh_environments,
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "my-templates"
    folder.mkdir()
    template = folder / "digest.txt.j2"
    template.write_text("{{ post_count }} posts\n", encoding="utf-8")
    config = replace(config, templates_dir=folder)
    assert digests.render_digest(config, small_digest()).text == "2 posts\n"
    assert list((tmp_path / "cache" / "newsletter" / "templates").iterdir())
    # The next run compiles nothing: every template comes from the cache.
    digests._environment_for.cache_clear()
    with monkeypatch.context() as patched:
        patched.setattr(jinja2.Environment, "compile", lambda *args, **kwargs: pytest.fail("compiled again"))
        assert digests.render_digest(config, small_digest()).text == "2 posts\n"
    digests._environment_for.cache_clear()
    template.write_text("{{ post_count }} posts, edited\n", encoding="utf-8")
    assert digests.render_digest(config, small_digest()).text == "2 posts, edited\n"


def test_a_damaged_compiled_template_is_compiled_again(config, tmp_path: Path, monkeypatch, fresh_environments):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    def text() -> str:
        rendered = digests.render_digest(config, small_digest())
        return rendered.text.replace(rendered.unsubscribe_slot, "(unsubscribe)")

    expected = text()
    for kept in (tmp_path / "cache" / "newsletter" / "templates").iterdir():
        kept.write_bytes(kept.read_bytes()[:40])
    digests._environment_for.cache_clear()
    assert text() == expected


@pytest.mark.slow
@pytest.mark.parametrize("template, line", [
    ("line one\n{% for x in %}\n", 2),
    ("line one\nline two\n{{ no_such_variable }}\n", 3),
])
def test_a_template_error_stops_the_build_with_its_file_and_line(config, tmp_path: Path, template, line):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "digest.txt.j2").write_text(template, encoding="utf-8")
    config.path.write_text(config.path.read_text(encoding="utf-8") + '\n[templates]\ndir = "templates"\n',
                           encoding="utf-8")
    result = run_cli("--config", str(config.path), "build")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {folder / 'digest.txt.j2'}:{line}: "), result.stderr


def test_invalid_mjml_is_reported_with_its_template(config, tmp_path: Path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "digest.mjml.j2").write_text("<mjml><mj-body><mj-section>", encoding="utf-8")
    with pytest.raises(TemplateError, match=re.escape(f"{folder / 'digest.mjml.j2'}: not valid MJML")):
        digests.render_digest(replace(config, templates_dir=folder), small_digest())


@pytest.mark.slow
def test_the_shared_email_checker_passes_the_built_digest(config, shared):
    pipeline.build(config, now=NOW)
    for suffix in ("html", "eml"):
        output = config.archive_dir / "digests" / f"2026-11-02-1.{suffix}"
        result = subprocess.run(
            [sys.executable, str(shared / "tools" / "email-html-check.py"), str(output)],
            capture_output=True, text=True, timeout=120,
        )
        assert result.returncode == 0, result.stdout
        assert "FAIL" not in result.stdout


@pytest.mark.slow
def test_a_digest_of_thousands_of_posts_shows_what_fits_of_each_and_counts_the_rest(config):
    entries = tuple(large_entry(n, published=NOW - timedelta(days=n)) for n in range(2_000))
    rendered = digests.render_digest(config, Digest(1, "2026-11-02-1", NOW, entries))
    assert len(rendered.html.encode("utf-8")) <= LIMIT
    # Forty posts, each with its first highlight cut short, are what fits; the rest are
    # counted, not dropped. A post never shows "and N more" over nothing.
    assert "1960 more posts: see the archive" in rendered.html
    assert "1960 more posts: see the archive" in rendered.text
    for n in range(40):
        assert f"Highlight 0 of post {n}: lots of detail" in rendered.html
    assert "And 11 more highlights and 60 more features in the post" in rendered.html


def test_the_index_makes_each_entrys_view_as_it_reads_it_and_the_same_as_one_by_one(monkeypatch):
    entries = [numbered(n) for n in range(5)]
    expected = [views.entry_view(entry, "") for entry in entries]
    made = []
    one_view = views.entry_view

    def counted(entry, pages_at):
        made.append(entry)
        return one_view(entry, pages_at)

    monkeypatch.setattr(views, "entry_view", counted)
    listed = views.EntryViews(entries, "")
    assert len(listed) == 5 and made == []
    reading = iter(listed)
    assert next(reading) == expected[0] and made == entries[:1]
    assert [expected[0], *reading] == expected
    assert listed[2] == expected[2] and listed[1:3] == expected[1:3]
