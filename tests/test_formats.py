from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsletter.text.encoding import decode
from newsletter.text.front_matter import split_front_matter
from newsletter.text.outline import Code, Heading, ListBlock, Paragraph
from newsletter.text.parse import parse
from newsletter.text.sniff import sniff_format

POSTS = Path(__file__).parent / "fixtures" / "posts"


def headings(text: str, media_type: str | None = None) -> list[tuple[int, str]]:
    return [(b.level, b.text) for b in parse(text, media_type).blocks if isinstance(b, Heading)]


# decode


def test_decode_utf8_bom_is_dropped():
    assert decode("\ufeffRelease".encode("utf-8")) == "Release"


def test_decode_utf16_bom():
    assert decode("Versión 2".encode("utf-16")) == "Versión 2"


def test_decode_declared_charset_wins():
    assert decode("Größe".encode("latin-1"), charset="iso-8859-1") == "Größe"


def test_decode_html_meta_charset():
    data = '<html><head><meta charset="windows-1251"></head><body>Выпуск</body></html>'.encode("cp1251")
    assert "Выпуск" in decode(data)


def test_decode_detects_undeclared_legacy_encoding():
    text = "Это новый выпуск нашей библиотеки с множеством улучшений и исправлений. " * 5
    assert decode(text.encode("cp1251")) == text


def test_decode_unknown_declared_charset_falls_through():
    assert decode(b"plain", charset="no-such-charset") == "plain"


@given(st.binary(max_size=2000))
@settings(max_examples=100, deadline=None)
def test_decode_never_raises(data):
    assert isinstance(decode(data), str)


# front matter


def test_yaml_front_matter():
    meta, body, _problem = split_front_matter("---\ntitle: Hello\n---\nBody\n")
    assert meta == {"title": "Hello"} and body == "Body\n"


def test_toml_front_matter():
    meta, body, _problem = split_front_matter('+++\ntitle = "Hello"\n+++\nBody')
    assert meta == {"title": "Hello"} and body == "Body"


@pytest.mark.parametrize("text", [
    "---\ntitle: [unclosed\n---\nBody",
    "---\n- a list\n- not a mapping\n---\nBody",
    "+++\ntitle = \n+++\nBody",
    "---\nJust a scalar\n---\nBody",
])
def test_broken_or_non_mapping_front_matter_is_no_front_matter(text):
    meta, body, problem = split_front_matter(text)
    assert (meta, body) == ({}, text) and problem


def test_front_matter_feeds_document_meta():
    document = parse("---\ntitle: T\nauthor: A\ndate: 2024-01-02\nlang: de\n---\n# T\n\nText")
    assert document.meta == {"title": "T", "author": "A", "date": "2024-01-02", "language": "de"}


# sniffing


def test_markdown_in_a_txt_file_is_markdown():
    assert sniff_format("# Release\n\nText with a [link](https://example.org).") == "markdown"


def test_scrape_with_code_comments_is_text():
    scrape = "Intro paragraph.\n\nHeading\n\nMore text.\n\n# a comment from code\nx = 1\n\n# another\n"
    assert sniff_format(scrape) == "text"


def test_html_page_is_html():
    assert sniff_format("<!DOCTYPE html><html><body><p>x</p></body></html>") == "html"


def test_html_fragment_is_html():
    assert sniff_format("<p>First</p><p>Second</p>") == "html"


def test_wrong_media_type_does_not_make_markdown_html():
    assert sniff_format("# Title\n\n- item\n", media_type="text/html") == "markdown"


# markdown -> outline


def test_atx_and_setext_headings():
    text = "Part\n====\n\nText.\n\n## Feature\n\nMore text, with **bold**.\n\nOther\n-----\n\nEnd."
    assert headings(text) == [(1, "Part"), (2, "Feature"), (2, "Other")]


