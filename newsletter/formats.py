"""Post bytes and text -> one outline of typed blocks, whatever shape the post came in.

A post may be Markdown (with YAML or TOML front matter), an HTML page, reStructuredText-style
text with underlined headings, or a plain-text scrape that lost its heading markers. The
format and the encoding are sniffed from the content: file names and transport headers lie.

Structure comes from a parser's tree (python-markdown renders to HTML, lxml reads HTML), so
a `# comment` line inside code never turns into a heading. Only the plain-text shapes, which
have no markup to parse, are read line by line from their own layout.
"""

from __future__ import annotations

import codecs
import re
import threading
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from urllib.parse import urljoin, urlsplit

import charset_normalizer
import lxml.html
import markdown
import yaml
from lxml import etree


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    urls: tuple[str, ...] = ()
    # Inferred from a plain-text scrape's layout rather than marked up by the author.
    guessed: bool = False


@dataclass(frozen=True)
class Paragraph:
    text: str
    # Bold text opening the paragraph ("**(Beta) X** - ..."); equal to `text` when the
    # paragraph is nothing but bold text.
    lead: str | None = None
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListItem:
    # The item's own text, without its nested lists.
    text: str
    lead: str | None = None
    children: tuple[ListItem, ...] = ()
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListBlock:
    items: tuple[ListItem, ...]
    ordered: bool = False


@dataclass(frozen=True)
class Code:
    text: str


Block = Heading | Paragraph | ListBlock | Code


