"""AsciiDoc line by line: what kind of line each one is, and whether a text is AsciiDoc.

Asciidoctor tells most blocks apart by their first line alone; these are those tests.
Every pattern is anchored to one line and bounded, so a long line costs its length.
"""

from __future__ import annotations

import re

from newsletter import lazy_re

SECTION = lazy_re.compile(r"^(={1,6}|#{1,6})[ \t]+(\S.*)$")
ATTRIBUTE_ENTRY = lazy_re.compile(r"^:(!?)(\w[^:]{0,100}?)(!?):(?:[ \t]+(.*))?$")
_LIST_ITEM = lazy_re.compile(r"^[ \t]*(\*{1,5}|-|\.{1,5}|\d{1,9}\.|[a-zA-Z]\.|[ivxIVX]{1,6}\))[ \t]+(\S.*)$")
# "Term:: text", as Asciidoctor has it: the term does not end in a colon or a semicolon.
_DESCRIPTION_ITEM = lazy_re.compile(r"^[ \t]*([^ \t]|[^ \t].{0,500}?[^ \t:;])(:{2,4}|;;)(?:[ \t]+(.*))?$")
_CHECKBOX = lazy_re.compile(r"^\[[ xX*]\][ \t]+")
# Preprocessor lines: Asciidoctor acts on them before it reads any block, in code too.
# The files they include are not at hand and their conditions are not kept: the lines go,
# the text between "ifdef" and "endif" stays.
PREPROCESSOR = lazy_re.compile(r"^(?:ifn?def|ifeval|endif|include)::[^\[]{0,2000}\[.*\]$")
# Lines that stand for something the outline has no place for: block images, videos, a
# table of contents, thematic and page breaks.
SKIPPED_LINE = lazy_re.compile(r"^(?:[a-z][\w-]{0,30}::[^\s\[]{0,2000}\[.*\]|'{3,}|<{3}|-{3}|\*{3}|- - -|\* \* \*)$")
# Delimiter lines: four or more of one character, except the open block's two dashes,
# Markdown's code fence and a table's "|===".
_DELIMITERS = {"-": "listing", ".": "literal", "+": "pass", "/": "comment", "_": "quote", "=": "example",
               "*": "sidebar"}


def delimiter(line: str) -> str | None:
    """The kind of delimited block a line opens or closes, if it is a delimiter line."""
    if line == "--":
        return "open"
    if line.startswith("```"):
        return "fence"
    if len(line) >= 4 and line[0] in _DELIMITERS and line == line[0] * len(line):
        return _DELIMITERS[line[0]]
    if len(line) >= 4 and line[0] in "|,:!" and line[1:] == "=" * (len(line) - 1):
        return "table"
    return None


def closers(lines: list[str]) -> dict[int, int]:
    """For each delimiter line, the index of the next line that closes a block it opens,
    in one pass from the end. A fence opened with a language ("```python") closes at "```"."""
    next_seen: dict[str, int] = {}
    closers: dict[int, int] = {}
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if delimiter(line) is None:
            continue
        closing = "```" if line.startswith("```") else line
        if closing in next_seen:
            closers[index] = next_seen[closing]
        next_seen[line] = index
    return closers


def is_comment(line: str) -> bool:
    return line.startswith("//") and not line.startswith("///")


def is_attribute_line(line: str) -> bool:
    """A block attribute list ("[source,python]", "[NOTE]", "[[anchor]]", "[#id.role]")."""
    return (len(line) >= 2 and line[0] == "[" and line[-1] == "]"
            and (len(line) == 2 or line[1].isalnum() or line[1] in "_#.%{,\"'["))


def style_of(line: str) -> str | None:
    """The block style an attribute list names first: "source" in "[source,python]"."""
    inner = line[1:-1]
    if inner.startswith("["):
        return None  # an anchor
    first = re.split(r"[,#.%]", inner, maxsplit=1)[0].strip().strip("\"'")
    return first if first and "=" not in first else None


def block_title(line: str) -> str | None:
    """".Title" above a block: its caption. ". item" is a list item, "...." a delimiter."""
    if len(line) >= 2 and line[0] == "." and line[1] not in " \t.":
        return line[1:]
    return None


def interrupts(line: str) -> bool:
    """Lines that end a paragraph without a blank line: a delimiter or a block's attributes."""
    return delimiter(line) is not None or is_attribute_line(line)


def list_entry(line: str) -> tuple[str, str, str | None] | None:
    """(marker, text, term) of a list item line: "* text", ". text", "1. text", "Term:: text"."""
    found = _LIST_ITEM.match(line)
    if found:
        marker = found.group(1)
        if marker[0].isdigit():
            marker = "1."
        elif marker[0].isalpha():
            marker = "a." if marker[-1] == "." and marker.islower() else "A." if marker[-1] == "." else "i)"
        return marker, _CHECKBOX.sub("", found.group(2)), None
    if ("::" in line or ";;" in line) and not is_comment(line):
        term = _DESCRIPTION_ITEM.match(line)
        if term:
            return term.group(2), term.group(3) or "", term.group(1).strip()
    return None