def test_comment_in_fenced_code_is_not_a_heading():
    text = "# Title\n\n```python\n# comment\nx = 1\n```\n\n## Real\n\nText."
    assert headings(text) == [(1, "Title"), (2, "Real")]


def test_comment_in_indented_code_is_not_a_heading():
    text = "# Title\n\nText:\n\n    # comment\n    run()\n\n## Real\n\nText."
    assert headings(text) == [(1, "Title"), (2, "Real")]


def test_comment_in_unterminated_fence_is_not_a_heading():
    assert headings("# Title\n\n```\n# comment\n## another\n") == [(1, "Title")]


def test_fence_with_prose_info_string_is_still_code():
    text = "# Title\n\n```Demonstration of a run.\n# comment\n```\n\n## Real\n\nText."
    assert headings(text) == [(1, "Title"), (2, "Real")]


def test_list_right_under_a_paragraph_line():
    blocks = parse("# T\n\nSummary:\n- one\n- two\n").blocks
    assert isinstance(blocks[-1], ListBlock)
    assert [item.text for item in blocks[-1].items] == ["one", "two"]


def test_nested_items_stay_under_their_parent():
    blocks = parse("# T\n\n- one\n    - one a\n- two\n").blocks
    items = blocks[-1].items
    assert [i.text for i in items] == ["one", "two"] and items[0].children[0].text == "one a"


def test_items_indented_to_their_parent_text_nest_as_in_commonmark():
    text = "# T\n\n1. one, with:\n   - one a;\n   - one b\n\n   more of one\n\n2. two\n"
    items = parse(text).blocks[-1].items
    assert [i.text for i in items] == ["one, with: more of one", "two"]
    assert [c.text for c in items[0].children] == ["one a;", "one b"]


def test_bold_lead_of_paragraph_and_loose_list_item():
    blocks = parse("# T\n\n**Lead** - rest\n\n* **(Beta) Item** - text\n\n* other\n").blocks
    paragraph, listing = blocks[1], blocks[2]
    assert paragraph.lead == "Lead" and paragraph.text == "Lead - rest"
    assert listing.items[0].lead == "(Beta) Item"


def test_bold_italic_paragraph_lead():
    paragraph = parse("# T\n\n***(Prototype) X*** - text\n").blocks[1]
    assert paragraph.lead == "(Prototype) X"


def test_raw_html_heading_inside_markdown():
    assert (3, "Raw heading") in headings("# T\n\nText.\n\n<h3>Raw heading</h3>\n\nMore.\n")


def test_raw_html_block_list_is_a_list_and_markdown_after_it_is_read():
    blocks = parse("# T\n\n<ul>\n<li>First</li>\n<li>Second</li>\n</ul>\n\n## After {#after}\n\nText.\n").blocks
    assert isinstance(blocks[1], ListBlock) and [item.text for item in blocks[1].items] == ["First", "Second"]
    assert (2, "After") in [(b.level, b.text) for b in blocks if isinstance(b, Heading)]


def test_hash_title_without_space_is_a_heading_outside_code_only():
    text = "#Release 2.0\n\nIntro, [notes](https://example.org/notes).\n\n##New engine\n\nText.\n\n```\n#not_a_heading\n```\n"
    assert headings(text) == [(1, "Release 2.0"), (2, "New engine")]


def test_code_block_is_code():
    blocks = parse("# T\n\n```\nprint(1)\n```\n").blocks
    assert isinstance(blocks[1], Code) and "print(1)" in blocks[1].text


def test_links_are_absolute_deduplicated_and_in_order():
    text = ("# T\n\n[a](https://a.example/x) then https://b.example/y, [again](https://a.example/x) "
            "and [relative](/docs).\n\n```\nhttps://code.example/ignored\n```\n")
    assert parse(text).links == ("https://a.example/x", "https://b.example/y")


def test_relative_links_resolve_against_the_post_url():
    document = parse("# T\n\nSee [docs](/docs).", base_url="https://site.example/blog/post")
    assert document.links == ("https://site.example/docs",)


