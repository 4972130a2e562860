"""Any post text -> one Document, whatever shape it came in."""

from __future__ import annotations

from lxml import etree

from newsletter import lazy_re
from newsletter.text.atom_entry import atom_entry
from newsletter.text.bold_leads import with_bold_leads
from newsletter.text.forum_thread import forum_thread
from newsletter.text.from_asciidoc import read_asciidoc
from newsletter.text.from_html import blocks_from_html
from newsletter.text.from_markdown import component_authors, render_markdown
from newsletter.text.from_plain import text_blocks
from newsletter.text.from_pod import looks_like_pod, pod_as_markdown
from newsletter.text.from_textile import looks_like_textile, textile_as_markdown
from newsletter.text.front_matter import front_matter_meta, split_front_matter
from newsletter.text.group_lines import colon_group_lines, list_group_lines
from newsletter.text.org_document import org_document
from newsletter.text.outline import Document
from newsletter.text.outline_numbers import without_outline_numbers
from newsletter.text.page import parse_page
from newsletter.text.sniff import sniff_format

# Characters XML cannot hold; lxml refuses text that has them.
_CONTROL = lazy_re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")

# A post shows its shape in its first pages (as text/sniff.py reads them).
_TEXTILE_SAMPLE = 20_000


def parse(text: str, media_type: str | None = None, base_url: str | None = None) -> Document:
    """Any post text -> Document. Never raises on malformed input: a parser that gives up
    (pathological nesting) falls back to reading the text's layout."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    entry = atom_entry(text)
    if entry is not None:
        # The entry's own metadata outranks what its content's markup may suggest.
        page = parse_page(entry[1] or "<p></p>", entry[0].get("canonical_url") or base_url)
        return Document("html", page.blocks, {**page.meta, **entry[0]})
    front_matter, body, problem = org_document(text) or split_front_matter(text)
    meta = front_matter_meta(front_matter)
    # Fenced front matter and Franklin's "@def" lines open Markdown pages only.
    fenced = bool(front_matter) and text.lstrip("\ufeff \t\n").startswith(("---", "+++", "@def"))
    shape = sniff_format(body, media_type, under_front_matter=fenced)
    try:
        if shape == "html":
            document = parse_page(body, base_url)
        elif looks_like_pod(body[:_TEXTILE_SAMPLE]):
            # POD, like Textile, has no format of its own downstream: it is shown as text.
            document = Document("text", blocks_from_html(render_markdown(pod_as_markdown(body)), base_url))
        elif shape == "markdown":
            # A forum renders its posts' Markdown: a topic's first post is read alone.
            found, markdown = (None if fenced else forum_thread(body)) or ({}, body)
            authors = component_authors(markdown)
            found = {"author": authors, **found} if authors else found
            document = Document("markdown", without_outline_numbers(
                blocks_from_html(render_markdown(markdown), base_url), from_one=True), found)
        elif shape == "asciidoc":
            # An AsciiDoc page may number its sections by hand ("== 4.1. Installer"), not by :sectnums:.
            asciidoc = read_asciidoc(body, base_url)
            document = Document("asciidoc", without_outline_numbers(asciidoc.blocks, from_one=True), asciidoc.meta)
        elif looks_like_textile(body[:_TEXTILE_SAMPLE]):
            # Textile has no format of its own downstream: it is shown as the text it is.
            document = Document("text", blocks_from_html(render_markdown(textile_as_markdown(body)), base_url))
        elif (thread := forum_thread(body)) is not None:
            # A forum copied from its posts' source keeps their Markdown bold.
            document = Document("text", with_bold_leads(text_blocks(thread[1])), thread[0])
        else:
            document = Document("text", list_group_lines(colon_group_lines(
                without_outline_numbers(text_blocks(body), from_one=True))))
    except (RecursionError, ValueError, etree.LxmlError):
        document = Document(shape, text_blocks(body))
    return Document(document.format, document.blocks, {**document.meta, **meta}, front_matter_problem=problem)
