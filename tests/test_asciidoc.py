"""AsciiDoc posts (as Asciidoctor-based sites publish them): how they are told from other
text, the outline they are read into, and what the summarizer makes of them.

The fixture post, tests/fixtures/asciidoc/tidewater-4.0.adoc, is a release announcement of
an invented project written the way Asciidoctor users write: a header with an author and a
revision line, attribute entries, a highlights list under a block title, labeled feature
sections, a source block with `#` comments, an admonition and a table.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.linear import assert_linear
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsletter.models import Feature
from newsletter.summarize import summarize
from newsletter.text.from_asciidoc import read_asciidoc
from newsletter.text.outline import Code, Heading, ListBlock, ListItem, Paragraph
from newsletter.text.parse import parse
from newsletter.text.sniff import sniff_format

FIXTURE = Path(__file__).parent / "fixtures" / "asciidoc" / "tidewater-4.0.adoc"
POST = FIXTURE.read_text(encoding="utf-8")


def blocks(text: str, base_url: str | None = None) -> tuple:
    return read_asciidoc(text, base_url).blocks


def headings(text: str) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in blocks(text) if isinstance(b, Heading)]


# -- the release post, summarized -----------------------------------------------------------


def test_the_post_is_read_as_asciidoc():
    assert sniff_format(POST) == "asciidoc"
    assert summarize(POST).format == "asciidoc"


def test_title_author_date_and_language_come_from_the_header():
    summary = summarize(POST)
    assert summary.title == "Tidewater 4.0: streaming queries and a new storage engine"
    # The author line may name several authors; their email addresses are left out.
    assert summary.author == "Ines Carvalho, Bram Okonkwo"
    # From the revision line, "v4.0, 2026-10-14".
    assert summary.published == datetime(2026, 10, 14, tzinfo=UTC)
    assert summary.language == "en"


def test_the_highlights_list_under_its_block_title_is_the_summary():
    assert summarize(POST).summary_bullets == (
        "Streaming queries that update their results as rows arrive",
        "A rewritten storage engine, with tiered compaction",
        "tw migrate upgrades a 3.x data directory in place",
        "The query planner is 40% faster on wide tables",
    )


def test_labeled_sections_and_a_bold_lead_are_features_with_their_section():
    assert summarize(POST).features == (
        Feature("Streaming queries", "beta", "Queries"),
        Feature("Window functions", "stable", "Queries"),
        Feature("Tiered compaction", "experimental", "Storage"),
        # "*(Deprecated) The v1 segment format* - ...": a bold lead, as "**...**" in Markdown.
        Feature("The v1 segment format", "deprecated", "Storage"),
    )


def test_links_keep_their_targets_with_attribute_references_resolved():
    assert summarize(POST).links == (
        "https://code.example.org/tidewater/tidewater",
        "https://tidewater.example.org/docs/4.0/storage.html",
        "https://tidewater.example.org/docs/4.0/upgrading.html",
    )


def test_comments_in_the_source_block_stay_code():
    document = parse(POST)
    [code] = [b for b in document.blocks if isinstance(b, Code)]
    assert code.text.startswith("# Connect to a local server\n# (the default port is 7020)\n")
    assert all("Connect" not in b.text for b in document.blocks if isinstance(b, Heading))


def test_the_table_and_the_comment_block_are_left_out():
    text = " ".join(b.text for b in parse(POST).blocks if isinstance(b, (Paragraph, Heading)))
    assert "compaction.tiers" not in text and "TODO" not in text


# -- sniffing -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "= Release 2.0\n\nJust a paragraph.\n",
    ":toc:\n// a comment\n= Release 2.0\n\nText.\n",
    "== Changes\n\nText.\n\n== Fixes\n\nText.\n",
    "Intro.\n\n[source,python]\n----\nrun()\n----\n\nSee link:https://example.org[the docs].\n",
    "Read https://example.org/guide[the guide] and <<install,Installing>>.\n",
])
def test_asciidoc_is_told_from_its_content(text):
    assert sniff_format(text) == "asciidoc"


def test_markdown_with_setext_headings_is_not_asciidoc():
    text = ("Release 2.0\n===========\n\nIt comes with **speed**.\n\nChanges\n-------\n\n"
            "- faster [planner](https://example.org/planner)\n- fewer bugs\n\n=====\n")
    assert sniff_format(text) == "markdown"


def test_rest_with_over_and_underlined_titles_is_not_asciidoc():
    text = ("==========\nKiln 3.1\n==========\n\n:Author: The Kiln team\n:Date: 2024-01-01\n\n"
            "New features\n============\n\n.. note::\n\n   Read this.\n\nExample::\n\n    kiln run\n")
    assert sniff_format(text) == "text"


def test_markdown_showing_asciidoc_in_a_fence_is_not_asciidoc():
    text = ("# Docgen 2.0\n\nIt reads AsciiDoc now:\n\n```asciidoc\n= Title\n\n== Part\n\n"
            "[source,python]\n----\nrun()\n----\n```\n\n- faster\n")
    assert sniff_format(text) == "markdown"


def test_a_scrape_with_code_comments_is_not_asciidoc():
    scrape = "Intro.\n\n// set up the client\n.connect(host)\n\nMore text.\n"
    assert sniff_format(scrape) == "text"


def test_the_file_name_plays_no_part():
    # Only the content is read: a Markdown post is Markdown whatever it was called.
    assert sniff_format("# Title\n\n- item with a [link](https://example.org)\n") == "markdown"


# -- the outline --------------------------------------------------------------------------


def test_document_title_is_a_level_1_heading_and_the_declared_title():
    document = read_asciidoc("= Osprey 1.2\n\nText.\n\n== Part\n\n=== Feature\n\n====== Deep\n")
    assert document.meta["title"] == "Osprey 1.2"
    assert headings("= Osprey 1.2\n\nText.\n\n== Part\n\n=== Feature\n\n====== Deep\n") == [
        (1, "Osprey 1.2"), (2, "Part"), (3, "Feature"), (6, "Deep")]


def test_markdown_style_and_symmetric_section_titles():
    assert headings("# Title\n\n## Part ##\n\n=== Feature ===\n") == [(1, "Title"), (2, "Part"), (3, "Feature")]


def test_attributes_give_author_date_language_when_there_is_no_author_line():
    document = read_asciidoc("= T\n:author: Jo Park\n:revdate: 2026-02-03\n:lang: de\n\nText.\n")
    assert document.meta == {"title": "T", "author": "Jo Park", "date": "2026-02-03", "language": "de"}


def test_a_line_of_prose_under_the_title_is_not_an_author():
    document = read_asciidoc("= T\nThis release is big, and it is here.\n\nText.\n")
    assert "author" not in document.meta


def test_block_title_is_a_caption_not_a_heading():
    assert blocks(".Example run\n----\nrun()\n----\n") == (Paragraph("Example run"), Code("run()"))
    assert headings(".Example run\n----\nrun()\n----\n") == []


def test_code_in_delimited_blocks_never_becomes_a_heading():
    text = ("== Real\n\n----\n== not a heading\n# nor this\n----\n\n....\n= literal\n....\n\n"
            "```ruby\n## fenced\n```\n\n[source,sh]\n# a source paragraph\n")
    assert headings(text) == [(2, "Real")]
    assert [b.text for b in blocks(text) if isinstance(b, Code)] == [
        "== not a heading\n# nor this", "= literal", "## fenced", "# a source paragraph"]


def test_an_open_block_styled_as_source_is_code():
    assert blocks("[source,python]\n--\n# not a heading\n--\n\n[comment]\n--\nHidden.\n--\n") == (
        Code("# not a heading"),)


def test_an_unclosed_listing_runs_to_the_end():
    assert blocks("Text.\n\n----\n== code\n") == (Paragraph("Text."), Code("== code"))


def test_an_indented_paragraph_is_literal_text():
    assert blocks("Run it:\n\n  tw serve --port 7020\n  tw status\n") == (
        Paragraph("Run it:"), Code("tw serve --port 7020\ntw status"))


def test_lists_nest_by_marker():
    [block] = blocks("* one\n** one.a\n*** one.a.i\n* two\n- dash under two\n")
    assert block == ListBlock((
        ListItem("one", children=(ListItem("one.a", children=(ListItem("one.a.i"),)),)),
        ListItem("two", children=(ListItem("dash under two"),)),
    ))


def test_ordered_lists_and_blank_lines_between_items():
    [block] = blocks(". first\n.. first, nested\n\n. second\n")
    assert block.ordered and [item.text for item in block.items] == ["first", "second"]
    [numbered] = blocks("1. first\n2. second\n")
    assert numbered.ordered and len(numbered.items) == 2


def test_list_item_text_continues_and_joins_attached_blocks():
    text = "* first line\n  continues here\n+\nAn attached paragraph.\n+\n----\ncode()\n----\n* next\n"
    [block] = blocks(text)
    # Attached code is left out of the item, as the HTML reader leaves out <pre> in <li>.
    assert [item.text for item in block.items] == ["first line continues here An attached paragraph.", "next"]


def test_checklist_boxes_are_not_text():
    [block] = blocks("* [x] done\n* [ ] to do\n")
    assert [item.text for item in block.items] == ["done", "to do"]


def test_description_list_terms_are_leads():
    [block] = blocks("(Beta) Joins:: Join two streams.\nCompaction::\n  Runs nightly.\n")
    assert block.items == (
        ListItem("(Beta) Joins: Join two streams.", "(Beta) Joins"),
        ListItem("Compaction: Runs nightly.", "Compaction"),
    )


def test_a_labeled_description_term_is_a_feature():
    text = "= T\n\n== New\n\nIntro.\n\n(Beta) Joins:: Join two streams.\n"
    assert Feature("Joins", "beta", "New") in summarize(text).features


def test_quote_example_and_sidebar_blocks_hold_blocks():
    text = "____\nQuoted *text*.\n____\n\n====\n=== Inside an example\n\n* item\n====\n\n****\nAside.\n****\n"
    assert blocks(text) == (
        Paragraph("Quoted text."), Heading(3, "Inside an example"), ListBlock((ListItem("item"),)),
        Paragraph("Aside."))


def test_markdown_style_quotes_are_read_as_quotes():
    assert blocks("> Quoted *text*\n> over two lines.\n\nAfter.\n") == (
        Paragraph("Quoted text over two lines."), Paragraph("After."))


def test_admonitions_name_their_kind():
    assert blocks("NOTE: Back up first.\n\n[TIP]\n====\nUse a copy.\n====\n") == (
        Paragraph("Note: Back up first."), Paragraph("Tip: Use a copy."))


def test_passthrough_html_is_read_as_html():
    text = "++++\n<h3>From HTML</h3>\n<p>A <a href=\"https://example.org/x\">link</a>.</p>\n++++\n"
    assert blocks(text) == (Heading(3, "From HTML", ()), Paragraph("A link.", None, ("https://example.org/x",)))


def test_tables_and_their_titles_are_skipped_as_the_html_reader_skips_tables():
    assert blocks(".Settings\n|===\n|a |b\n|===\n\nAfter.\n") == (Paragraph("After."),)


def test_comments_are_skipped():
    assert blocks("// a line comment\nText.\n// inside\nmore.\n\n////\nA block.\n////\n") == (
        Paragraph("Text. more."),)


def test_preprocessor_lines_go_and_the_text_they_guard_stays():
    text = ("ifdef::env-site[]\nShown on the site.\nendif::[]\ninclude::footer.adoc[]\n\n"
            "----\ninclude::x.py[]\nrun()\n----\n")
    assert blocks(text) == (Paragraph("Shown on the site."), Code("run()"))


def test_attribute_references_are_substituted():
    text = ":project: Tidewater\n:url: https://example.org\n\n{project} 4.0 at {url}[home]; {unknown} stays.{nbsp}\n"
    assert blocks(text) == (Paragraph("Tidewater 4.0 at home; {unknown} stays.", None, ("https://example.org",)),)


def test_attribute_entries_can_be_unset_and_continued():
    text = ":a: one \\\ntwo\n:b: x\n:b!:\n\n{a} {b}\n"
    assert blocks(text) == (Paragraph("one two {b}"),)


def test_nested_attribute_references_do_not_grow_without_bound():
    entries = ":a0: xxxxxxxxxx\n" + "".join(f":a{i + 1}: {{a{i}}}{{a{i}}}\n" for i in range(40))
    [paragraph] = blocks(entries + "\n{a40}\n")
    assert len(paragraph.text) < 1_000_000


@pytest.mark.parametrize(("source", "text", "lead"), [
    ("*(Beta) Feature name* - text", "(Beta) Feature name - text", "(Beta) Feature name"),
    ("**Bold**ly done", "Boldly done", "Bold"),
    ("_*(Alpha) X*_ text", "(Alpha) X text", "(Alpha) X"),
    ("Text with *bold* inside", "Text with bold inside", None),
    ("`mono`, _italic_, #mark#, H~2~O, x^2^", "mono, italic, mark, H2O, x2", None),
    ("Press kbd:[Ctrl+C] or btn:[Save], then menu:File[Export > PDF].",
     "Press Ctrl+C or Save, then File > Export > PDF.", None),
    ("A sentence.footnote:[A note.] Next.", "A sentence. Next.", None),
    ("See <<setup,the setup>>, <<_getting_started>> and xref:guide.adoc#x[the guide].",
     "See the setup, getting started and the guide.", None),
    ("Literal `+*stars*+` and pass:[<b>raw</b>] and \\*escaped*.",
     "Literal *stars* and <b>raw</b> and *escaped*.", None),
    ("2*3*4 and snake_case_name stay", "2*3*4 and snake_case_name stay", None),
])
def test_inline_markup_is_stripped_to_plain_text(source, text, lead):
    assert blocks(source) == (Paragraph(text, lead),)


def test_link_targets_are_kept_relative_ones_resolved_against_the_post():
    [paragraph] = blocks("See link:docs/x.html[the docs^], https://example.org/a_b_c and mailto:a@b.org[mail].",
                         base_url="https://blog.example.org/posts/")
    assert paragraph.text == "See the docs, https://example.org/a_b_c and mail."
    assert paragraph.urls == ("https://blog.example.org/posts/docs/x.html", "https://example.org/a_b_c")


def test_bold_lead_of_a_list_item():
    [block] = blocks("* *(Preview) Vulkan backend* - behind a flag.\n")
    assert block.items[0].lead == "(Preview) Vulkan backend"


def test_front_matter_above_asciidoc_is_read_too():
    document = parse("---\ntitle: From front matter\n---\n= T\n\n== Part\n\nText.\n")
    assert document.format == "asciidoc" and document.meta["title"] == "From front matter"


# -- robustness ---------------------------------------------------------------------------

ASCIIDOC_LINES = st.one_of(
    st.sampled_from([
        "= Title", "== Part", "=== (Beta) X", "####### deep", "----", "....", "++++", "____", "====", "****",
        "--", "////", "|===", "```", "```python", "+", "[source,python]", "[NOTE]", "[[id]]", "[", "]", "[]",
        ".Title", ". item", ".. item", "* item", "** item", "- item", "1. item", "a. item", "i) item",
        "Term:: text", "Term::", "Term;;", ":a: {a}{a}", ":b: value \\", ":c!:", "{a}", "NOTE: x",
        "image::x.png[]", "<p>html</p>", "  indented", "// comment", "'''", "\t", "",
        "*bold* _em_ `mono` link:x[y] https://e.org[z] <<a,b>> footnote:[n] kbd:[k] \\*",
        "*(Beta) X* - y", "+++x+++ pass:[y] ((t)) (((h))) [[a]] [.r]#m#",
    ]),
    st.text(max_size=30),
)
ASCIIDOC_POST = st.lists(ASCIIDOC_LINES, max_size=80).map("\n".join)
EXAMPLES = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@given(st.one_of(ASCIIDOC_POST, st.text(max_size=2000)), st.sampled_from([None, "https://example.org/p/", "x"]))
@EXAMPLES
def test_any_text_forced_through_the_asciidoc_reader_gives_an_outline(text, base_url):
    document = read_asciidoc(text, base_url)
    assert document.format == "asciidoc" and isinstance(document.blocks, tuple)


@given(ASCIIDOC_POST)
@EXAMPLES
def test_any_asciidoc_like_post_is_summarized(text):
    summary = summarize(text)
    assert summary.format in ("asciidoc", "markdown", "html", "text")
    assert all(feature.heading.strip() for feature in summary.features)


# Units that, repeated, make a post hard for a careless reader: unclosed inline markup,
# macros and references, and lines that open lists, blocks and attachments.
HOSTILE = [
    "*a ", "_a ", "`a ", "**a", "link:x[", "https://x", "((", "<<a", "kbd:[", "{a}",
    "* a\n", "a:: b\n", "+\n", ".t\n", "  x\n", ":a: {a}{a}\n", "* a\n+\n====\n", "a::\n+\n", "____\n* a\n",
]


@pytest.mark.parametrize("unit", HOSTILE)
def test_a_hostile_post_is_read_in_time_linear_in_its_size(unit):
    assert_linear(read_asciidoc, lambda k: unit * (50_000 * k // len(unit)))
