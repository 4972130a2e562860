"""Shapes met in the thirty-second and thirty-third held-aside sets, on invented posts: a POD
"delta" document, a landing page set in one box per part whose headings end in a proposal's
link, paragraphs led by bold sentences, dumps whose header is a skip link, a menu row or a
breadcrumb, a release page and a mail whose highlights the usual cues miss, a forum thread
with dotted headers, notes standing before the summary part, parts counted "1.", "2.", "3.",
and closing parts and labels in a few more languages."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.from_pod import pod_as_markdown


def test_a_pod_document_reads_as_the_markup_it_stands_for():
    text = read("zorvane-3.2-delta.pod")
    summary = summarize(text)
    # The NAME section's line is the title; DESCRIPTION, the man page's part under it,
    # opens the post; interior sequences are markup ("C<match>" is code, "B<...>" bold).
    assert (summary.title, summary.format) == ("zorvanedelta - what changed in Zorvane 3.2", "text")
    assert features(text) == [
        ("The match statement", None, "New Features"),
        ("Faster string joins with join <=>", "experimental", "New Features"),
        ("[SEC-2026-07] Safer temporary files", None, "New Features"),
        ("The -X switch is gone", None, "Removals"),
    ]


def test_pod_markup_that_markdown_reads_is_escaped_and_deep_nesting_stays_text():
    markdown = pod_as_markdown("=head1 NAME\n\nx - y\n\n=head2 A *star* and L<the docs|https://a.example/>\n\n"
                               "1. not a list\n")
    assert "## A \\*star\\* and the docs" in markdown
    assert "1\\. not a list" in markdown
    # Sequences nested past what writers nest are left as text, not read pass after pass.
    deep = "=head2 " + "B<" * 10 + "x" + ">" * 10 + "\n"
    assert pod_as_markdown(deep).startswith("### " + "B\\<" * 6)


def test_summarizing_a_pod_document_is_linear_in_its_size():
    def make(parts: int) -> str:
        return "=head1 NAME\n\nz - notes\n\n" + "".join(
            f"=head2 Change C<{i}> with B<I<nested>> markup\n\nIt now does L<thing {i}|https://x.example/{i}>.\n\n"
            for i in range(parts * 40))

    assert_linear(summarize, make)


def test_a_pod_paragraph_of_wide_sequences_never_closed_is_read_in_linear_time():
    # Each "C<< " opens a sequence that no ">>" closes: none may search the rest of the paragraph.
    assert_linear(summarize, lambda k: "=head1 NAME\n\nz - notes\n\n=head2 Odd\n\n" + "C<< a " * (3000 * k) + "\n")


def test_a_page_set_in_one_box_per_part_is_read_whole():
    text = read("zorvane-3.2-landing.html")
    # The densest box is one part of several: the post is all of them. The headings drop the
    # link to the proposal behind each feature ("RFC"), and the before/after boxes caption
    # their code rather than head parts.
    assert features(text) == [
        ("The match statement", None, None),
        ("Safer temporary files", None, None),
        ("Faster string joins", None, None),
        ("Smaller changes", None, None),
    ]


def test_bold_sentences_leading_paragraphs_head_the_parts_of_a_post_without_headings():
    text = read("plimsoll-7.1-forum-raw.md")
    # Three or more in a row, no label needed; the reply's bold sentence mid-paragraph is not one.
    assert features(text) == [
        ("Offline installs from a local mirror", None, None),
        ("Signed lock files", None, None),
        ("Parallel builds of native extensions", None, None),
        ("Python 3.10 is no longer supported", None, None),
    ]


def test_bold_sentences_leading_paragraphs_under_headings_and_the_subtitle_of_a_newsletter():
    text = read("plimsoll-7.1-newsletter.html")
    summary = summarize(text)
    # The h3 under the title, ranked below the h2 parts, is its subtitle: the opening goes
    # on to the summary list. A bold sentence alone after a bold-led one is one more part.
    assert summary.summary_bullets == (
        "Instalações offline a partir de um espelho local",
        "Lock files com assinatura destacada",
        "Compilação paralela de extensões nativas",
    )
    assert features(text) == [
        ("Espelho local", None, "Instalação"),
        ("Lock files assinados", "beta", "Instalação"),
        ("O comando freeze", "deprecated", "Instalação"),
        ("Extensões em paralelo", None, "Compilação"),
        ("Cache de compilação partilhada", None, "Compilação"),
    ]


def test_a_dumps_title_under_a_menu_row_and_a_breadcrumb_ending_in_it():
    text = read("quillon-4.0-w3m.txt")
    summary = summarize(text)
    # The byline dates the post with an ordinal day ("March 3rd").
    assert (summary.title, summary.author) == ("Quillon Studio 4.0 adds a waveform view, presets and more",
                                               "Quillon Team")
    # A line led by an emoji heads its text whatever its words; a bare one right over the
    # closing part is one more feature, not that part's group.
    assert features(text) == [
        ("A waveform view for every track", None, None),
        ("Presets for effects", None, None),
        ("Quicker launches", None, None),
        ("Native packages for ARM64", None, None),
    ]


def test_a_dumps_title_under_a_skip_link_and_over_a_date_with_its_hour():
    text = read("quillon-4.0-lynx.txt")
    summary = summarize(text)
    assert summary.title == "Quillon Engine 4.0.0 released!"
    assert summary.summary_bullets == (
        "A new mixer core with 64-bit summing.",
        "Plugin sandboxing on every platform.",
        "Support for the ARM64 builds of all three desktop systems.",
    )
    assert features(text) == [("Sixty-four bit summing", None, "Mixer"), ("Plugin sandbox", "beta", "Mixer")]


def test_a_release_pages_highlights_under_its_emoji_led_release_name():
    text = read("quillon-4.0-release-page.txt")
    summary = summarize(text)
    assert summary.summary_bullets == (
        "the mixer sums in 64-bit floating point",
        "plugins run sandboxed in their own process",
        "presets can be shared as plain files",
    )
    # The release's name over the post's opening is no feature.
    assert features(text) == [("Sixty-four bit summing", None, "Mixer"), ("Plugin sandbox", "beta", "Plugins")]


def test_a_mails_new_in_list_is_its_highlights_even_of_categories():
    summary = summarize(read("quillon-4.0-announce.mail.txt"))
    assert summary.summary_bullets == ("Mixer:", "Plugins:", "Fixes:")
    assert summary.features == ()


def test_a_forum_thread_with_dotted_headers_between_rules():
    text = read("brackwater-2.3-forum.txt")
    summary = summarize(text)
    # The topic's title is the line the first paragraph past the salutation echoes.
    assert (summary.title, summary.author) == ("Brackwater Slicer 2.3 is out", "tessa_b")
    assert summary.summary_bullets == (
        "Painted supports you can draw on the model",
        "Faster slicing of models with many thin walls",
        "Fixed the crash when a project has no printer",
    )
    # Groups named in capitals: the line in mixed case over the next one ends the group above.
    # The replies' lists and "(experimental)" are not the post's.
    assert features(text) == [
        ("Painted supports", "beta", "NEW FEATURES"),
        ("Printer groups", None, "NEW FEATURES"),
        ("Per-layer fan overrides", None, "NEW FEATURES"),
        ("Thin wall detection", None, "SLICING IMPROVEMENTS"),
        ("Bridge flow ramp", "experimental", "SLICING IMPROVEMENTS"),
        ("Ironing for top surfaces of every printer", None, "SLICING IMPROVEMENTS"),
    ]


def test_notes_to_read_before_upgrading_stand_before_the_summary_part():
    text = read("brackwater-2.3-docs.html")
    assert summarize(text).summary_bullets == (
        "칠한 서포트를 정식으로 지원합니다",
        "얇은 벽 감지가 여섯 배 빨라졌습니다",
        "프린터 그룹으로 작업을 보낼 수 있습니다",
    )
    assert features(text) == [
        ("칠한 서포트", "experimental", "슬라이싱"),
        ("얇은 벽 감지 개선", None, "슬라이싱"),
        ("프린터 그룹", None, "프린터"),
    ]


def test_top_parts_counted_as_a_list_drop_their_numbers():
    assert features(read("brackwater-2.3-notes.rst")) == [
        ("Painted supports", None, None),
        ("Thin wall detection", None, None),
        ("Bridge flow ramp", "experimental", None),
    ]
    # Exercises for the reader and where to learn more close the post (Catalan).
    assert features(read("brackwater-2.3.ca.ipynb.md")) == [
        ("Suports pintats", "beta", None),
        ("Detecció de parets fines", None, None),
        ("L'ordre export-gcode", "deprecated", None),
    ]


def test_a_count_inside_one_part_keeps_its_numbers():
    assert features(read("brackwater-2.3-parts.md")) == [
        ("1. Painted supports", None, "New features"),
        ("2. Printer groups", None, "New features"),
        ("3. Per-layer fan overrides", None, "New features"),
        ("Thin wall detection", None, "Improvements"),
    ]


def test_labels_and_closing_parts_in_more_languages():
    # A Latin bracket glued to the name may hold a label in CJK script.
    assert features(read("quillon-4.0.ja.md")) == [
        ("64 ビット加算", None, "ミキサー"),
        ("[legacy_bus] の mono_sum", "deprecated", "ミキサー"),
    ]
    # A migration from the last version, the author's conclusions, getting a bare version.
    assert features(read("quillon-4.0.bg.md")) == [("Нов миксер", None, None), ("Изолирани плъгини", "beta", None)]
    assert features(read("plimsoll-7.1.it.md")) == [
        ("Installazioni offline", None, None),
        ("Lock file firmati", "experimental", None),
    ]
    assert features(read("plimsoll-7.1.md")) == [("Offline installs", None, None), ("Signed lock files", "beta", None)]


def test_a_dumps_line_in_title_case_heads_its_text_where_the_post_writes_headings_so():
    # "Automatic Nightly Cleanup" shares no word with its text; the post's headings are all
    # in title case, as a caption never is.
    assert features(read("brackwater-2.3-w3m.txt")) == [
        ("Painted Supports Drawn on the Model", None, "Brackwater Slicer 2.3"),
        ("Faster Thin Wall Detection", None, "Brackwater Slicer 2.3"),
        ("Shared Print Queue for Teams", None, "Brackwater Hub 1.4"),
        ("Automatic Nightly Cleanup", None, "Brackwater Hub 1.4"),
    ]


def test_a_release_pages_headline_under_its_byline_is_no_feature():
    # The headline names several changes at once, over the release's opening text.
    assert features(read("plimsoll-7.1-release-page.txt")) == [
        ("Offline installs from a mirror", None, None),
        ("Signed lock files", None, None),
    ]


def test_a_topics_dotted_byline_over_the_first_posts_header_is_not_the_first_post():
    text = read("quillon-4.0-discussion-w3m.txt")
    summary = summarize(text)
    # Nothing but a rule stands between the topic's byline and the first post's header: the
    # post starts under the header, and the reply under it is no part.
    assert (summary.title, summary.author) == ("Quillon Engine 4.0 is out", "ines-v")
    assert features(text) == [("A new mixer core", None, None), ("Sandboxed plugins", None, None)]


def test_a_rest_part_named_by_two_letters_is_underlined_by_two_marks():
    assert features(read("zorvane-3.2-notes.rst")) == [
        ("Vectored writes", None, "io"),
        ("Incremental marking", None, "gc"),
    ]


def test_a_heading_in_no_highlight_after_a_groups_first_feature_is_one_more_feature():
    # "Colour Theme Follows the System" names no highlight and stands over a labeled feature
    # that one names: under a group that has a feature already, it is another, no group.
    assert features(read("plimsoll-7.1-and-hub-2.0-w3m.txt")) == [
        ("Offline Installs from a Mirror", None, "Plimsoll 7.1"),
        ("Outdated Packages View", None, "Plimsoll Hub 2.0"),
        ("Colour Theme Follows the System", None, "Plimsoll Hub 2.0"),
        ("Package Details in a Side Panel", "preview", "Plimsoll Hub 2.0"),
    ]
