"""Shapes met in the thirty-seventh and thirty-eighth held-aside sets, on invented posts: a
forum topic whose posts are headed "<who> on <date>" with the poster's block under the first
header, a forum showing the poster's name beside their login, a changelog whose items open
with a category tag before their bold name, and a dump whose heading line names the page at
more length than its breadcrumb's last step."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.forum_thread import forum_thread


def test_a_topic_headed_who_on_when_is_its_first_post_past_the_posters_block():
    text = read("quillon-4.2-board-forum.txt")
    summary = summarize(text)
    # The breadcrumb ends in the title the line under it repeats: the shorter line is the title.
    assert (summary.title, summary.author) == ("Quillon 4.2 has landed", "Mara Voss")
    # The replies ("Reply #1 — pellucid on ...") are not the post; "Known problems" is no news.
    assert features(text) == [("Tabbed notebooks", None, None), ("Ink pressure curves", None, None)]


def test_the_posters_block_and_a_prose_line_with_on_a_date_are_no_header():
    thread = forum_thread(read("quillon-4.2-board-forum.txt"))
    assert thread is not None
    assert not thread[1].lstrip().startswith(("Mara Voss", "Maintainer", "Posts:"))
    # A sentence naming who did what on a day is no post's header, nor is a byline alone.
    assert forum_thread("We met Ana on 2026-03-02 to plan it.\n\nText.\n") is None
    assert forum_thread("Release notes\nPosted by Ana Ruiz on 2026-03-02\n\nQuillon 4.2 is out.\n") is None


def test_a_forum_showing_the_posters_name_beside_the_login_names_them():
    text = read("quillon-4.2-handle-forum.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Quillon 4.2 is out", "Mara Voss")
    assert features(text) == [("Tabbed notebooks", None, None), ("Ink pressure curves", None, None)]


def test_a_changelogs_category_tag_before_the_bold_name_leaves_the_labeled_items_its_features():
    text = read("quillon-4.2-tagged-changelog.md")
    # Only the labeled bold items are features; the parts holding unlabeled items only
    # ("Themes", the older release's "Quillon core") are categories, not features.
    assert features(text) == [
        ("Canvas: infinite scrolling", "beta", "Quillon core"),
        ("quillon-sync keeps notes offline", "preview", "Sync service"),
    ]


def test_a_heading_line_opening_with_the_breadcrumbs_last_step_is_the_title():
    text = read("quillon-4.2-crumbs.w3m.txt")
    summary = summarize(text)
    assert summary.title == "Quillon 4.2 trae pestañas"
    assert features(text) == [("Cuadernos en pestañas", None, "Novedades"),
                              ("Curvas de presión", "experimental", "Novedades")]


def test_a_count_running_on_across_parts_is_markup_and_one_parts_count_is_kept():
    text = read("quillon-4.2-counted.md")
    assert features(text) == [
        ("Pressure curves per pen", None, "Pens"),
        ("Tilt shading", "beta", "Pens"),
        ("Tabbed notebooks", None, "Notebooks"),
        ("Faster search", None, "Notebooks"),
    ]
    # Counted under one part only, the numbers may be the sub-parts' names: kept as written.
    one_part = ("# Q 4.2\n\nIntro.\n\n## Pens\n\n### 1. Faster ink\n\nA.\n\n### 2. Smaller files\n\nB.\n\n"
                "### 3. Dark paper\n\nC.\n")
    assert [heading for heading, _, _ in features(one_part)] == ["1. Faster ink", "2. Smaller files", "3. Dark paper"]


def test_a_line_ending_in_a_colon_over_a_run_of_heading_lines_is_their_section():
    text = read("quillon-4.2-grouped.mail.txt")
    assert features(text) == [
        ("Tabbed notebooks", None, "Changes since 4.1.3"),
        ("Pressure curves", None, "Changes since 4.1.3"),
        ("Quicker search", None, "Changes since 4.1.3"),
    ]


def test_lines_standing_over_the_lists_of_a_release_page_are_its_labeled_items_sections():
    text = read("quillon-4.2-release.github.txt")
    assert features(text) == [
        ("Tabbed notebooks", "beta", "Notebooks"),
        ("Plugin API v1", "deprecated", "Plugins"),
    ]


def test_closing_parts_named_by_a_verb_or_next_month_are_no_news():
    for closing in ("Descargar", "Aktualisieren", "Prossimo mese", "Next month"):
        text = (f"# Quillon 4.2\n\nQuillon 4.2 is out.\n\n## Tabbed notebooks\n\nNotebooks open as tabs.\n\n"
                f"## Pressure curves\n\nEach pen has a curve.\n\n## {closing}\n\nSee the website.\n")
        assert features(text) == [("Tabbed notebooks", None, None), ("Pressure curves", None, None)], closing