# HTML pages


def test_page_drops_navigation_sidebar_toc_footer_and_scripts():
    document = parse((POSTS / "orbit-1.3.html").read_text())
    texts = [b.text for b in document.blocks if isinstance(b, (Heading, Paragraph))]
    assert "Orbit 1.3 released" in texts and "[Beta] Priority queues" in texts
    for chrome in ("Recent posts", "Contents", "About", "Orbit is a job runner.", "Cron jobs per minute"):
        assert chrome not in texts
    assert not any("not a heading" in t for t in texts)


def test_page_meta():
    meta = parse((POSTS / "orbit-1.3.html").read_text()).meta
    assert meta["title"] == "Orbit 1.3 released"
    assert meta["author"] == "Mira Okafor"
    assert meta["canonical_url"] == "https://orbit.example.com/blog/orbit-1-3/"
    assert meta["date"] == "2024-02-10T09:30:00Z"
    assert meta["language"] == "en-GB"


def test_page_without_article_uses_densest_block():
    page = ("<html><body><div class='menu'><p>Home</p></div><div><p>" + "Long text. " * 30
            + "</p><h2>Feature</h2><p>" + "More. " * 30 + "</p></div><div><p>Short</p></div></body></html>")
    document = parse(page)
    assert [b.text for b in document.blocks if isinstance(b, Heading)] == ["Feature"]
    assert all(b.text != "Home" for b in document.blocks if isinstance(b, Paragraph))


# plain text


def test_scrape_heading_lines_from_layout():
    document = parse((POSTS / "tessera-5.0.txt").read_text())
    assert [(b.level, b.text) for b in document.blocks if isinstance(b, Heading)] == [
        (2, "By Jun Park"), (1, "Performance"), (2, "Parallel tile decoding"), (2, "(Beta) Offline mode"),
        (1, "Styling"), (2, "Vector styles [Stable]"),
    ]


def test_scrape_bullets_nest_by_indentation():
    listing = next(b for b in parse((POSTS / "tessera-5.0.txt").read_text()).blocks if isinstance(b, ListBlock))
    assert [i.text for i in listing.items] == ["Tiles load twice as fast", "A new offline mode", "Vector styles are stable"]
    assert listing.items[1].children[0].text == "works in all browsers"


def test_scrape_code_lines_are_not_headings():
    text = "Intro.\n\nm = Model()\n\n# Load the weights.\nw = load()\n\nFeature name\n\nA paragraph of prose."
    assert [b.text for b in parse(text).blocks if isinstance(b, Heading)] == ["Feature name"]


def test_scrape_sentence_and_last_line_are_not_headings():
    text = "Intro.\n\nThis ends with a period.\n\nMore text here.\n\nCheers!\n\nThe Team"
    assert not [b for b in parse(text).blocks if isinstance(b, Heading)]


def test_rest_underlined_and_overlined_headings():
    document = parse((POSTS / "kiln-3.1.rst").read_text())
    assert [(b.level, b.text) for b in document.blocks if isinstance(b, Heading)] == [
        (1, "Kiln 3.1 release notes"), (2, "Builds"), (3, "Remote execution (Experimental)"),
        (3, "Sandboxing"), (2, "Caching"), (3, "Content-addressed cache [Stable]"),
    ]


# robustness


@pytest.mark.parametrize("text", [
    "",
    "\x00\x01<html>\x00",
    "# T\n\n" + "\n".join("    " * depth + "- item" for depth in range(2000)),
    "\n".join(" " * depth + "• item" for depth in range(2000)),
    "<html><body>" + "<div>" * 3000 + "<p>deep</p>",
    "# T\n\n" + "[" * 20000 + "]" * 20000,
    "# T\n\n" + "\n".join(">" * depth + " quote" for depth in range(1500)),
    "x" * 1_000_000,
])
def test_parse_never_raises(text):
    parse(text)