# A section title closed by as many marks as open it: "===== Part =====".
_CLOSED_SECTION = lazy_re.compile(r"^(={2,6})[ \t]+\S.*[ \t]\1$")


def levels_inverted(lines: list[str]) -> bool:
    """Whether a text ranks its section titles as some wikis' own markup does, the most marks the
    top level: it opens with a closed title of more marks than any closed title after it."""
    marks = [len(found.group(1)) for line in lines if (found := _CLOSED_SECTION.match(line))]
    return len(marks) > 1 and marks[0] > max(marks[1:])


def is_ordered(marker: str) -> bool:
    return marker[0] in ".1aAi"


# One author: up to four words and an email address ("Mira Okafor <mira@example.org>").
_AUTHOR = lazy_re.compile(r"^[^\W\d][\w'.-]*(?: [^\W\d][\w'.-]*){0,3}(?: <[^<>\s]+>)?$")


def authors(line: str) -> str | None:
    """The names on an author line ("A <a@x>; B"), else None: the line is not one."""
    parts = [part.strip() for part in line.split(";")]
    if not all(_AUTHOR.match(part) for part in parts):
        return None
    return ", ".join(part.split(" <")[0] for part in parts)


def is_revision_line(line: str) -> bool:
    """The line under the author line names a revision: a version, a date, or both."""
    return bool(line) and len(line) <= 100 and not line.startswith((":", "//")) and any(c.isdigit() for c in line)


def revision_date(line: str) -> str | None:
    """The date on a revision line: "v2.0, 2026-03-04: remark" or just "2026-03-04"."""
    line = line.split(": ", 1)[0].removesuffix(":")
    if "," in line:
        return line.split(",", 1)[1].strip() or None
    return None if re.match(r"^v?\d+(?:\.\d+)*$", line.strip()) else line.strip() or None


# -- sniffing -------------------------------------------------------------------------------

# "= Title" opening the text, perhaps under comments and attribute entries: no other
# format starts so.
_DOCUMENT_TITLE = lazy_re.compile(r"\A(?://[^\n]*\n|:[^\n]*\n|[ \t]*\n)*= \S")
_SECTIONS = lazy_re.compile(r"\n={2,6}[ \t]+\S")
# What neither Markdown nor reStructuredText writes.
_ASCIIDOC_ONLY = (
    lazy_re.compile(r"\n\[(?:source|listing|literal|quote|verse|example|sidebar|discrete|NOTE|TIP|IMPORTANT|WARNING|CAUTION)"
                    r"(?:[,#.%][^\]\n]*)?\]$", re.MULTILINE),  # block styles
    lazy_re.compile(r"\n[|,:!]={3,}$", re.MULTILINE),  # tables
    lazy_re.compile(r"\b(?:link|xref|kbd|btn|footnote|image|include|pass):[^\s\[\]]{0,2000}\["),  # macros
    lazy_re.compile(r"https?://[^\s\[\]()<>]{1,2000}\[[^\]\n]{0,300}\]"),  # a URL with its text after it
    lazy_re.compile(r"<<[\w-]{1,200}(?:,[^<>\n]{1,300})?>>"),  # cross references
)
# What AsciiDoc writes and other texts may: reST's field lists look like attribute
# entries, code has "//" comments and ".method()" lines.
_ASCIIDOC_LIKE = (
    lazy_re.compile(r"\n:\w[\w-]{0,100}:(?:[ \t]|$)", re.MULTILINE),  # attribute entries
    lazy_re.compile(r"\n\.[^\s.]"),  # block titles
    lazy_re.compile(r"\n//(?!/)"),  # comments
    lazy_re.compile(r"\n(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION): \S"),  # admonitions
    lazy_re.compile(r"\n\*{2,5} \S"),  # nested list items
)
# Markdown's own link syntax counts against.
_MARKDOWN_LINK = lazy_re.compile(r"\[[^\[\]\n]{1,300}\]\([^)\s]{1,500}\)")


def _outside_fences(sample: str) -> str:
    """The text without what stands in Markdown code fences: a Markdown post may show
    AsciiDoc in them. (AsciiDoc has these fences too, and code there says nothing either.)"""
    kept: list[str] = []
    in_fence = False
    for line in sample.split("\n"):
        if line.startswith("```"):
            in_fence = not in_fence
        elif not in_fence:
            kept.append(line)
    return "\n".join(kept)


def looks_like_asciidoc(text: str) -> bool:
    """Whether a text is AsciiDoc, from signals only AsciiDoc gives: an "= Title" opening
    it counts two, "==" section titles one or two, each AsciiDoc-only construct one, and
    two or more constructs AsciiDoc shares with other texts one. Two make AsciiDoc."""
    sample = _outside_fences(text)
    score = 2 * bool(_DOCUMENT_TITLE.match(sample))
    # The line patterns start with "\n" (see text/sniff.py for why).
    sample = "\n" + sample
    score += min(2, len(_SECTIONS.findall(sample)))
    score += sum(1 for pattern in _ASCIIDOC_ONLY if pattern.search(sample))
    score += sum(1 for pattern in _ASCIIDOC_LIKE if pattern.search(sample)) >= 2
    score -= bool(_MARKDOWN_LINK.search(sample))
    return score >= 2
