"""AsciiDoc -> outline blocks, read as Asciidoctor reads it.

The text is read line by line, once: a delimited block's closing line is found from a
table built in one pass, so the lines inside a listing block are never looked at (a
`# comment` in code is code) and the lines inside a quote or example block are read once,
as the blocks they hold. Inline markup is left to `asciidoc_inline`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from newsletter import lazy_re
from newsletter.text.asciidoc_inline import Attributes, InlineText, inline_text
from newsletter.text.asciidoc_lines import (
    ATTRIBUTE_ENTRY,
    PREPROCESSOR,
    SECTION,
    SKIPPED_LINE,
    authors,
    block_title,
    closers,
    delimiter,
    interrupts,
    is_attribute_line,
    is_comment,
    is_ordered,
    is_revision_line,
    levels_inverted,
    list_entry,
    revision_date,
    style_of,
)
from newsletter.text.from_html import blocks_from_html
from newsletter.text.outline import (
    Block,
    Code,
    Document,
    Heading,
    ListBlock,
    ListItem,
    Paragraph,
)
from newsletter.text.term_items import is_named_item

# Blocks nested deeper than this (quotes in examples in sidebars...) are read as plain
# paragraphs: real posts nest two or three.
_MAX_DEPTH = 32
# Characters attribute references may add to a post beyond its own length.
_MIN_EXPANSION_BUDGET = 100_000

# A span styled by a role at a title's edge ("== Faster sync [.badge]#Beta#"): a badge,
# which may hold a maturity label no bracket marks.
_ROLE_SPAN_AT_EDGE = lazy_re.compile(r"^\[\.[\w.-]{1,100}\]#([^#\n]{1,40})#|\[\.[\w.-]{1,100}\]#([^#\n]{1,40})#$")
_ADMONITION = lazy_re.compile(r"^(NOTE|TIP|IMPORTANT|WARNING|CAUTION):[ \t]+(\S.*)$")
_ADMONITION_STYLES = {"NOTE", "TIP", "IMPORTANT", "WARNING", "CAUTION"}
_VERBATIM = {"listing", "literal", "fence"}
_CODE_STYLES = {"source", "listing", "literal"}
_MATH_STYLES = {"stem", "latexmath", "asciimath"}
# An open block ("--") takes the kind its style names: "[source]" over one makes a listing.
_OPEN_BLOCK_MASKS = {"source": "listing", "listing": "listing", "literal": "literal", "pass": "pass",
                     "comment": "comment"}


def _captioned(caption: Paragraph | None, blocks: list[Block]) -> list[Block]:
    """A block's title reads as a caption above it; a block that gives nothing loses it."""
    return [caption, *blocks] if caption is not None and blocks else blocks


def _dedent(lines: list[str]) -> str:
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    return "\n".join(line[indent:] for line in lines)


@dataclass
class _OpenItem:
    """A list item whose lines are still being read."""

    marker: str
    lines: list[str]
    term: str | None
    # Text of paragraphs attached with "+", and the items of lists nested in it.
    attached: list[InlineText] = field(default_factory=list)
    children: list[ListItem] = field(default_factory=list)
    # How many of its continuation lines were indented under the marker's line.
    indented: int = 0


