"""Markdown -> HTML through cmark-gfm (CommonMark, as site generators read it), after
dropping the syntax site generators add on top of it."""

from __future__ import annotations

import re

import cmarkgfm
from cmarkgfm.cmark import Options

from newsletter import lazy_re
from newsletter.text.from_html import without_attributes

_FENCE = lazy_re.compile(r"^( {0,3})(`{3,}|~{3,})[ \t]*(.*)$")
_LIST_LINE = lazy_re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+\S")
# "#Title" without its space is a paragraph to CommonMark, but authors who write it mean a
# heading, and the original Markdown and python-markdown read it as one.
_ATX_WITHOUT_SPACE = lazy_re.compile(r"^( {0,3}#{1,6})(?=[^\s#])")
# Nesting deeper than any post uses costs the HTML reader a level of recursion each: past
# this, quotes and indentation are flattened.
_DEEP_QUOTE = lazy_re.compile(r"^(?:[ \t]*>){8,}")
_DEEP_INDENT = lazy_re.compile(r"^[ \t]{33,}")
# "- - - - item" nests a list per marker on one line.
_DEEP_MARKERS = lazy_re.compile(r"^((?:[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+){8})(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)+")

# Site generators extend Markdown with syntax CommonMark would print as text: heading
# attributes ("## Title {#id}", "{/*id*/}", '{collapsible="true"}'), attribute lines under a
# block ('{style="note"}', "{: .tip}"), container directives (":::tip", "::callout", ":::"),
# component tags on their own line ("<Tabs>", "<TabItem value='a'>", "</Tabs>"), shortcodes
# ("{{< figure >}}", "{{ video(id=1) }}", "{% raw %}"), MDX import/export lines and markers
# where the site puts a table of contents ("[[_TOC_]]", "[TOC]", "[[toc]]", "* TOC\n{:toc}").
_ATTRIBUTES = lazy_re.compile(r"\{(?:[#.:/][^{}]*|[\w-]+=[^{}]*)\}[ \t]*")
_EXTENSION_LINE = lazy_re.compile(
    r"^[ \t]*(?:>[ \t]?)*(?:\{:?[ \t]*(?:[#.][\w-]|[\w-]+=|/\*)[^{}]*\}|:{2,}(?:[\w-].*)?"
    r"|</?[A-Z][\w.]*(?:[ \t][^<>]*)?/?>"
    r"|\{\{.*\}\}|\{%.*%\}|(?:import|export)[ \t].*\bfrom[ \t]+['\"].*|(?i:\[\[?_?toc_?\]\]?|\*[ \t]+toc|\{:toc\}))"
    r"[ \t]*$")


_COMPONENT_TEMPLATE = lazy_re.compile(r"[ \t]*<[A-Z][^<>]*=\{`")


def _prepare_markdown(text: str) -> str:
    """Bring the text to what CommonMark reads the way authors mean it: site generators'
    extension syntax is dropped and call-out boxes quoted, "#Title" is a heading, and a
    list may start right under a paragraph line ("Summary:" then "2. item")."""
    out: list[str] = []
    open_fence: tuple[str, int] | None = None  # (fence character, fence length)
    in_list = False
    in_template = False
    # An MDC block component may pass its props as YAML between "---" lines right under its
    # "::name" line: they are the component's, not a setext heading's text and underline.
    # A blank line ends them too, so an unclosed "---" does not swallow the post.
    in_props = after_directive = False
    callouts = _Callouts()
    for line in text.split("\n"):
        # An MDX component may pass a template string over several lines ("<Repl code={`...`} />"):
        # its lines are the component's, never the post's headings or text.
        if in_template or _COMPONENT_TEMPLATE.match(line) and line.count("`") % 2:
            in_template = not in_template if line.count("`") % 2 else in_template
            out.append("")
            continue
        if in_props or after_directive:
            props_fence = line.rstrip() == "---"
            in_props = in_props and bool(line.strip())
            if in_props or after_directive and props_fence:
                in_props = not in_props if props_fence else in_props
                after_directive = False
                out.append("")
                continue
            after_directive = False
        found = _FENCE.match(line)
        if open_fence is not None:
            fence_char, length = open_fence
            if found and found.group(2)[0] == fence_char and len(found.group(2)) >= length \
                    and not found.group(3).strip():
                open_fence = None
            # A fence opened in a call-out box is quoted with it, to its closing line.
            out.append("> " + line if callouts.callouts else line)
            continue
        if line[:1].isalpha() and not callouts.callouts and not line.startswith(("import", "export")):
            # Prose, most of a post: nothing below changes it (only MDX's import and export
            # lines start with a letter and are dropped).
            out.append(line)
            continue
        after_directive = _DIRECTIVE_OPEN.match(line) is not None
        line = _DEEP_INDENT.sub(" " * 32, _DEEP_QUOTE.sub("> " * 8, _DEEP_MARKERS.sub(r"\1", line)))
        line = callouts.line(_without_heading_attributes(_ATX_WITHOUT_SPACE.sub(r"\1 ", line)))
        line = "" if _EXTENSION_LINE.match(line) else line
        if found and not (found.group(2)[0] == "`" and "`" in found.group(3)):
            open_fence = (found.group(2)[0], len(found.group(2)))
        elif _LIST_LINE.match(line):
            if out and out[-1].strip() and not in_list:
                out.append("")
            in_list = True
        elif not line.strip():
            in_list = False
        out.append(line)
    return "\n".join(out)