@given(st.text(max_size=3000))
@settings(max_examples=200, deadline=None)
def test_parse_never_raises_on_any_text(text):
    parse(text)


def test_scrape_with_many_code_comments_is_text():
    code = "\n".join(f"# Step {n}: load the weights\nmodel = load({n})\n" for n in range(6))
    assert sniff_format(f"Intro text.\n\nFeature\n\nProse paragraph.\n\n{code}") == "text"


def test_scrape_line_with_url_is_not_a_heading():
    text = "Intro.\n\nDocs - https://docs.example/x\n\n(Beta) Feature\n\nA paragraph of prose."
    assert [b.text for b in parse(text).blocks if isinstance(b, Heading)] == ["(Beta) Feature"]


def test_scrape_line_introducing_what_follows_is_not_a_heading():
    text = "Intro.\n\nFeature\n\nIt is new, and allows users to:\n\n• do things"
    assert [b.text for b in parse(text).blocks if isinstance(b, Heading)] == ["Feature"]


def test_scrape_heading_whose_text_introduces_headings_groups_them():
    text = ("Intro.\n\nTraining\n\nThe release adds features. Details are below:\n\n"
            "(Beta) Pipelines\n\nProse about pipelines.\n\nHooks\n\nProse about hooks.")
    assert [(b.level, b.text) for b in parse(text).blocks if isinstance(b, Heading)] == [
        (1, "Training"), (2, "(Beta) Pipelines"), (2, "Hooks")]


def test_scrape_list_right_under_a_prose_line():
    blocks = parse("Intro.\n\nSummary:\n• one\n• two\n").blocks
    assert isinstance(blocks[-1], ListBlock) and blocks[-2].text == "Summary:"


def test_scrape_list_item_lead_is_the_name_before_a_dash():
    listing = parse("Intro.\n\n• (Prototype) Remote Module - runs remotely\n• plain item\n").blocks[-1]
    assert [item.lead for item in listing.items] == ["(Prototype) Remote Module", None]


def test_page_keeps_a_container_whose_class_word_misleads():
    page = ("<html><body><nav>Menu</nav><div class='post has-toc'><h2>Feature</h2><p>"
            + "Prose. " * 40 + "</p></div></body></html>")
    assert [b.text for b in parse(page).blocks if isinstance(b, Heading)] == ["Feature"]


def test_scrape_with_indented_paragraphs_keeps_them_prose():
    text = "   Intro paragraph.\n\nFeature\n\n   A paragraph of prose, indented by the scraper.\n"
    blocks = parse(text).blocks
    assert [type(b).__name__ for b in blocks] == ["Paragraph", "Heading", "Paragraph"]


def test_short_rule_under_a_line_is_not_an_underline():
    text = "Intro.\n\nSigned off\n---\n\nFeature\n\nA paragraph of prose."
    assert [b.text for b in parse(text).blocks if isinstance(b, Heading)] == ["Feature"]


def test_page_prefers_the_article_holding_most_text_over_teasers():
    page = ("<html><body><main><div><h2>Feature</h2><p>" + "Prose. " * 40 + "</p></div>"
            "<article><h3>Other post</h3><p>Teaser.</p></article></main></body></html>")
    assert [b.text for b in parse(page).blocks if isinstance(b, Heading)] == ["Feature", "Other post"]


def test_page_drops_a_table_of_contents_named_in_full():
    page = ("<html><body><article><div id='table-of-contents'><h2>On this page</h2><ul><li>A</li></ul></div>"
            "<h2>Feature</h2><p>" + "Prose. " * 40 + "</p></article></body></html>")
    assert [b.text for b in parse(page).blocks if isinstance(b, Heading)] == ["Feature"]