class _ListBuilder:
    """Asciidoctor nests lists by marker, not by indentation: a marker not yet open starts
    a list inside the current item; a marker open further out closes the items inside it."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.roots: list[ListItem] = []
        self.open: list[_OpenItem] = []
        self.closed_roots: list[_OpenItem] = []

    def add(self, marker: str, text: str, term: str | None) -> None:
        markers = [item.marker for item in self.open]
        self.close(markers.index(marker) if marker in markers else len(markers))
        self.open.append(_OpenItem(marker, [text], term))

    def continue_text(self, line: str) -> None:
        self.open[-1].indented += line[:1].isspace()
        self.open[-1].lines.append(line.strip())

    def attach(self, blocks: list[Block]) -> None:
        item = self.open[-1]
        for block in blocks:
            if isinstance(block, Paragraph):
                item.attached.append(InlineText(block.text, None, block.urls))
            elif isinstance(block, ListBlock):
                item.children.extend(block.items)

    def close(self, level: int) -> None:
        while len(self.open) > level:
            opened = self.open.pop()
            item = self.reader.list_item(opened)
            if self.open:
                self.open[-1].children.append(item)
            else:
                self.roots.append(item)
                self.closed_roots.append(opened)

    def finish(self, ordered: bool) -> ListBlock:
        self.close(0)
        return ListBlock(tuple(self.roots), ordered)


class _Reader:
    def __init__(self, text: str, base_url: str | None) -> None:
        # Asciidoctor drops trailing space from every line before reading it.
        self.lines = [line.rstrip() for line in text.split("\n") if not PREPROCESSOR.match(line)]
        self.base_url = base_url
        self.attributes = Attributes(max(len(text), _MIN_EXPANSION_BUDGET))
        self.closers = closers(self.lines)
        self.inverted = levels_inverted(self.lines)
        # What the lines above a block said about it, until the block takes them.
        self.style: str | None = None
        self.caption: Paragraph | None = None
        # The level of the last section title read: a list of names heads parts beneath it.
        self.section_level = 1

    def inline(self, source: str) -> InlineText:
        return inline_text(source, self.attributes, self.base_url)

    def take(self) -> tuple[str | None, Paragraph | None]:
        style, caption = self.style, self.caption
        self.style = self.caption = None
        return style, caption

    def document(self) -> Document:
        meta, title, start = self.header()
        blocks = self.blocks(start, len(self.lines), 0)
        return Document("asciidoc", (*title, *blocks), meta)

    # -- the header: title, author and revision lines, attribute entries ---------------

    def header(self) -> tuple[dict[str, str], list[Block], int]:
        """The document's metadata, its title as a level-1 heading, and where its body
        starts. Comments and attribute entries may stand above the title."""
        index = self.header_entries(0, stop_at_blank=False)
        lines, title, index = self.title_lines(index)
        values = self.attributes
        declared = {
            "title": lines.get("title") or values.get("doctitle"),
            "author": lines.get("author") or values.get("author"),
            "date": lines.get("date") or values.get("revdate"),
            "language": values.get("lang"),
            "canonical_url": values.get("canonical-url"),
        }
        meta = {key: " ".join(value.split()) for key, value in declared.items() if value and value.strip()}
        return meta, title, index

    def title_lines(self, index: int) -> tuple[dict[str, str], list[Block], int]:
        """"= Title", then perhaps an author line, a revision line and attribute entries,
        up to a blank line. Without a title there is no author line."""
        found = SECTION.match(self.lines[index]) if index < len(self.lines) else None
        if not found or len(found.group(1)) != 1:
            return {}, [], index
        heading = self.inline(found.group(2))
        declared = {"title": heading.text}
        index += 1
        names = authors(self.lines[index]) if index < len(self.lines) else None
        if names:
            declared["author"] = names
            index += 1
            if index < len(self.lines) and is_revision_line(self.lines[index]):
                declared["date"] = revision_date(self.lines[index]) or ""
                index += 1
        index = self.header_entries(index, stop_at_blank=True)
        return declared, [Heading(1, heading.text, heading.urls)], index

    def header_entries(self, index: int, *, stop_at_blank: bool) -> int:
        """Read attribute entries and skip comments from `index`; return where they end."""
        while index < len(self.lines):
            line = self.lines[index]
            entry = ATTRIBUTE_ENTRY.match(line)
            if not line and stop_at_blank:
                break
            if entry:
                index = self.attribute_entry(entry, index)
            elif line and delimiter(line) == "comment":
                index = self.closers.get(index, len(self.lines)) + 1
            elif not line or is_comment(line):
                index += 1
            else:
                break
        return index

    def attribute_entry(self, entry: re.Match[str], index: int) -> int:
        """":name: value", ":name!:" (unset); a value ending in " \\" goes on on the next line."""
        unset_before, name, unset_after, value = entry.groups()
        parts = [value or ""]
        index += 1
        while parts[-1].endswith(" \\") and index < len(self.lines):
            parts[-1] = parts[-1][:-2]
            parts.append(self.lines[index].strip())
            index += 1
        if unset_before or unset_after:
            self.attributes.unset(name)
        else:
            self.attributes.set(name, " ".join(parts).strip())
        return index

    # -- the body -------------------------------------------------------------------------

    def blocks(self, start: int, end: int, depth: int) -> list[Block]:
        out: list[Block] = []
        index = start
        while index < end:
            index = self.block(index, end, depth, out)
        return out

    def block(self, index: int, end: int, depth: int, out: list[Block], *, in_list: bool = False) -> int:
        """Read the block (or the line that says something about the next block) at
        `index` into `out`; return the index of the line after it."""
        line = self.lines[index]
        if not line or is_comment(line):
            return index + 1
        entry = ATTRIBUTE_ENTRY.match(line)
        if entry:
            return self.attribute_entry(entry, index)
        if is_attribute_line(line):
            self.style = style_of(line) or self.style
            return index + 1
        title = block_title(line)
        if title is not None:
            caption = self.inline(title)
            self.caption = Paragraph(caption.text, None, caption.urls)
            return index + 1
        kind = delimiter(line)
        if kind is not None:
            return self.delimited(kind, index, end, depth, out)
        if self.style in _CODE_STYLES:
            # "[source]" over a paragraph makes it code, whatever its first line looks like.
            return self.paragraph(index, end, out, in_list=in_list)
        if SKIPPED_LINE.match(line):
            self.take()
            return index + 1
        section = SECTION.match(line)
        if section:
            return self.section(section, index, out)
        if depth < _MAX_DEPTH and list_entry(line):
            return self.list(index, end, depth, out)
        if line == ">" or line.startswith("> "):
            return self.markdown_quote(index, end, out)
        return self.paragraph(index, end, out, in_list=in_list)

    def section(self, found: re.Match[str], index: int, out: list[Block]) -> int:
        """"== Title" (levels 1 to 6, as "=" marks them), or "## Title" as Markdown has it;
        a closing run of the same marks ("== Title ==") is not part of the title."""
        _style, caption = self.take()
        marks, title = found.groups()
        title = title.removesuffix(" " + marks).rstrip()
        heading = self.inline(title)
        if heading.text:
            span = _ROLE_SPAN_AT_EDGE.search(title)
            badge = self.inline(span.group(1) or span.group(2)).text if span else None
            self.section_level = 7 - len(marks) if self.inverted else len(marks)
            out.extend(_captioned(caption, [Heading(self.section_level, heading.text, heading.urls, badge=badge)]))
        return index + 1

    def delimited(self, kind: str, index: int, end: int, depth: int, out: list[Block]) -> int:
        """A block between two delimiter lines; one left open runs to the end of the
        block around it, as in Asciidoctor."""
        close = min(self.closers.get(index, end), end)
        style, caption = self.take()
        if kind == "open" and style in _OPEN_BLOCK_MASKS:
            kind = _OPEN_BLOCK_MASKS[style]
        inner = self.lines[index + 1:close] if kind in _VERBATIM or kind == "pass" else []
        blocks: list[Block] = []
        if kind in _VERBATIM:
            # Asciidoctor drops the blank lines that open and close a verbatim block.
            blocks = [Code("\n".join(inner).strip("\n"))]
        elif kind == "pass" and style not in _MATH_STYLES:
            blocks = list(_html_blocks("\n".join(inner), self.base_url))
        elif kind not in ("comment", "table", "pass"):
            blocks = self.compound(style, index + 1, close, depth)
        out.extend(_captioned(caption, blocks))
        return close + 1

    def compound(self, style: str | None, start: int, end: int, depth: int) -> list[Block]:
        """The blocks inside a quote, example, sidebar or open block. A verse keeps its
        lines as one paragraph; an admonition block names itself in its first paragraph."""
        if style == "verse" or depth >= _MAX_DEPTH:
            paragraph = self.paragraph_block(self.lines[start:end])
            return [paragraph] if paragraph else []
        blocks = self.blocks(start, end, depth + 1)
        if style in _ADMONITION_STYLES and blocks and isinstance(blocks[0], Paragraph):
            first = blocks[0]
            blocks[0] = Paragraph(f"{style.capitalize()}: {first.text}", None, first.urls)
        return blocks

    def paragraph(self, index: int, end: int, out: list[Block], *, in_list: bool = False) -> int:
        """Lines up to a blank line, a delimiter or a block attribute list (in a list, up
        to the next item or "+" too). An indented paragraph is literal text: code."""
        style, caption = self.take()
        lines: list[str] = []
        stop = index
        while stop < end:
            line = self.lines[stop]
            if not line or stop > index and (interrupts(line) or in_list and (line == "+" or list_entry(line))):
                break
            if not is_comment(line):
                lines.append(line)
            stop += 1
        if lines and (style in _CODE_STYLES or lines[0][0] in " \t"):
            blocks: list[Block] = [Code(_dedent(lines))]
        elif style == "pass":
            blocks = list(_html_blocks("\n".join(lines), self.base_url))
        elif style == "comment" or not lines:
            blocks = []
        else:
            paragraph = self.paragraph_block(lines, style)
            blocks = [paragraph] if paragraph else []
        out.extend(_captioned(caption, blocks))
        return stop

    def markdown_quote(self, index: int, end: int, out: list[Block]) -> int:
        """Lines quoted Markdown's way ("> text"), which Asciidoctor reads as a quote
        block: their text, as one paragraph."""
        _style, caption = self.take()
        stop = index
        while stop < end and self.lines[stop].startswith(">"):
            stop += 1
        paragraph = self.paragraph_block([line[1:].strip() for line in self.lines[index:stop]])
        out.extend(_captioned(caption, [paragraph] if paragraph else []))
        return stop

    def paragraph_block(self, lines: list[str], style: str | None = None) -> Paragraph | None:
        """Prose lines -> a paragraph; "NOTE: ..." (or [NOTE] above) names its kind."""
        # " +" ends a line with a forced break: a space in plain text.
        source = "\n".join(line.removesuffix(" +") for line in lines)
        label = style.capitalize() if style in _ADMONITION_STYLES else None
        found = _ADMONITION.match(source)
        if found and label is None:
            label, source = found.group(1).capitalize(), source[found.start(2):]
        text = self.inline(source)
        if not text.text:
            return None
        if label:
            return Paragraph(f"{label}: {text.text}", None, text.urls)
        return Paragraph(text.text, text.lead, text.urls)

    # -- lists ----------------------------------------------------------------------------

    def list(self, index: int, end: int, depth: int, out: list[Block]) -> int:
        """Items, with the lines that continue them and the blocks attached with "+".
        Blank lines may stand between items; after one, any other line ends the list."""
        _style, caption = self.take()
        builder = _ListBuilder(self)
        first = list_entry(self.lines[index])
        ordered = first is not None and first[2] is None and is_ordered(first[0])
        after_blank = False
        while index < end:
            line = self.lines[index]
            entry = list_entry(line) if line else None
            if not line:
                after_blank = True
            elif entry:
                builder.add(*entry)
                after_blank = False
            elif line == "+":
                index = self.attach(index + 1, end, depth, builder)
                after_blank = False
                continue
            elif after_blank or interrupts(line) or block_title(line) is not None:
                break
            elif not is_comment(line):
                builder.continue_text(line)
            index += 1
        found = builder.finish(ordered)
        out.extend(_captioned(caption, list(self.named_parts(tuple(builder.closed_roots))) or [found]))
        return index

    def named_parts(self, items: tuple[_OpenItem, ...]) -> tuple[Block, ...]:
        """A list of names each over its indented description: headings of its part."""
        if not items or not all(is_named_item(item.lines, item.indented) and not item.attached and not item.children
                                for item in items):
            return ()
        names = [(self.inline(item.lines[0]), self.inline("\n".join(item.lines[1:]))) for item in items]
        return tuple(block for name, text in names for block in (
            Heading(self.section_level + 1, name.text, name.urls), Paragraph(text.text, None, text.urls)))

    def attach(self, index: int, end: int, depth: int, builder: _ListBuilder) -> int:
        """The block under a "+" line joins the item above: its text, or its list items.
        Code attached to an item is left out, as the HTML reader leaves out a <pre> in an <li>."""
        blocks: list[Block] = []
        while index < end and self.lines[index] and (
                is_attribute_line(self.lines[index]) or block_title(self.lines[index]) is not None):
            index = self.block(index, end, depth + 1, blocks)
        if index < end and self.lines[index]:
            index = self.block(index, end, depth + 1, blocks, in_list=True)
        builder.attach(blocks)
        return index

    def list_item(self, item: _OpenItem) -> ListItem:
        text = self.inline("\n".join(item.lines))
        parts = [part for part in (text, *item.attached) if part.text]
        lead = text.lead
        if item.term is not None:
            term = self.inline(item.term)
            parts.insert(0, InlineText(f"{term.text}:" if parts else term.text, None, term.urls))
            # A description list's term is what its item is about, as a bold lead is.
            lead = term.text or None
        urls = dict.fromkeys(url for part in parts for url in part.urls)
        return ListItem(" ".join(part.text for part in parts), lead, tuple(item.children), tuple(urls))


def _html_blocks(html: str, base_url: str | None) -> tuple[Block, ...]:
    """A passthrough block's HTML, read as the HTML reader reads a page's body; HTML that
    does not parse gives nothing rather than spoil the rest of the post."""
    try:
        return blocks_from_html(html, base_url)
    except (ValueError, etree.LxmlError):
        return ()



def read_asciidoc(text: str, base_url: str | None = None) -> Document:
    """AsciiDoc text -> Document: the title and author from the header, the outline from
    the body."""
    return _Reader(text, base_url).document()