# An MDC inline component (":badge[Beta]{color=amber}") shows its bracketed text, as a badge.
_INLINE_COMPONENT = lazy_re.compile(r"(?<![\w:]):[a-z][\w-]*\[([^\[\]]*)\](?:\{[^{}]*\})?")


# An empty JSX component ending a heading ('<Status level="beta" />') may show a maturity
# label: its text attribute, or else its first one, or with none its own name ('<Beta />'),
# is the heading's badge (an element with no text, so a value that is no label, an icon's
# name, never reads as a word).
_EMPTY_COMPONENT = lazy_re.compile(r"""[ \t]<([A-Z][\w.]{0,40})((?:[ \t]+[\w-]{1,40}=["'][^"'<>]{0,40}["']){0,4})"""
                                   r"[ \t]*/>[ \t]*$")
_COMPONENT_ATTRIBUTE = lazy_re.compile(r"""([\w-]+)=["']([^"']*)["']""")
# A short link to a place on the same page ending a heading ("[[toc](#contents)]", "[↑](#top)")
# is the site's way back up, not part of the heading's name. A heading that is nothing but
# such a link (a self-link: "## [Changes](#changes)") keeps it: it is the name.
_BACK_LINK = lazy_re.compile(r"(?<=\S)[ \t]+\[?\[[^\[\]]{1,20}\]\(#[^()\s]*\)\]?[ \t]*$")
_ATX_MARKER = lazy_re.compile(r"#{1,6}[ \t]+")


def _without_heading_attributes(line: str) -> str:
    """"## Title {#id}" -> "## Title"; "## Title :badge[Beta]" -> "## Title <span>Beta</span>"."""
    marker = _ATX_MARKER.match(line)
    if marker is None:
        return line
    line = line[:marker.end()] + _BACK_LINK.sub("", line[marker.end():])
    if component := _EMPTY_COMPONENT.search(line):
        values = dict(_COMPONENT_ATTRIBUTE.findall(component.group(2)))
        shown = values.get("text") or next(iter(values.values()), component.group(1))
        line = f'{line[:component.start()]} <span text="{shown}"></span>'
    return without_attributes(_INLINE_COMPONENT.sub(r"<span>\1</span>", line))


# Call-out boxes (MDX "<Note>", directives ":::tip", MDC "::callout") hold asides.
_CALLOUT_NAMES = (r"(?:note|tip|info|warning|caution|danger|important|callout|admonition|aside|alert|hint|"
                  r"notice|details|collapse|spoiler|explanation)\b")
_NAME_WORD = lazy_re.compile(r"[A-Z][a-z]+")
_COMPONENT_OPEN = lazy_re.compile(r"[ \t]*<([A-Z][\w.]*)\b[^<>]*(?<!/)>[ \t]*$")
_COMPONENT_CLOSE = lazy_re.compile(r"[ \t]*</([A-Z][\w.]*)>[ \t]*$")
# Hugo's shortcodes that wrap text: '{{< details title="Why?" >}}' ... '{{< /details >}}'.
_SHORTCODE_OPEN = lazy_re.compile(r"[ \t]*\{\{[<%][ \t]*([\w-]+)\b[^{}]*[>%]\}\}[ \t]*$")
_SHORTCODE_CLOSE = lazy_re.compile(r"[ \t]*\{\{[<%][ \t]*/([\w-]+)[ \t]*[>%]\}\}[ \t]*$")
_DIRECTIVE_OPEN = lazy_re.compile(r"[ \t]*:{2,}[ \t]*([\w-]+)")
_DIRECTIVE_CLOSE = lazy_re.compile(r"[ \t]*:{2,}[ \t]*$")
_TOP_HEADING = lazy_re.compile(r" {0,3}#{1,2}[ \t]")
# A box's title: '<Callout title="Highlights">', ":::tip[Summary]", ":::tip Summary".
_COMPONENT_TITLE = lazy_re.compile(r"""\btitle=\{?["']([^"'<>]+)["']""")
_DIRECTIVE_TITLE = lazy_re.compile(r"\[([^\[\]]+)\]|[ \t]+([^{}<>\s][^{}<>]*)$")