@dataclass(frozen=True)
class Document:
    """A post's outline plus what its wrapper (front matter, HTML head) says about it."""

    format: str  # "markdown" | "html" | "text"
    blocks: tuple[Block, ...]
    # Metadata as declared: title, author, date, language, canonical_url (strings).
    meta: dict[str, str] = field(default_factory=dict)

    @property
    def links(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for block in self.blocks:
            for url in _block_urls(block):
                seen.setdefault(url, None)
        return tuple(seen)


def _block_urls(block: Block) -> Iterator[str]:
    if isinstance(block, ListBlock):
        stack = list(reversed(block.items))
        while stack:
            item = stack.pop()
            yield from item.urls
            stack.extend(reversed(item.children))
    elif not isinstance(block, Code):
        yield from block.urls


# ---------------------------------------------------------------------------------------
# Encoding

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_XML_ENCODING = re.compile(rb"""^<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""")


def _codec(name: str | None) -> str | None:
    """The codec a declared charset names, if it is a text encoding ("rot13" is not)."""
    if not name:
        return None
    try:
        codec = codecs.lookup(name.strip().strip("\"'"))
    except (LookupError, ValueError):  # ValueError: a name with a NUL in it
        return None
    return codec.name if getattr(codec, "_is_text_encoding", True) else None


def decode(data: bytes, charset: str | None = None) -> str:
    """Bytes -> text: BOM, then the declared charset, then an HTML meta charset, then
    detection. Never raises; undecodable bytes become U+FFFD."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data[len(bom):].decode(encoding, errors="replace")
    head = data[:4096]
    found = _META_CHARSET.search(head) or _XML_ENCODING.search(head)
    declared = _codec(charset) or _codec(found.group(1).decode("ascii") if found else None)
    if declared:
        return data.decode(declared, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    # UTF-8 with a few stray bytes (a cut copy, one byte of another charset) stays UTF-8:
    # detection would read the whole text in some single-byte charset ("GrĂ¶Ăźe").
    text = data.decode("utf-8", errors="replace")
    stray = text.count("\ufffd")
    if sum(1 for ch in text if ch > "\x7f") - stray >= stray:
        return text
    best = charset_normalizer.from_bytes(data).best()
    if best is not None and best.encoding:
        return data.decode(best.encoding, errors="replace")
    return data.decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------------------
# Front matter

_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?\s*(---|\+\+\+)[ \t]*\r?\n(.*?)\r?\n\1[ \t]*(?:\r?\n|\Z)", re.S)


def split_front_matter(text: str) -> tuple[dict[str, object], str]:
    """YAML (`---`) or TOML (`+++`) front matter -> (mapping, body). Front matter that does
    not parse to a mapping is not front matter: the text comes back whole."""
    data, body, _problem = _front_matter(text)
    return (data, body) if data is not None else ({}, text)


def front_matter_problem(text: str) -> str | None:
    """Why the front matter block opening `text` is not used, if there is one and it is not."""
    return _front_matter(text)[2]


def _front_matter(text: str) -> tuple[dict[str, object] | None, str, str | None]:
    """(mapping or None, body, why a block that looks like front matter is not one)."""
    found = _FRONT_MATTER.match(text)
    if not found:
        return None, text, None
    fence, raw = found.groups()
    language = "TOML" if fence == "+++" else "YAML"
    try:
        data = tomllib.loads(raw) if fence == "+++" else yaml.safe_load(raw)
    except yaml.MarkedYAMLError as exc:
        where = f"line {exc.problem_mark.line + 2}: " if exc.problem_mark else ""
        return None, text, f"front matter is not valid YAML ({where}{exc.problem or exc.context}), read as text"
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split())[:200]
        return None, text, f"front matter is not valid {language} ({reason}), read as text"
    if not isinstance(data, dict):
        return None, text, f"front matter is not a mapping of keys (a {type(data).__name__}), read as text"
    return data, text[found.end():], None


_META_KEYS = {
    "title": ("title",),
    "author": ("author", "authors", "by"),
    "date": ("date", "published", "pubdate", "publishdate", "created"),
    "language": ("lang", "language", "locale"),
    "canonical_url": ("canonical_url", "canonical", "canonicalurl", "original", "original_url", "source_url"),
}


def _front_matter_meta(data: dict[str, object]) -> dict[str, str]:
    lowered = {str(key).lower().replace("-", "_"): value for key, value in data.items()}
    meta: dict[str, str] = {}
    for name, keys in _META_KEYS.items():
        for key in keys:
            value = lowered.get(key)
            if isinstance(value, list) and value:
                value = value[0]
            if isinstance(value, dict):
                value = value.get("name")
            if isinstance(value, (datetime, date)):
                value = value.isoformat()
            if isinstance(value, (str, int, float)) and str(value).strip():
                meta[name] = str(value).strip()
                break
    return meta


# ---------------------------------------------------------------------------------------
# Sniffing

_HTML_START = re.compile(r"\A\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|article|main)\b", re.I | re.S)
_CLOSING_BLOCK_TAG = re.compile(r"</(?:p|div|h[1-6]|ul|ol|li|section|table|span)>", re.I)
_ATX = re.compile(r"^#{1,6}[ \t]+\S", re.M)
_ATX_WITH_NEXT = re.compile(r"^#{1,6}[ \t]+(\S.*)\n?(.*)$", re.M)
# Signals only Markdown gives: fences, links and strong emphasis ("__" is left out: it is
# how Python spells "__init__").
_MARKDOWN_ONLY = (
    re.compile(r"^ {0,3}(?:```|~~~)", re.M),
    re.compile(r"\[[^\[\]\n]{1,300}\]\([^)\s]{1,500}\)"),
    re.compile(r"\*\*\S[^*\n]*\*\*"),
)
_MARKDOWN_SIGNALS = (
    *_MARKDOWN_ONLY,
    re.compile(r"^ {0,3}[-*+][ \t]+\S", re.M),  # bullet lists
    re.compile(r"^ {0,3}>[ \t]?\S", re.M),  # block quotes
    re.compile(r"^<(?:h[1-6]|p|div|table|details|img)\b", re.M | re.I),  # raw HTML blocks
    # Setext headings; reST text has them too, so they count only beside other signals.
    re.compile(r"^[^\s=-][^\n]*\n(?:=+|-+)[ \t]*$", re.M),
)


# What reStructuredText has and Markdown has not; a setext heading and a bullet list are
# both, so a reST post reads as Markdown on those alone.
_REST_SIGNALS = (
    re.compile(r"^([=\-~^*+#])\1{2,}[ \t]*\n[^\n]+\n\1{3,}[ \t]*$", re.M),  # overlined title
    re.compile(r"^\.\. [\w-]+::", re.M),  # directives
    re.compile(r"^:[A-Za-z][\w -]*:[ \t]+\S", re.M),  # field lists (":Author: ...")
    re.compile(r"::[ \t]*\n[ \t]*\n[ \t]+\S"),  # literal blocks
)


def sniff_format(text: str, media_type: str | None = None) -> str:
    """"markdown" | "html" | "text", judged from the content; the media type only breaks
    a tie for a document that opens with a tag."""
    head = text[:4096]
    if _HTML_START.match(head):
        return "html"
    if head.lstrip().startswith("<") and (
            media_type and "html" in media_type.lower() or _CLOSING_BLOCK_TAG.search(head)):
        return "html"
    sample = text[:200_000]
    # A "# comment" line from code sits on code or says code; a heading stands apart or
    # sits on prose.
    atx_headings = sum(1 for found in _ATX_WITH_NEXT.finditer(sample)
                       if not _looks_like_code(found.group(1)) and _opens_prose(found.group(2)))
    signals = sum(1 for pattern in _MARKDOWN_SIGNALS if pattern.search(sample))
    opens_with_heading = bool(_ATX.match(sample.lstrip()))
    if not atx_headings and any(p.search(sample) for p in _REST_SIGNALS) \
            and not any(p.search(sample) for p in _MARKDOWN_ONLY):
        return "text"
    # A scrape may keep a few "# comment" lines from code: ATX-like lines alone are not
    # enough, unless the text opens with one or has many.
    if signals >= 1 and (atx_headings or signals >= 2) or opens_with_heading or atx_headings >= 3:
        return "markdown"
    return "text"


# ---------------------------------------------------------------------------------------
# Entry point


# Characters XML cannot hold; lxml refuses text that has them.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def parse(text: str, media_type: str | None = None, base_url: str | None = None) -> Document:
    """Any post text -> Document. Never raises on malformed input: a parser that gives up
    (pathological nesting) falls back to reading the text's layout."""
    text = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    front_matter, body = split_front_matter(text)
    meta = _front_matter_meta(front_matter)
    shape = sniff_format(body, media_type)
    try:
        if shape == "html":
            document = _parse_page(body, base_url)
        elif shape == "markdown":
            document = Document("markdown", _blocks_from_html(_render_markdown(body), base_url))
        else:
            document = Document("text", _text_blocks(body))
    except (RecursionError, ValueError, etree.LxmlError):
        document = Document(shape, _text_blocks(body))
    return Document(document.format, document.blocks, {**document.meta, **meta})


# ---------------------------------------------------------------------------------------
# Markdown

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


def _markdown() -> markdown.Markdown:
    # One instance per thread, reset between posts: building one costs more than a post.
    if not hasattr(_local, "markdown"):
        renderer = markdown.Markdown(extensions=["fenced_code", "tables"])
        # Inline patterns whose output the outline never looks at; each one costs a pass
        # over every run of text.
        for name in ("image_reference", "short_image_ref", "automail", "linebreak", "not_strong"):
            renderer.inlinePatterns.deregister(name, strict=False)
        _local.markdown = renderer
    return _local.markdown


def _prepare_markdown(text: str) -> str:
    """Bring the text to what python-markdown reads the way authors mean it (CommonMark):
    fence openers indented up to three spaces are dedented, info strings that are not a
    language name are dropped, a fence left open runs to the end of the post, a list may
    start right under a paragraph line ("Summary:" then "- item"), and list items nest by
    CommonMark's rule."""
    lines = text.split("\n")
    out: list[str] = []
    open_fence: tuple[str, int] | None = None
    in_list = False
    lists = _ListIndentation()
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


def _render_markdown(text: str) -> str:
    try:
        return _markdown().reset().convert(_prepare_markdown(text))
    except BaseException:
        # A parse given up half-way (RecursionError) leaves the parser's block state in
        # the middle of a list, which reset() keeps: the next post would be read wrongly.
        del _local.markdown
        raise


# ---------------------------------------------------------------------------------------
# HTML -> blocks

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CONTAINERS = {
    "div", "section", "article", "main", "blockquote", "body", "html", "center", "details",
    "dl", "dd", "dt", "header", "hgroup",
}
_SKIPPED = {"table", "figure", "figcaption", "img", "hr", "script", "style", "noscript",
            "template", "svg", "iframe", "button", "select", "video", "audio", "canvas", "head",
            "title", "meta", "link", "input", "object", "embed", "math", "summary"}
_INLINE_BREAKS = {"br"}
_STRONG = {"strong", "b"}
_BARE_URL = re.compile(r"https?://[^\s<>\"'`)\]}（）]+")
# Deeper nesting than this is read as flat text: real posts never come close.
_MAX_DEPTH = 120


def _clean(text: str) -> str:
    return " ".join(text.split())


def _tag(element: etree._Element) -> str:
    tag = element.tag
    return tag.lower() if isinstance(tag, str) else ""


def _urls(element: etree._Element, text: str, base_url: str | None) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for anchor in element.iter("a"):
        href = (anchor.get("href") or "").strip()
        if base_url:
            href = urljoin(base_url, href)
        if urlsplit(href).scheme in ("http", "https") and urlsplit(href).netloc:
            found.setdefault(href, None)
    for match in _BARE_URL.finditer(text):
        found.setdefault(match.group().rstrip(".,;:!?。，；：！？"), None)
    return tuple(found)


# What site generators append to a heading to link to it: "#", "¶", "§", "🔗".
_PERMALINK = re.compile(r"^[^\w\s]{1,2}$")


def _heading_text(element: etree._Element) -> str:
    """A heading's text without the permalink a site generator put inside it: a link to
    the page itself whose text is a symbol."""
    text = _clean(element.text_content())
    for anchor in element.iter("a"):
        symbol = _clean(anchor.text_content())
        if symbol and (anchor.get("href") or "").startswith("#") and _PERMALINK.match(symbol):
            if text.endswith(symbol):
                text = text[:-len(symbol)].rstrip()
            elif text.startswith(symbol):
                text = text[len(symbol):].lstrip()
    return text


def _lead(element: etree._Element) -> str | None:
    """Bold text that opens the element, directly, inside a first paragraph (a loose list
    item) or wrapped in emphasis ("***X***")."""
    if (element.text or "").strip():
        return None
    children = [child for child in element if isinstance(child.tag, str)]
    if not children:
        return None
    first = children[0]
    if _tag(first) == "p":
        return _lead(first)
    if _tag(first) in ("em", "i") and not (first.text or "").strip():
        inner = [child for child in first if isinstance(child.tag, str)]
        if not inner or _tag(inner[0]) not in _STRONG:
            return None
    elif _tag(first) not in _STRONG:
        return None
    return _clean(first.text_content()) or None


def _list_block(element: etree._Element, base_url: str | None, depth: int) -> ListBlock:
    items = []
    for child in element:
        if _tag(child) == "li":
            items.append(_list_item(child, base_url, depth + 1))
    return ListBlock(tuple(items), ordered=_tag(element) == "ol")


def _list_item(element: etree._Element, base_url: str | None, depth: int) -> ListItem:
    parts: list[str] = [element.text or ""]
    children: list[ListItem] = []
    for child in element:
        tag = _tag(child)
        if tag in ("ul", "ol") and depth < _MAX_DEPTH:
            children.extend(_list_block(child, base_url, depth).items)
        elif tag not in ("ul", "ol", "pre") and tag not in _SKIPPED:
            parts.append(child.text_content())
        parts.append(child.tail or "")
    text = _clean(" ".join(parts))
    return ListItem(text, _lead(element) if text else None, tuple(children), _urls(element, text, base_url))


def _paragraph(element: etree._Element, base_url: str | None) -> Paragraph | None:
    text = _clean(element.text_content())
    if not text:
        return None
    return Paragraph(text, _lead(element), _urls(element, text, base_url))


def _walk(element: etree._Element, base_url: str | None, depth: int, out: list[Block]) -> None:
    """Append the blocks inside `element`. Loose inline text between blocks (a `<div>` with
    bare text) becomes a paragraph of its own."""
    inline: list[str] = [element.text or ""]
    inline_elements: list[etree._Element] = []

    def flush() -> None:
        text = _clean(" ".join(inline))
        if text:
            anchors = [url for inline_element in inline_elements for url in _urls(inline_element, "", base_url)]
            out.append(Paragraph(text, None, tuple(dict.fromkeys([*anchors, *_bare_urls(text)]))))
        inline.clear()
        inline_elements.clear()

    for child in element:
        tag = _tag(child)
        if not tag:  # comments, processing instructions
            inline.append(child.tail or "")
            continue
        if tag in _HEADINGS or tag in ("p", "ul", "ol", "pre") or tag in _CONTAINERS or tag in _SKIPPED:
            flush()
            if tag in _HEADINGS:
                text = _heading_text(child)
                if text:
                    out.append(Heading(_HEADINGS[tag], text, _urls(child, text, base_url)))
            elif tag == "p":
                paragraph = _paragraph(child, base_url)
                if paragraph:
                    out.append(paragraph)
            elif tag in ("ul", "ol"):
                block = _list_block(child, base_url, depth)
                if block.items:
                    out.append(block)
            elif tag == "pre":
                out.append(Code(child.text_content()))
            elif tag in _CONTAINERS:
                if depth < _MAX_DEPTH:
                    _walk(child, base_url, depth + 1, out)
                else:
                    paragraph = _paragraph(child, base_url)
                    if paragraph:
                        out.append(paragraph)
            inline.append(child.tail or "")
        else:
            inline.append("\n" if tag in _INLINE_BREAKS else child.text_content())
            inline_elements.append(child)
            inline.append(child.tail or "")
    flush()


def _blocks_from_html(html: str, base_url: str | None) -> tuple[Block, ...]:
    if not html.strip():
        return ()
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    out: list[Block] = []
    _walk(root, base_url, 0, out)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# HTML pages: find the article, drop the page around it

_CHROME_TAGS = ("nav", "aside", "footer", "script", "style", "noscript", "template",
                "iframe", "svg", "button", "menu", "dialog")
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog"}
_CHROME_WORDS = {"nav", "navbar", "navigation", "menu", "sidebar", "breadcrumb", "breadcrumbs", "toc", "toctree",
                 "footer", "comments", "comment", "share", "sharing", "social", "related", "cookie",
                 "cookies", "banner", "skip", "pagination", "masthead", "subscribe", "widget"}
_CLASS_WORD = re.compile(r"[a-z]+")
_CONTENTS_LIST = re.compile(r"table[-_ ]?of[-_ ]?contents")


def _is_chrome(element: etree._Element) -> bool:
    if (element.get("role") or "").lower() in _CHROME_ROLES:
        return True
    if _tag(element) in ("body", "html", "article", "main"):
        return False
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    return bool(_CHROME_WORDS.intersection(_CLASS_WORD.findall(names))) or bool(_CONTENTS_LIST.search(names))


def _text_weight(element: etree._Element) -> int:
    return sum(len(_clean(p.text_content())) for p in element.iter("p", "li", "pre"))


def _article_root(body: etree._Element) -> etree._Element:
    whole = _text_weight(body)
    for path in ("//article", "//main", "//*[@role='main']"):
        found = body.xpath(path)
        best = max(found, key=_text_weight) if found else None
        # Pages also wrap teasers of other posts in <article>: the post holds most text.
        if best is not None and _text_weight(best) * 2 >= whole:
            return best
    # The densest block: the element holding the most paragraph text directly.
    best, best_weight = body, 0
    for element in body.iter("div", "section", "td", "body"):
        weight = sum(len(_clean(p.text_content())) for p in element if _tag(p) in ("p", "pre", "ul", "ol"))
        if weight > best_weight:
            best, best_weight = element, weight
    return best


def _meta_content(root: etree._Element, *names: str) -> str | None:
    for name in names:
        for element in root.xpath(f"//meta[@property='{name}' or @name='{name}' or @itemprop='{name}']"):
            content = _clean(element.get("content") or "")
            if content:
                return content
    return None


_TITLE_PARTS = re.compile(r"\s+[|–—·-]\s+")


def _page_meta(root: etree._Element, article: etree._Element) -> dict[str, str]:
    meta: dict[str, str] = {}
    headings = article.xpath(".//h1") or root.xpath("//h1")
    # A page's <title> usually carries the site's name after a bar or dash.
    page_title = _TITLE_PARTS.split(_clean(root.findtext(".//title") or ""))[0]
    title = (_clean(headings[0].text_content()) if len(headings) == 1 else None) \
        or _meta_content(root, "og:title", "twitter:title") or page_title
    if title:
        meta["title"] = title
    author = _meta_content(root, "author", "article:author", "dc.creator")
    if not author:
        marked = "//*[@rel='author' or contains(@class, 'author') or contains(@class, 'byline')]"
        for element in article.xpath("." + marked) or root.xpath(marked):
            author = _clean(element.text_content())
            if author:
                break
    if author and len(author) < 100:
        meta["author"] = author
    published = _meta_content(root, "article:published_time", "datePublished", "date", "dc.date")
    if not published:
        times = article.xpath(".//time[@datetime]") or root.xpath("//time[@datetime]")
        published = times[0].get("datetime") if times else None
    if published:
        meta["date"] = published
    language = root.get("lang") or root.get("xml:lang") or _meta_content(root, "og:locale", "language")
    if language:
        meta["language"] = language
    canonical = root.xpath("//link[@rel='canonical']/@href")
    canonical_url = (canonical[0].strip() if canonical else None) or _meta_content(root, "og:url")
    if canonical_url:
        meta["canonical_url"] = canonical_url
    return meta


# A form's box holds a heading and a line or two of pitch ("Stay in the loop"), no more.
_MAX_FORM_BOX_TEXT = 400


def _drop_form_boxes(body: etree._Element) -> None:
    """A form (sign-up, search, comment) and the small box around it are page furniture;
    the box ends where a container holds more text than a pitch."""
    for form in list(body.iter("form")):
        # Some frameworks wrap the whole page in one form: that one is not furniture.
        if form.getparent() is None or len(_clean(form.text_content())) > _MAX_FORM_BOX_TEXT:
            continue
        box = form
        parent = form.getparent()
        while (parent is not None and _tag(parent) not in ("body", "html", "article", "main")
               and len(_clean(parent.text_content())) <= _MAX_FORM_BOX_TEXT):
            box, parent = parent, parent.getparent()
        if box.getparent() is not None:
            box.drop_tree()


def _parse_page(text: str, base_url: str | None) -> Document:
    root = lxml.html.document_fromstring(text)
    base = root.xpath("//base/@href")
    base_url = urljoin(base_url or "", base[0]) if base else base_url
    body = root.find("body")
    if body is None:
        body = root
    _drop_form_boxes(body)
    for element in list(body.iter(*_CHROME_TAGS)):
        if element.getparent() is not None:
            element.drop_tree()
    # A class word can mislead ("post has-toc"): what holds most of the text stays.
    total = _text_weight(body)
    for element in [e for e in body.iter() if isinstance(e.tag, str) and _is_chrome(e)]:
        if element.getparent() is not None and _text_weight(element) * 2 < total:
            element.drop_tree()
    article = _article_root(body)
    meta = _page_meta(root, article)
    out: list[Block] = []
    _walk(article, base_url, 0, out)
    return Document("html", tuple(out), meta)


# ---------------------------------------------------------------------------------------
# Plain text: reST-style underlined headings, or scrapes that lost their markup

_BULLET = re.compile(r"^(\s*)(?:[•◦▪▫‣●○■□·*+-]|\d{1,3}[.)])\s+(\S.*)$")
_UNDERLINE = re.compile(r"^([=\-~^*+#`'\".:_])\1{2,}\s*$")
# A scrape's heading is a short line: longer ones are sentences.
_MAX_HEADING_CHARS = 100
_MAX_TITLE_CHARS = 200
# Sentence ends, and a colon: a line that introduces what follows is not a title.
_TERMINAL = (".", "!", "?", "。", "！", "？", ";", "；", ",", "，", ":", "：")
_SENTENCE_ENDS = (".", "!", "?", "。", "！", "？", ":", "：")
_SENTENCE_BREAK = re.compile(r"[.!?。！？]\s+\S")
# Lines a scrape keeps from code blocks: comments, prompts, statements, assignments, calls.
_CODE_LINE = re.compile(
    r"^(?:#|//|>>>|\$ |import |from \S+ import |def |class |return\b|"
    r"[\w.\[\]'\"]+\s*[-+*/]?=[^=]|[\w.]+\(.*\)[;,]?$|[})\]];?$)")


def _groups(text: str) -> list[list[str]]:
    """Runs of non-blank lines; a bullet line right under a line of prose starts a new run
    ("Summary:" then "- item"). Bullet runs apart only by blank lines are one loose list:
    pages space their list items as often as not."""
    groups: list[list[str]] = [[]]
    for line in text.split("\n"):
        if not line.strip():
            if groups[-1]:
                groups.append([])
            continue
        if groups[-1] and _BULLET.match(line) and not _BULLET.match(groups[-1][0]):
            groups.append([])
        elif not groups[-1] and len(groups) > 1 and _BULLET.match(line) and _BULLET.match(groups[-2][0]):
            groups.pop()
        groups[-1].append(line.rstrip())
    return [group for group in groups if group]


def _is_list_group(group: list[str]) -> bool:
    return bool(_BULLET.match(group[0]))


def _text_list(group: list[str]) -> ListBlock:
    """Bullet lines -> items nested by indentation; unmarked lines continue the item above."""
    roots: list[ListItem] = []
    # Items under construction as (indent, text parts, finished children), innermost last.
    stack: list[tuple[int, list[str], list[ListItem]]] = []

    def close_to(indent: int) -> None:
        while stack and stack[-1][0] >= indent:
            _, parts, children = stack.pop()
            text = _clean(" ".join(parts))
            item = ListItem(text, _text_lead(text), tuple(children), _bare_urls(text))
            (stack[-1][2] if stack else roots).append(item)

    ordered = bool(re.match(r"^\s*\d", group[0]))
    for line in group:
        found = _BULLET.match(line)
        if found:
            indent = len(found.group(1).expandtabs(4))
            close_to(indent)
            if len(stack) < _MAX_DEPTH:
                stack.append((indent, [found.group(2)], []))
            else:
                stack[-1][1].append(found.group(2))
        elif stack:
            stack[-1][1].append(line.strip())
    close_to(-1)
    return ListBlock(tuple(roots), ordered)


# Plain text has no bold: an item's lead is its name before a dash or colon ("X - does y").
_TEXT_LEAD = re.compile(r"^(.{1,80}?)\s+[-–—]\s+\S|^([^:：]{1,80})[:：]\s+\S")


def _text_lead(text: str) -> str | None:
    found = _TEXT_LEAD.match(text)
    return (found.group(1) or found.group(2)).strip() if found else None


def _bare_urls(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.group().rstrip(".,;:!?。，；：！？") for m in _BARE_URL.finditer(text)))


