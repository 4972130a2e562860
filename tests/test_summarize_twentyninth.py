"""Shapes met in the twenty-ninth and thirtieth held-aside sets, on invented posts: closing
parts named in more languages (the release notes elsewhere, learning more, a notebook's
exercises, the author's opinion), a project's two-word name in "Get ... now", a text
dump's link to the post before drawn with an angle bracket, and a dump's menu row set apart
by spaces over its title, with a byline naming the post's tags; a mail that hangs its
features' text under their names, naming some with no text or over code alone; a release
page's copy whose group names open with an emoji; a heading with an arrow between two
words; a discussion whose posts' headers say what the poster did on the date; an MDX
post's numbered headings with an emoji after the number and a label in a "<Tag>"."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_notebooks_opinion_exercises_and_reading_close_it():
    assert features(read("petrel-4.0.pt.notebook.md")) == [
        ("Consultas paralelas", None, None),
        ("Índices parciais", "preview", None),
    ]


def test_a_docs_pages_pointer_to_its_release_notes_is_no_feature_and_an_arrow_between_words_no_link():
    # An arrow between two words maps one to the other; only one set apart points elsewhere.
    assert features(read("petrel-4.0.it.docs.html")) == [
        ("Consultazioni parallele", None, None),
        ("Conversione CSV→Parquet", None, None),
    ]


def test_a_dumps_link_to_the_post_before_and_its_getting_part_are_no_features():
    text = read("petrel-4.0-lynx.txt")
    assert summarize(text).title == "Petrel Server 4.0 released"
    # "[6]< Petrel Server 3.9 released": lynx's link number and an angle bracket pointing
    # back; "Get Petrel Server 4.0 now" names the project in two words.
    assert features(text) == [
        ("Parallel queries", None, None),
        ("Partial indexes", "preview", None),
    ]


def test_a_dumps_menu_row_of_spaced_entries_is_no_title_and_a_tagged_byline_names_the_author():
    text = read("petrel-4.1-w3m.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Petrel 4.1 is released!", "Ana Souza")
    assert features(text) == [
        ("Parallel vacuum", None, None),
        ("Compressed backups", "beta", None),
    ]


def test_a_mails_feature_names_with_no_text_or_over_code_alone_are_features_beside_the_hanging_ones():
    # Once the mail hangs features' text under their names, a name alone at the margin is
    # one more feature, in the next part too; the upgrade's command and the thanks are not.
    assert features(read("petrel-4.2-announce.mail.txt")) == [
        ("Parallel vacuum", None, "New in 4.2"),
        ("Compressed backups", "beta", "New in 4.2"),
        ("Logical replication slots", "experimental", "New in 4.2"),
        ("Read-only replicas", None, "New in 4.2"),
        ("Query hints", "preview", "New in 4.2"),
        ("Legacy text protocol", "deprecated", "Removed"),
    ]


def test_a_release_pages_group_names_led_by_an_emoji_group_and_no_feature_groups_them():
    # "✨ New features" is a group's name under "Changelog"; the bare names right above the
    # next group's name ("⚠️ Deprecations") are features, not groups of it.
    assert features(read("petrel-4.3-release-page.txt")) == [
        ("Parallel vacuum", None, "New features"),
        ("Compressed backups", "beta", "New features"),
        ("Query hints", "preview", "New features"),
        ("Faster restores", None, "Improvements"),
        ("Smaller write-ahead log", None, "Improvements"),
        ("Legacy text protocol", "deprecated", "Deprecations"),
    ]


def test_a_discussions_reply_headed_by_what_its_poster_did_on_the_date_is_no_part_of_the_post():
    # "mheron  commented Nov 4, 2026  Collaborator" opens a reply: the post ends above it.
    text = read("petrel-5.0-discussion-w3m.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Petrel 5.0 is out, with a new planner", "asouza")
    assert features(text) == [
        ("A new query planner", None, None),
        ("Parallel vacuum", None, None),
    ]


def test_an_mdx_posts_tag_component_labels_its_heading_and_an_emoji_after_a_number_is_decoration():
    # The number stays, as a numbered part's name keeps it; the emoji after it goes.
    assert features(read("petrel-6.0.mdx")) == [
        ("1. Columnar storage", "preview", None),
        ("2. Faster joins", None, None),
        ("3. Async replication", None, None),
    ]
