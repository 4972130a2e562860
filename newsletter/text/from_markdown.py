"""Markdown -> HTML through python-markdown, guarded against inputs that make it slow."""

from __future__ import annotations

import re
import threading

import markdown

from newsletter.text.from_html import without_attributes

_local = threading.local()
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*(.*)$")
_LIST_LINE = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+\S")
_LIST_MARKER = re.compile(r"^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+)(?=\S)")
# python-markdown's inline pass costs a paragraph's length for every markup match in it:
# a run of lines longer than this (real paragraphs stay well below) is broken up, and a
# longer line cut, so a hostile post stays fast.
_MAX_RUN = 5_000
# Its link, block-quote and list passes are quadratic in bracket count, or recurse as deep
# as quotes and lists nest: past what any post uses, brackets become spaces, quotes and
# indentation are flattened.
_MAX_BRACKETS = 150
_NO_BRACKETS = str.maketrans("[]()", "    ")
_DEEP_QUOTE = re.compile(r"^(?:[ \t]*>){8,}")
_DEEP_INDENT = re.compile(r"^[ \t]{33,}")
# "- - - - item" nests a list per marker on one line.
_DEEP_MARKERS = re.compile(r"^((?:[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+){8})(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)+")
# Site generators extend Markdown with syntax python-markdown would print as text: heading
# attributes ("## Title {#id}", "{/*id*/}", '{collapsible="true"}'), attribute lines under a
# block ('{style="note"}', "{: .tip}"), container directives (":::tip", "::callout", ":::"),
# component tags on their own line ("<Tabs>", "<TabItem value='a'>", "</Tabs>"), shortcodes
# ("{{< figure >}}", "{{ video(id=1) }}", "{% raw %}") and MDX import/export lines.
_ATX_LINE = re.compile(r"#{1,6}[ \t]")
_ATTRIBUTES = re.compile(r"\{(?:[#.:/][^{}]*|[\w-]+=[^{}]*)\}[ \t]*")
_EXTENSION_LINE = re.compile(
    r"^[ \t]*(?:>[ \t]?)*(?:\{:?[ \t]*(?:[#.][\w-]|[\w-]+=|/\*)[^{}]*\}|:{2,}(?:[\w-].*)?"
    r"|</?[A-Z][\w.]*(?:[ \t][^<>]*)?/?>"
    r"|\{\{.*\}\}|\{%.*%\}|(?:import|export)[ \t].*\bfrom[ \t]+['\"].*)[ \t]*$")


def _markdown() -> markdown.Markdown:
    # One instance per thread, reset between posts: building one costs more than a post.
    renderer: markdown.Markdown | None = getattr(_local, "markdown", None)
    if renderer is None:
        renderer = markdown.Markdown(extensions=["fenced_code", "tables"])
        # Inline patterns whose output the outline never looks at; each one costs a pass
        # over every run of text.
        for name in ("image_reference", "short_image_ref", "automail", "linebreak", "not_strong"):
            renderer.inlinePatterns.deregister(name, strict=False)
        _local.markdown = renderer
    return renderer


def _prepare_markdown(text: str) -> str:
    """Bring the text to what python-markdown reads the way authors mean it (CommonMark):
    site generators' extension syntax is dropped and call-out boxes quoted, fence openers
    indented up to three spaces are dedented, info strings that are not a language name
    are dropped, a fence left open runs to the end of the post, a list may start right
    under a paragraph line ("Summary:" then "- item"), and list items nest by CommonMark's
    rule."""
    lines = text.split("\n")
    out: list[str] = []
    open_fence: tuple[str, int] | None = None
    in_list = False
    lists = _ListIndentation()
    callouts = _Callouts()
    run = brackets = 0
    for line in lines:
        found = _FENCE.match(line)
        if open_fence is None:
            line = line[:_MAX_RUN]
            if not line.strip():
                run = brackets = 0
            run += len(line)
            if run > _MAX_RUN:
                out.append("")
                run, brackets = len(line), 0
            brackets += line.count("[") + line.count("(")
            if brackets > _MAX_BRACKETS:
                line = line.translate(_NO_BRACKETS)
            line = _DEEP_INDENT.sub(" " * 32, _DEEP_QUOTE.sub("> " * 8, _DEEP_MARKERS.sub(r"\1", line)))
            line = callouts.line(_without_heading_attributes(line))
            line = "" if _EXTENSION_LINE.match(line) else line
            if not found:
                line = lists.line(line)
            if _LIST_LINE.match(line):
                if out and out[-1].strip() and not in_list:
                    out.append("")
                in_list = True
            elif not line.strip():
                in_list = False
            if found and not (found.group(2)[0] == "`" and "`" in found.group(3)):
                indent, fence, info = found.groups()
                language = info.split()[0] if info.strip() else ""
                if not re.fullmatch(r"[\w#.+-]*", language) or len(info.split()) > 1:
                    language = ""
                out.append(fence + language)
                open_fence = (fence, len(indent))
                continue
            out.append(line)
        else:
            fence, indent = open_fence
            if found and found.group(2).startswith(fence) and not found.group(3).strip():
                out.append(fence)
                open_fence = None
                continue
            out.append(line[indent:] if line[:indent].isspace() else line)
    if open_fence is not None:
        out.append(open_fence[0])
    return "\n".join(out)