def _looks_like_code(line: str) -> bool:
    return bool(_CODE_LINE.match(line.strip()))


# Prose runs on: a sentence's end, or more words than a command line has.
_PROSE_WORDS = 8


def _opens_prose(line: str) -> bool:
    """Whether a line under a "# ..." line may be a heading's text: blank, or prose rather
    than a command ("osprey run nightly") or a statement."""
    line = line.strip()
    return not line or not _looks_like_code(line) and (
        line.endswith(_SENTENCE_ENDS) or len(line.split()) >= _PROSE_WORDS)


def _is_code_group(group: list[str]) -> bool:
    return sum(map(_looks_like_code, group)) * 2 > len(group)


def _heading_candidate(group: list[str], max_chars: int = _MAX_HEADING_CHARS) -> bool:
    """A lone short line that reads like a title, not a sentence or a line of code."""
    if len(group) != 1:
        return False
    line = group[0].strip()
    return (0 < len(line) <= max_chars and not line.endswith(_TERMINAL)
            and any(ch.isalpha() for ch in line) and not _looks_like_code(line)
            and not _BULLET.match(group[0]) and "://" not in line and not _SENTENCE_BREAK.search(line))


def _is_underline(line: str, title: str) -> bool:
    # reST asks the underline to span the title; a short rule under a line is a separator.
    return bool(_UNDERLINE.match(line)) and len(line.strip()) * 10 >= len(title.strip()) * 7


