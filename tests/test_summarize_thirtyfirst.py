"""Shapes met in the thirty-first and thirty-fourth held-aside sets, on invented posts: a page
whose only feature heads are bold run-ins, a mail listing names over indented descriptions, a
phpBB topic, dumps titled above a breadcrumb or a date line, a release page named apart from
its tag with its highlights indented under a callout, a DokuWiki page, a changelog item whose
bold is its label alone, and closing parts in more languages."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_bold_run_in_heads_of_paragraphs_are_the_features_of_a_page_with_no_other():
    # None carries a label; the page's title heading and its sidebar do not stop them.
    assert features(read("garganey-4.0-blog.html")) == [
        ("Quicker imports", None, None),
        ("Calmer sync", None, None),
        ("Shared shelves", None, None),
        ("Keyboard-only tagging", None, None),
    ]


def test_a_mails_names_over_indented_descriptions_head_their_parts():
    text = read("garganey-4.0-announce.mail.txt")
    assert summarize(text).title == "Garganey 4.0 released"
    # Each name is a feature of the part it sits in, labeled or not; the upgrade's code
    # and the part over parts are not features.
    assert features(text) == [
        ("$gaQuietSync", None, "New settings"),
        ("$gaShelfSharing", "beta", "New settings"),
        ("$gaLegacyIndex", "deprecated", "Removed settings"),
        ("Keyboard-only tagging", None, "For readers"),
        ("Import progress window", None, "For readers"),
    ]


def test_a_phpbb_topic_is_its_first_post_titled_by_its_subject():
    text = read("garganey-4.0-phpbb-forum.txt")
    summary = summarize(text)
    # "Unread post by X » date" heads a post; the subject above it is the title, not the
    # forum's name, and the post's list is its summary.
    assert (summary.title, summary.author) == ("Garganey 4.0 is here", "tberg")
    assert summary.summary_bullets == (
        "Imports are three times quicker.",
        "Sync waits for a quiet moment before uploading.",
        "Shelves can be shared with groups.",
    )
    # A feature named and said no more of, right above the next group's name, stays a
    # feature of its group; the reply and its poster's block are not the post.
    assert features(text) == [
        ("Quicker imports", None, "Core changes"),
        ("Sync that waits for you", "beta", "Core changes"),
        ("Index format version 7", None, "Core changes"),
        ("Keyboard-only tagging", None, "Interface changes"),
        ("Shared shelves", None, "Interface changes"),
    ]


def test_a_dumps_title_is_above_its_breadcrumb_and_byline_or_above_its_date_line():
    # lynx: the centred title, then the breadcrumb, then the byline.
    lynx = summarize(read("garganey-4.0-lynx.txt"))
    assert (lynx.title, lynx.author) == ("Garganey 4.0: quicker imports and shelves you can share", "Ines Okafor")
    # w3m: the site's name, a menu row and a breadcrumb over the title and its date.
    assert summarize(read("garganey-4.0-w3m.txt")).title == "Garganey 4.0 Release Notes"


def test_a_release_page_named_apart_from_its_tag_with_highlights_under_a_callout():
    text = read("garganey-4.0-release-page.txt")
    summary = summarize(text)
    # The release's own name holds its tag; "Pre-release" is a badge.
    assert summary.title == "Garganey Nightly v4.0.1"
    # The indented lines under "Highlights" are a list whose markers the copy dropped; the
    # "Important" callout above does not end the post's opening.
    assert summary.summary_bullets == (
        "Shared shelves: share a shelf with a group",
        "The new import progress window",
        "Keyboard-only tagging (experimental)",
    )
    assert features(text) == [("Shared shelves", None, None), ("Import progress window", None, None)]


def test_a_dokuwiki_page_ranks_its_titles_by_more_marks_higher():
    text = read("garganey-2026-06.de.wiki.txt")
    assert summarize(text).title == "Neue Version: Garganey 4.0 „Schellente“"
    assert features(text) == [
        ("Schnellere Importe", None, "Neuerungen"),
        ("Geteilte Regale", "experimental", "Neuerungen"),
        ("Alter Index", "deprecated", "Für Administratoren"),
    ]


def test_a_changelog_items_bold_label_alone_labels_the_name_after_it():
    found = features(read("garganey-changelog.md"))
    assert ("sync.quiet-mode=idle", "experimental", "Added") in found
    # An unlabeled bold-led item and a plain one are no features.
    assert not any(heading in {"Shelf sharing", "Import progress window."} for heading, _, _ in found)


def test_donations_close_a_post():
    assert features(read("garganey-4.0.pt.md")) == [
        ("Importações mais rápidas", None, None),
        ("Estantes partilhadas", "beta", None),
    ]


def test_a_release_pages_emoji_led_lines_are_features_whatever_words_they_share():
    # One names no word of its text, one shares a word with the paragraph above (as a
    # caption would): an emoji leads each as the page leads its features. The assets close it.
    assert features(read("garganey-4.1-release-page.txt")) == [
        ("Shelf colours", None, "What's new"),
        ("Pocket edition", None, "What's new"),
        ("Reading trails", None, "What's new"),
    ]


def test_a_roundups_release_heading_with_a_line_of_its_own_groups_its_features():
    assert features(read("garganey-2026-07-roundup.md")) == [
        ("Shelf colours", None, "Garganey 4.1"),
        ("Reading trails", None, "Garganey 4.1"),
        ("Sorting by date in shared shelves", None, "Garganey 4.1.1"),
    ]


def test_a_changelogs_dated_release_numbers_and_its_fixes_part_are_no_features():
    assert features(read("garganey-changelog-details.md")) == [("Shelf colours [4.1]", None, "Recent highlights")]


def test_a_dumps_heading_right_under_a_group_line_is_its_first_feature():
    # "Query API v2" is in no highlight while the labeled line after it shares a word with
    # one ("without"): right under the group's line, it is still that group's feature.
    assert features(read("garganey-4.2-w3m.txt"))[-2:] == [
        ("Query API v2", None, "Developers"),
        ("Template macro without escaping", "deprecated", "Developers"),
    ]


def test_named_items_indented_lists_and_runs_of_lone_lines_are_read_in_linear_time():
    # Past the first pages, which a post's shape and language are told from: a smaller post
    # costs less a byte, and its ratio would measure that rather than the growth.
    mail = "== Settings ==\n\n" + "".join(f"* $gaSetting{i}\n  What setting {i} does.\n\n" for i in range(600))
    dump = "Garganey 4.0\n\nIt is out.\n\n" + "".join(
        f"Feature number {i} here\nIts text.\n\nQuiet line number {i} here\n\nGroup {i}\n\n"
        f"Next feature {i} here\nMore text.\n\n    First item {i}\n    Second item {i}\n\n" for i in range(100))
    assert_linear(summarize, lambda k: mail * k)
    assert_linear(summarize, lambda k: dump * k)


def test_a_dumps_heading_glued_to_a_paragraph_ending_in_flush_code_is_cut_from_it():
    assert features(read("garganey-4.3-w3m.txt")) == [
        ("Shelf folders", "experimental", "Shelves"),
        ("Quicker search", None, "Shelves"),
        ("Nested labels", None, "Shelves"),
    ]


def test_a_devanagari_run_in_head_ends_in_a_danda_which_the_feature_drops():
    assert features(read("garganey-4.0.hi.html")) == [
        ("साझा अलमारियाँ", "beta", "पढ़ना"),
        ("तेज़ आयात", None, "पढ़ना"),
        ("पुराना सूचकांक", "deprecated", "पढ़ना"),
    ]
