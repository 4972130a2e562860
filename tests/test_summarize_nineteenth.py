"""Shapes met in the nineteenth and twentieth held-aside sets, on invented posts (turnstone
fixtures): a summary under a part that a "What is X?" blurb precedes, a dump's short
sentence introducing the highlights, a Medium byline dated in another language, a release
page copy with a "# comment" line and its breadcrumb joined to the menu, a w3m dump's
features shown by code or with no text, Bengali labels and closing parts."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.summarize.dates import is_date
from newsletter.text.sniff import sniff_format


def test_a_summary_under_a_part_that_a_what_is_blurb_precedes():
    text = read("turnstone-5.0.md")
    # "What is Turnstone?" frames the post: the list "The short version:" introduces under
    # "Main changes" is its summary, and the part keeps its groups of features.
    assert summarize(text).summary_bullets == (
        "Shared inboxes that a whole team can answer from;", "saved searches you can pin to the sidebar;",
        "a faster mail importer, and", "SQLite 3.45 is now the minimum.")
    assert features(text) == [
        ("Shared inboxes", None, "Inboxes"),
        ("Saved searches", "beta", "Inboxes"),
        ("Faster mail importer", None, "Import"),
    ]


def test_a_dumps_short_sentence_introducing_its_highlights_is_the_posts_prose():
    text = read("turnstone-5.0-lynx.txt")
    assert summarize(text).summary_bullets == (
        "shared inboxes for whole teams,", "saved searches you can pin, and", "a faster importer.")


def test_a_medium_byline_dated_in_another_language():
    summary = summarize(read("turnstone-5.0-medium.html"), media_type="text/html")
    # "14 dic 2026" is a date: the line names the author, and the h2 over it is the
    # subtitle, no section; the list "Lo esencial:" introduces is the summary.
    assert summary.author == "Ana Ruiz"
    assert summary.summary_bullets == ("Bandejas compartidas para todo el equipo;", "búsquedas guardadas;",
                                       "un importador más rápido.")
    assert [(f.heading, f.section) for f in summary.features] == [
        ("Bandejas compartidas", None), ("Búsquedas guardadas", None), ("Importador de correo más rápido", None)]


def test_a_day_a_months_name_and_a_year_is_a_date_in_any_language():
    assert all(map(is_date, ("14 dic 2026", "3. Oktober 2026", "12 de octubre de 2026", "9 sty 2026")))
    assert not any(map(is_date, ("3 new features", "12 plugins 2026 edition", "40 Issues 2026 left")))


def test_a_release_page_copy_with_a_comment_line_and_its_breadcrumb_joined_to_the_menu():
    text = read("turnstone-5.0-release-page.txt")
    # The "# call ..." line sits right under another line: code kept from the page, not a
    # Markdown heading; the copy is text.
    assert sniff_format(text) == "text"
    summary = summarize(text)
    # The breadcrumb's last step names the release though the copy joined it to the menu;
    # the byline joined to the release's name and badge names its author; the body's first
    # line names the release again and is no feature.
    assert (summary.title, summary.author) == ("v5.0.0", "mira-k")
    assert summary.summary_bullets == ("Inboxes can be shared by a whole team", "Searches can be saved and pinned")
    assert features(text) == [
        ("Shared inboxes", None, "New features"),
        ("Saved searches", "beta", "New features"),
        ("Legacy /api/v1/tickets endpoint", "deprecated", "Removals"),
    ]


def test_markdown_headings_stand_after_a_blank_line():
    assert sniff_format("Intro line.\n\n# Faster sync\nSync is faster now.\n\n  * one\n  * two\n") == "markdown"


def test_a_w3m_dump_with_a_feature_shown_by_code_and_one_with_no_text():
    text = read("turnstone-5.0-w3m.txt")
    # "Snooze rules [Experimental]" carries a label: a feature with no text, not the group
    # of the next part's line. "Importer on its own port" shows only its configuration.
    # "Get the release" closes the post.
    assert features(text) == [
        ("Shared inboxes", None, "Inboxes"),
        ("Snooze rules", "experimental", "Inboxes"),
        ("Importer on its own port", None, "Server"),
        ("Faster mail importer", None, "Server"),
    ]


def test_bengali_labels_and_closing_parts():
    text = ("---\ntitle: টার্নস্টোন ৫.০\n---\n\n## নতুন বৈশিষ্ট্য\n\n### শেয়ার করা ইনবক্স (বিটা)\n\nদল একসঙ্গে উত্তর দিতে পারে।\n\n"
            "### [পরীক্ষামূলক] স্নুজ নিয়ম\n\nটিকিট পরে ফিরে আসে।\n\n### পুরনো API (অপ্রচলিত)\n\nনতুন API ব্যবহার করুন।\n\n"
            "## কীভাবে আপগ্রেড করবেন\n\nসার্ভিস বন্ধ করে আবার চালু করুন।\n\n## ধন্যবাদ\n\nসবাইকে ধন্যবাদ।\n")
    assert features(text) == [
        ("শেয়ার করা ইনবক্স", "beta", "নতুন বৈশিষ্ট্য"),
        ("স্নুজ নিয়ম", "experimental", "নতুন বৈশিষ্ট্য"),
        ("পুরনো API", "deprecated", "নতুন বৈশিষ্ট্য"),
    ]


def test_the_projects_other_news_is_no_feature():
    text = ("# Turnstone 5.0\n\n## Shared inboxes\n\nSeveral agents can work one inbox.\n\n"
            "## Turnstone news\n\nWe are hiring a second maintainer.\n")
    assert features(text) == [("Shared inboxes", None, None)]