def _underlined(groups: list[list[str]]) -> bool:
    return any(len(g) >= 2 and _is_underline(g[1], g[0]) and not _UNDERLINE.match(g[0]) for g in groups)


def _plain_block(lines: list[str], *, indented_is_code: bool = False) -> Block:
    """A run of lines that is not a heading: a list, code, or a paragraph. reST indents
    its literal blocks; scrapes often indent every paragraph."""
    if _is_list_group(lines):
        return _text_list(lines)
    if _is_code_group(lines) or indented_is_code and all(line.startswith((" ", "\t")) for line in lines):
        return Code("\n".join(lines))
    text = _clean(" ".join(lines))
    return Paragraph(text, _text_lead(text), _bare_urls(text))


def _text_blocks(text: str) -> tuple[Block, ...]:
    groups = _groups(text)
    if _underlined(groups):
        return tuple(_underlined_blocks(groups))
    blocks: list[Block] = []
    if groups and 2 <= len(groups[0]) <= 4 and all(_heading_candidate([line]) for line in groups[0]):
        # A scrape may open with its title and a line or two of byline and date, unspaced.
        title, *details = groups.pop(0)
        blocks.append(Heading(1, title.strip(), guessed=True))
        blocks.extend(Paragraph(line.strip()) for line in details)
    for index, group in enumerate(groups):
        following = groups[index + 1] if index + 1 < len(groups) else None
        # A post's title, its first line, runs longer than its headings.
        limit = _MAX_TITLE_CHARS if index == 0 and not blocks else _MAX_HEADING_CHARS
        if _heading_candidate(group, limit) and following is not None:
            if _heading_candidate(following):
                # A heading right above another heading groups the ones below it.
                blocks.append(Heading(1, group[0].strip(), guessed=True))
                continue
            if not _is_list_group(following) and not _is_code_group(following):
                blocks.append(Heading(2, group[0].strip(), guessed=True))
                continue
        blocks.append(_plain_block(group))
    return tuple(_raise_introducing_headings(blocks))