class _Callouts:
    """Which component and directive containers are open, line by line; inside a call-out
    box every line is quoted."""

    def __init__(self) -> None:
        # Open containers, innermost last: (component name or "" for a directive, call-out?).
        self.open: list[tuple[str, bool]] = []
        self.callouts = 0

    def line(self, line: str) -> str:
        named_open = _COMPONENT_OPEN.match(line) or _SHORTCODE_OPEN.match(line)
        if opened := named_open or _DIRECTIVE_OPEN.match(line):
            name = opened.group(1)
            # A component's name may join a word to the box's kind ("InfoBox", "DetailedExplanation").
            callout = any(re.match(_CALLOUT_NAMES, word, re.IGNORECASE) for word in (name, *_NAME_WORD.findall(name)))
            named = named_open is not None
            self.open.append((name if named else "", callout))
            self.callouts += callout
            title = (_COMPONENT_TITLE.search(line) if named
                     else _DIRECTIVE_TITLE.match(line, opened.end(1))) if callout else None
            if title:
                # The box's title, as its first quoted line: it names what the box holds
                # ("Highlights" over a list), as an admonition's does.
                return f"> {title[title.lastindex or 0].strip()}\n>"
        elif ((named_close := _COMPONENT_CLOSE.match(line) or _SHORTCODE_CLOSE.match(line))
              or _DIRECTIVE_CLOSE.match(line)):
            name = named_close.group(1) if named_close else ""
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


# Jekyll's Liquid tags around a code block: "{% highlight bash %}" ... "{% endhighlight %}".
_LIQUID_HIGHLIGHT = lazy_re.compile(r"^[ \t]*\{%-?[ \t]*highlight[ \t]+([\w+#-]*)[^%\n]*-?%\}[ \t]*$", re.MULTILINE)
_LIQUID_END = lazy_re.compile(r"^[ \t]*\{%-?[ \t]*endhighlight[ \t]*-?%\}[ \t]*$", re.MULTILINE)


def _liquid_fences(text: str) -> str:
    """Liquid's code blocks as the fences they render to: their lines are code, never headings."""
    if "highlight" not in text:
        return text
    return _LIQUID_END.sub("~~~~~~~~", _LIQUID_HIGHLIGHT.sub(r"~~~~~~~~\1", text))


# MkDocs' admonitions: '!!! tip "Title"' (or "???" folded) over lines indented four spaces.
_ADMONITION = lazy_re.compile(r'^(?:!!!|\?\?\?\+?)[ \t]+([\w-]+)(?:[ \t]+"([^"\n]*)")?[ \t]*$')


def _admonitions_quoted(text: str) -> str:
    """An admonition as the quote it renders as, its title the quote's first line: what it
    holds is an aside, or the highlights when its title says so ("Summary")."""
    if "!!!" not in text and "???" not in text:
        return text
    out: list[str] = []
    inside = False
    for line in text.split("\n"):
        if opened := _ADMONITION.match(line):
            out.append(f"> {opened.group(2) if opened.group(2) is not None else opened.group(1).capitalize()}")
            out.append(">")
            inside = True
        elif inside and (line.startswith(("    ", "\t")) or not line.strip()):
            out.append(f"> {line[4:] if line.startswith('    ') else line[1:]}".rstrip())
        else:
            if inside:
                _end_quote(out)
            inside = False
            out.append(line)
    return "\n".join(out)


def _end_quote(out: list[str]) -> None:
    """The blank lines after an admonition are the text's, not the quote's."""
    blanks = 0
    while out and out[-1] == ">":
        out.pop()
        blanks += 1
    out.extend([""] * blanks)


# An MDX post may name its authors in a component near its top, a line its reading drops:
# '<Authors authors={["ada", "lin"]} />', '<Byline author="ada" />'.
_AUTHORS_COMPONENT = lazy_re.compile(r"<(?:Authors?|Byline)\b([^<>]{0,2000})>")
_AUTHORS_PROP = lazy_re.compile(r"""\bauthors?=(?:\{\[([^\[\]]*)\]\}|["']([^"'<>]{1,100})["'])""")
_QUOTED = lazy_re.compile(r"""["']([^"',<>]{1,60})["']""")
_AUTHORS_REACH = 5000


def component_authors(text: str) -> str | None:
    """The names an author component near the top of an MDX post lists, joined by ", "."""
    component = _AUTHORS_COMPONENT.search(text, 0, _AUTHORS_REACH)
    prop = _AUTHORS_PROP.search(component.group(1)) if component else None
    if prop is None:
        return None
    names = _QUOTED.findall(prop.group(1)) if prop.group(1) is not None else [prop.group(2)]
    return ", ".join(name.strip() for name in names if name.strip()) or None


def render_markdown(text: str) -> str:
    # Raw HTML is kept (UNSAFE): posts hold headings and lists as HTML blocks, and what
    # reaches a page is sanitized later, from the outline.
    html: str = cmarkgfm.markdown_to_html_with_extensions(
        _prepare_markdown(_admonitions_quoted(_liquid_fences(text))), options=Options.CMARK_OPT_UNSAFE,
        extensions=["table"])
    return html