def test_page_heading_drops_its_permalink_symbol():
    page = ("<html><body><article><h2 id='a'>Feature<a class='anchor' href='#a'>#</a></h2><p>Prose.</p>"
            "<h3 id='b'><a href='#b'>¶</a> Other <a href='/docs/#b'>docs</a></h3><p>Prose.</p></article></body></html>")
    assert headings(page) == [(2, "Feature"), (3, "Other docs")]


def test_page_drops_a_sign_up_form_with_its_box():
    page = ("<html><body><article><h2>Feature</h2><p>" + "Prose. " * 40 + "</p>"
            "<div class='box'><h3>Stay in the loop</h3><p>News in your inbox.</p>"
            "<form><input type='email'><button>Go</button></form></div></article></body></html>")
    assert headings(page) == [(2, "Feature")]


def test_page_wrapped_in_one_form_keeps_its_article():
    page = ("<html><body><form action='/'><article><h2>Feature</h2><p>" + "Prose. " * 100
            + "</p></article></form></body></html>")
    assert headings(page) == [(2, "Feature")]


def test_rest_with_bullets_and_field_list_is_text_not_markdown():
    text = ("=====\nTitle\n=====\n\n:Author: A. Writer\n\nIntro::\n\n    code\n\n"
            "Part\n====\n\n* one\n* two\n\nFeature (Beta)\n--------------\n\nProse.\n")
    assert sniff_format(text) == "text"
    assert headings(text) == [(1, "Title"), (2, "Part"), (3, "Feature (Beta)")]


def test_scrape_list_items_apart_by_blank_lines_are_one_list():
    blocks = parse("Intro.\n\n  • one\n\n  • two\n    ◦ nested\n\n  • three\n\nProse after.").blocks
    assert [type(b) for b in blocks] == [Paragraph, ListBlock, Paragraph]
    assert [item.text for item in blocks[1].items] == ["one", "two", "three"]
    assert blocks[1].items[1].children[0].text == "nested"


def test_scrape_shell_comments_over_commands_are_not_markdown_headings():
    scrape = ("Intro paragraph.\n\nFeature\n\nProse.\n\n# Convert the old file\ntool convert old.yaml\n"
              "# Check the result\ntool check new.py\n\n# Opt in\nexport TOOL_LAZY=1\n\nMore prose.")
    assert sniff_format(scrape) == "text"


def test_markdown_heading_right_above_its_prose_is_markdown():
    text = ("# Release\nThe release brings many things to many people, all of them good.\n\n"
            "## Speed\nIt is faster.\n\n## Size\nIt is smaller.\n")
    assert sniff_format(text) == "markdown"


def test_an_archived_mail_s_headers_name_its_title_author_and_date():
    text = ("From: Ada Quill <ada@orrery.example>\nTo: announce@orrery.example\nSubject: Orrery 4.2 released\n"
            "Date: Tue, 03 Mar 2026 10:00:00 +0100\n\nHello!\n\nOrrery 4.2 is out.\n")
    data, body, problem = split_front_matter(text)
    assert data == {"title": "Orrery 4.2 released", "author": "Ada Quill", "date": "Tue, 03 Mar 2026 10:00:00 +0100"}
    assert body.startswith("Hello!") and problem is None


@pytest.mark.parametrize("subject", ["[orrery-announce] Orrery 4.2 released", "[ANNOUNCE] Orrery 4.2 released",
                                     "Re: [orrery-users] Fwd: Orrery 4.2 released"])
def test_a_mailing_list_s_tags_and_reply_prefixes_are_not_the_title(subject):
    text = f"From: Ada Quill <ada@orrery.example>\nSubject: {subject}\n\nOrrery 4.2 is out.\n"
    assert split_front_matter(text)[0]["title"] == "Orrery 4.2 released"


def test_lines_that_only_look_like_headers_are_the_post():
    text = "Note: this release drops Python 3.9.\nWhy: it is past its end of life.\n\nOrrery 4.2 is out.\n"
    assert split_front_matter(text) == ({}, text, None)