def _raise_introducing_headings(blocks: list[Block]) -> list[Block]:
    """A heading whose text ends by introducing what follows ("Details are below:") groups
    the headings after it."""
    heading_indexes = [i for i, block in enumerate(blocks) if isinstance(block, Heading)]
    for index, following in zip(heading_indexes, heading_indexes[1:]):
        last = blocks[following - 1]
        if (blocks[index].level == 2 and following - 1 > index and isinstance(last, Paragraph)
                and last.text.endswith((":", "："))):
            blocks[index] = Heading(1, blocks[index].text, guessed=True)
    return blocks


def _underlined_blocks(groups: list[list[str]]) -> Iterator[Block]:
    """reST-style text: a heading is a line underlined (and maybe overlined) with one
    repeated punctuation character; levels follow the order in which styles first appear."""
    styles: list[tuple[str, bool]] = []
    for group in groups:
        lines = list(group)
        while lines:
            overline = len(lines) >= 3 and _is_underline(lines[0], lines[1]) and _is_underline(lines[2], lines[1])
            if overline or (len(lines) >= 2 and _is_underline(lines[1], lines[0]) and not _UNDERLINE.match(lines[0])):
                title = lines[1] if overline else lines[0]
                style = ((lines[2] if overline else lines[1]).strip()[0], bool(overline))
                if style not in styles:
                    styles.append(style)
                yield Heading(styles.index(style) + 1, title.strip())
                lines = lines[3 if overline else 2:]
                continue
            yield _plain_block(lines, indented_is_code=True)
            lines = []