def _without_heading_attributes(line: str) -> str:
    """"## Title {#id}" -> "## Title"."""
    return without_attributes(line) if _ATX_LINE.match(line) else line


# Call-out boxes (MDX "<Note>", directives ":::tip", MDC "::callout") hold asides.
_CALLOUT_NAMES = r"(?:note|tip|info|warning|caution|danger|important|callout|admonition|aside|alert|hint)\b"
_COMPONENT_OPEN = re.compile(r"[ \t]*<([A-Z][\w.]*)\b[^<>]*(?<!/)>[ \t]*$")
_COMPONENT_CLOSE = re.compile(r"[ \t]*</([A-Z][\w.]*)>[ \t]*$")
_DIRECTIVE_OPEN = re.compile(r"[ \t]*:{2,}[ \t]*([\w-]+)")
_DIRECTIVE_CLOSE = re.compile(r"[ \t]*:{2,}[ \t]*$")
_TOP_HEADING = re.compile(r" {0,3}#{1,2}[ \t]")


class _Callouts:
    """Which component and directive containers are open, line by line; inside a call-out
    box every line is quoted."""

    def __init__(self) -> None:
        # Open containers, innermost last: (component name or "" for a directive, call-out?).
        self.open: list[tuple[str, bool]] = []
        self.callouts = 0

    def line(self, line: str) -> str:
        if opened := _COMPONENT_OPEN.match(line) or _DIRECTIVE_OPEN.match(line):
            name = opened.group(1)
            callout = bool(re.match(_CALLOUT_NAMES, name, re.IGNORECASE))
            self.open.append((name if opened.re is _COMPONENT_OPEN else "", callout))
            self.callouts += callout
        elif closed := _COMPONENT_CLOSE.match(line) or _DIRECTIVE_CLOSE.match(line):
            name = closed.group(1) if closed.re is _COMPONENT_CLOSE else ""
            if any(open_name == name for open_name, _ in self.open):
                while self.open:
                    open_name, callout = self.open.pop()
                    self.callouts -= callout
                    if open_name == name:
                        break
        elif self.callouts and _TOP_HEADING.match(line):
            # A box left open does not swallow the post: its next part closes it.
            self.open.clear()
            self.callouts = 0
        elif self.callouts:
            # Quoted, so what the box holds reads as an aside: its heading titles no part of
            # the post, its list is no highlights.
            return "> " + line
        return line


class _ListIndentation:
    """CommonMark nests a list item under the one above when it is indented to that item's
    text ("1. Item" then "   - sub-item"); python-markdown wants four spaces per level.
    Lines inside lists are re-indented to that rule, one line at a time."""

    def __init__(self) -> None:
        # The text column of each open item, outermost first.
        self.columns: list[int] = []

    def line(self, line: str) -> str:
        if not line.strip():
            return line
        marker = _LIST_MARKER.match(line)
        indent = len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip())
        while self.columns and indent < self.columns[-1]:
            self.columns.pop()
        if marker:
            depth = len(self.columns)
            self.columns.append(indent + len(marker.group(2)) + len(marker.group(3).expandtabs(4)))
            return " " * (4 * depth) + line.lstrip()
        if not self.columns:
            return line
        # Text indented under an item continues it; deeper than its text it is code.
        extra = indent - self.columns[-1]
        return " " * (4 * len(self.columns) + extra) + line.lstrip()


def render_markdown(text: str) -> str:
    try:
        return _markdown().reset().convert(_prepare_markdown(text))
    except BaseException:
        # A parse given up half-way (RecursionError) leaves the parser's block state in
        # the middle of a list, which reset() keeps: the next post would be read wrongly.
        del _local.markdown
        raise
