"""HTML -> outline blocks: headings, paragraphs with their bold leads, lists, code."""

from __future__ import annotations

import itertools
import re
from urllib.parse import urljoin

import lxml.html
from lxml.html import HtmlElement

from newsletter import lazy_re
from newsletter.text.outline import Block, Code, Heading, ListBlock, ListItem, Paragraph

_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CONTAINERS = {
    "div", "section", "article", "main", "blockquote", "aside", "body", "html", "center", "details",
    "dl", "dd", "dt", "header", "hgroup",
}
_SKIPPED = {"table", "figure", "figcaption", "img", "hr", "script", "style", "noscript",
            "template", "svg", "iframe", "button", "select", "video", "audio", "canvas", "head",
            "title", "meta", "link", "input", "object", "embed", "math", "summary"}
_INLINE_BREAKS = {"br"}
_QUOTES = {"blockquote", "aside"}
# Class words of the boxes sites render notes and warnings in.
_CALLOUT_CLASSES = {"admonition", "callout", "alert", "note", "tip", "warning", "caution", "notice", "danger", "hint"}
_CLASS_WORD = lazy_re.compile(r"[a-z]+")
_STRONG = {"strong", "b"}
# An absolute http(s) URL with a host.
_WEB_URL = lazy_re.compile(r"https?://[^/?#\s]", re.IGNORECASE)
_BARE_URL = lazy_re.compile(r"https?://[^\s<>\"'`)\]}（）]+")
# Deeper nesting than this is read as flat text: real posts never come close.
MAX_DEPTH = 120


def bare_urls(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.group().rstrip(".,;:!?。，；：！？") for m in _BARE_URL.finditer(text)))


def squash_space(text: str) -> str:
    return " ".join(text.split())


def tag_name(element: HtmlElement) -> str:
    tag = element.tag
    return tag.lower() if isinstance(tag, str) else ""


def _urls(element: HtmlElement, text: str, base_url: str | None) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for anchor in element.iter("a"):
        href = (anchor.get("href") or "").strip()
        if base_url:
            href = urljoin(base_url, href)
        if _WEB_URL.match(href):
            found.setdefault(href, None)
    for match in _BARE_URL.finditer(text):
        found.setdefault(match.group().rstrip(".,;:!?。，；：！？"), None)
    return tuple(found)


# What site generators append to a heading to link to it: "#", "¶", "§", "🔗".
_PERMALINK = lazy_re.compile(r"^[^\w\s]{1,2}$")
# A pull request's or an issue's number, or a commit's short hash.
_CHANGE_NUMBER = lazy_re.compile(r"(?:#|!|GH-)\d+|(?=[a-f]*\d)[0-9a-f]{7,12}", re.IGNORECASE)
# A changelog's category tag before an item's bold name, in capitals: "[FEATURE] **Sync**".
_CATEGORY_TAG = lazy_re.compile(r"\s*\[[A-Z]{3,12}\]\s*")


# Heading attributes (Pandoc, kramdown, MDX, Writerside): "Title {#title}", "{/*id*/}",
# '{collapsible="true"}'.
_ATTRIBUTES = lazy_re.compile(r"\{(?:[#.:/][^{}]*|[\w-]+=[^{}]*)\}[ \t]*")


# A short bracketed tail an author may set after the attributes: "Title {#title} (Beta)".
_TAIL = lazy_re.compile(r"[(\[（【][^()\[\]{}（）【】]{1,30}[)\]）】][ \t]*$")


def without_attributes(text: str) -> str:
    """"Title {#title}" -> "Title", "Title {#title} (Beta)" -> "Title (Beta)"; found from the
    last brace, so a line costs its length."""
    brace = text.rfind("{")
    found = _ATTRIBUTES.match(text, brace) if brace > 0 else None
    if found is None:
        return text
    tail = text[found.end():]
    if not tail:
        return text[:brace].rstrip()
    return f"{text[:brace].rstrip()} {tail.strip()}" if _TAIL.fullmatch(tail) else text


_CATEGORY_CLASS = lazy_re.compile(r"(?:^|[\s_-])(?:label|cate(?:gory)?|prefix)(?:$|[\s_-])", re.IGNORECASE)
_MATURITY = lazy_re.compile(r"[\[(]?(?:stable|beta|alpha|preview|experimental|deprecated|prototype|new)[\])]?",
                            re.IGNORECASE)


def heading_text(element: HtmlElement) -> str:
    """A heading's text without the permalink a site generator put inside it (a link to
    the page itself whose text is a symbol) or attributes a renderer left as text."""
    text = without_attributes(squash_space(element.text_content()))
    # A forum or a board files a topic under a category it shows first in the topic's
    # heading ("<span class="label">Announcement</span> Lumen 2.0 released"): no part of the
    # title. (A maturity label in a badge is the heading's; a part's tag names its component.)
    first = next(element.iterchildren(), None)
    if (first is not None and tag_name(element) == "h1" and tag_name(first) == "span"
            and not (element.text or "").strip() and _CATEGORY_CLASS.search(first.get("class", ""))):
        category = squash_space(first.text_content())
        rest = text[len(category):].strip() if category and text.startswith(category) else ""
        if rest and not _MATURITY.fullmatch(category):
            text = rest
    for anchor in element.iter("a"):
        symbol = squash_space(anchor.text_content())
        if symbol and (anchor.get("href") or "").startswith("#") and _PERMALINK.match(symbol):
            if text.endswith(symbol):
                text = text[:-len(symbol)].rstrip()
            elif text.startswith(symbol):
                text = text[len(symbol):].lstrip()
    return _without_reference_link(element, text)


# The kind of document a heading's trailing link points to: "RFC", "PR", a project's own proposals.
_REFERENCE_KIND = lazy_re.compile(r"[A-Z]{2,4}")


def _without_reference_link(heading: HtmlElement, text: str) -> str:
    """A heading may end in a link to the proposal behind the feature, named by its kind
    ("Pipe operator <a>RFC</a>"): a badge, not a word of the feature's name."""
    last = heading[-1] if len(heading) else None
    if last is None or tag_name(last) != "a" or (last.tail or "").strip():
        return text
    kind = squash_space(last.text_content())
    href = last.get("href") or ""
    if _REFERENCE_KIND.fullmatch(kind) and not href.startswith("#") and text.endswith(f" {kind}"):
        return text[:-len(kind)].rstrip()
    return text


# Inline elements sites render a heading's badge with (a "<Badge text=...>" or "<Tag>"
# component, a shield image, a styled span); a badge is a word or two. (A code span
# names code: "Support for `preview`".)
_BADGE_TAGS = {"span", "sup", "small", "mark", "badge", "tag", "img"}
_MAX_BADGE = 30


def _edge_badge(heading: HtmlElement) -> str | None:
    """The text of the inline element that ends (or opens) a heading, if it is short."""
    children = [child for child in heading if isinstance(child.tag, str)
                and not (tag_name(child) == "a" and _PERMALINK.match(squash_space(child.text_content())))]
    if not children:
        return None
    last, first = children[-1], children[0]
    for child, alone in ((last, not (last.tail or "").strip()), (first, not (heading.text or "").strip())):
        if alone and tag_name(child) in _BADGE_TAGS:
            text = squash_space(child.get("text") or child.get("alt") or child.text_content())
            if 0 < len(text) <= _MAX_BADGE:
                return text
    return None


def _lead(element: HtmlElement) -> str | None:
    """Bold text that opens the element, directly, inside a first paragraph (a loose list
    item) or wrapped in emphasis ("***X***"), maybe after a changelog's category tag."""
    if (element.text or "").strip() and not _CATEGORY_TAG.fullmatch(element.text or ""):
        return None
    children = [child for child in element if isinstance(child.tag, str)]
    if not children:
        return None
    first = children[0]
    if tag_name(first) == "p":
        return _lead(first)
    # A changelog's item opens with the number of its change's pull request, linked, before
    # its bold name: "#4821 **Faster sync** (beta)".
    if (tag_name(first) == "a" and _CHANGE_NUMBER.fullmatch(squash_space(first.text_content()))
            and not (first.tail or "").strip() and len(children) > 1):
        first = children[1]
    credited = _past_credits(children)
    first = first if credited is None else credited
    if tag_name(first) in ("em", "i") and not (first.text or "").strip():
        inner = [child for child in first if isinstance(child.tag, str)]
        if not inner or tag_name(inner[0]) not in _STRONG:
            return None
    elif tag_name(first) not in _STRONG:
        return None
    return squash_space(first.text_content()) or None


# A changeset's item credits its change before its bold name: the commit, the pull request,
# who made it ("abc1234 #3988 Thanks @ada! - **Faster sync**").
_CREDIT = lazy_re.compile(rf"{_CHANGE_NUMBER.pattern}|@[\w-]{{1,39}}", re.IGNORECASE)
_CREDIT_GLUE = lazy_re.compile(r"\s*(?:thanks\s*)?(?:!?\s*[-–—:]\s*)?", re.IGNORECASE)


def _past_credits(children: list[HtmlElement]) -> HtmlElement | None:
    """The element after an item's run of two or more credit links, when one follows."""
    count = 0
    while (count < len(children) - 1 and tag_name(children[count]) == "a"
           and _CREDIT.fullmatch(squash_space(children[count].text_content()))
           and _CREDIT_GLUE.fullmatch(children[count].tail or "")):
        count += 1
    return children[count] if count >= 2 else None


def _list_block(element: HtmlElement, base_url: str | None, depth: int, quoted: bool = False) -> ListBlock:
    items = []
    for child in element:
        if tag_name(child) == "li":
            items.append(_list_item(child, base_url, depth + 1))
    return ListBlock(tuple(items), ordered=tag_name(element) == "ol", quoted=quoted)


def _list_item(element: HtmlElement, base_url: str | None, depth: int) -> ListItem:
    parts: list[str] = [element.text or ""]
    children: list[ListItem] = []
    for child in element:
        tag = tag_name(child)
        if tag in ("ul", "ol") and depth < MAX_DEPTH:
            children.extend(_list_block(child, base_url, depth).items)
        # A comment (tag "") has no text content to read: lxml refuses to give one.
        elif tag and tag not in ("ul", "ol", "pre") and tag not in _SKIPPED:
            # Inline text joins its neighbours as written ("notes [here](…)." stays "here."); a
            # block (a loose item's <p>) stands apart.
            parts.append(child.text_content() if tag not in _CONTAINERS and tag != "p" else f" {child.text_content()} ")
        parts.append(child.tail or "")
    text = squash_space("".join(parts))
    return ListItem(text, _lead(element) if text else None, tuple(children), _urls(element, text, base_url))


def _paragraph(element: HtmlElement, base_url: str | None) -> Paragraph | None:
    text = squash_space(element.text_content())
    if not text:
        return None
    return Paragraph(text, _lead(element), _urls(element, text, base_url))


# A term of a definition list is a name, not a paragraph.
_MAX_TERM = 120


def _terms_level(element: HtmlElement, out: list[Block]) -> int | None:
    """The level a definition list's terms take when the list is a part's body (right under
    its heading, or under the sentence introducing it): each term, a short name with its
    description after it, heads an entry of the part, one level down. Elsewhere (in prose,
    after other blocks) a definition list is read as its text."""
    part = out[-1] if out else None
    if isinstance(part, Paragraph) and len(out) > 1 and part.text.endswith((":", "：")):
        part = out[-2]
    if not isinstance(part, Heading):
        return None
    tags = [tag_name(child) for child in element if tag_name(child)]
    paired = bool(tags) and tags[0] == "dt" and all(
        tag != "dt" or following == "dd" for tag, following in zip(tags, [*tags[1:], ""], strict=True))
    terms_short = all(len(squash_space(term.text_content())) <= _MAX_TERM for term in element.iter("dt"))
    return min(part.level + 1, max(_HEADINGS.values())) if paired and terms_short else None


def _leading_badge(heading: HtmlElement, inline: list[str], inline_elements: list[HtmlElement]) -> str | None:
    """A short element opening a box right before its heading ("<span class=tag>(beta)</span>"
    over a card's <h3>) is the heading's badge, as one inside it would be."""
    if len(inline_elements) != 1:
        return None
    element = inline_elements[0]
    text = squash_space("".join(inline))
    # A link there files the post under a category: the page's, not the heading's.
    if (tag_name(element) not in _BADGE_TAGS or element.getprevious() is not None or element.getnext() is not heading
            or text != squash_space(element.text_content()) or next(element.iter("a"), None) is not None):
        return None
    badge = text.strip("()[]（）【】 ")
    return badge if 0 < len(badge) <= _MAX_BADGE else None


# A mail styles its call-out boxes inline, as a block with a bar at its left.
_BAR_AT_LEFT = lazy_re.compile(r"border-left\s*:\s*\d", re.IGNORECASE)


def _is_aside(element: HtmlElement) -> bool:
    """A quote, or a note or warning box; one holding the post's own parts (an <h1> or
    <h2>, as a "release-note" wrapper or a quoted repost does) is the post, not an aside."""
    boxed = tag_name(element) in _QUOTES or bool(
        _CALLOUT_CLASSES.intersection(_CLASS_WORD.findall((element.get("class") or "").lower()))
    ) or _BAR_AT_LEFT.search(element.get("style") or "") is not None
    return boxed and next(element.iter("h1", "h2"), None) is None


_CAPTION_BOX = 4


def _captions_code(heading: HtmlElement) -> bool:
    """A heading boxed with a block of code and nothing else names that code (the "before"
    and "after" of a comparison), not a part of the post."""
    box = heading.getparent()
    # The fragment's own root (a post of a heading and code) is no box.
    if box is None or box.getparent() is None or tag_name(box) != "div":
        return False
    # Comments aside, such a box holds two elements: a part's box holds many, and is not
    # listed (lxml counts an element's children one by one).
    kids = [tag_name(child) for child in itertools.islice(box, _CAPTION_BOX + 1) if tag_name(child)]
    return len(kids) == 2 and kids[0] == tag_name(heading) and kids[1] == "pre"


# What sizes or colours a line's text without making it a block.
_SIZING = {"font", "span"}
# A size above the text's: <font size="4"> or "+1" (a forum's [size=4]), a style's
# "font-size: 150%" or "1.5em".
_LARGER_FONT = lazy_re.compile(r"\s*(?:\+[1-6]|[4-7])\s*$")
_LARGER_STYLE = lazy_re.compile(r"font-size\s*:\s*(?:(?:1[1-9]\d|[2-9]\d\d)%|(?:1\.[1-9]|[2-9])\d*em)", re.IGNORECASE)


def _bold_line(elements: list[HtmlElement], text: str) -> bool | None:
    """For a line that is one bold element and nothing else, maybe inside the <font> or
    <span> that sizes it ("<font size=4><strong>New features</strong></font>"), whether
    that makes it larger than the text; None for any other line."""
    if len(elements) != 1:
        return None
    element, larger = elements[0], False
    while (tag_name(element) in _SIZING and len(element) == 1 and not (element.text or "").strip()
           and not (element[0].tail or "").strip()):
        larger = larger or bool(_LARGER_FONT.match(element.get("size") or "")
                                or _LARGER_STYLE.search(element.get("style") or ""))
        element = element[0]
    return larger if tag_name(element) in _STRONG and squash_space(element.text_content()) == text else None


# The level of a part a larger bold line opens: under the post's title.
_LINE_PART_LEVEL = 2


class _LooseText:
    """Inline text between an HTML box's blocks, read into paragraphs. Where the author set
    it in lines between <br>s (a forum's post, an old CMS's page), a blank line ends a
    paragraph and a bold line standing alone is a paragraph of its own, as a bold-only
    paragraph of Markdown is."""

    def __init__(self, text: str, base_url: str | None, out: list[Block], quoted: bool) -> None:
        self.base_url, self.out, self.quoted = base_url, out, quoted
        # The line being read, and the lines of its paragraph before it.
        self.parts: list[str] = [text]
        self.elements: list[HtmlElement] = []
        self.lines: list[tuple[str, list[HtmlElement]]] = []
        self.broken = False

    def add(self, child: HtmlElement) -> None:
        if tag_name(child) in _INLINE_BREAKS:
            self.broken = True
            self.end_line()
        else:
            self.parts.append(child.text_content())
            self.elements.append(child)
        self.parts.append(child.tail or "")

    def add_text(self, text: str) -> None:
        self.parts.append(text)

    def clear_line(self) -> None:
        self.parts, self.elements = [], []

    def end_line(self) -> None:
        text = squash_space("".join(self.parts))
        if not text:
            self._end_paragraph()
        elif self.broken and (larger := _bold_line(self.elements, text)) is not None:
            # A larger bold line heads a part of the post (its bold lines are the part's
            # entries), save in an aside, whose headings are its own.
            self._end_paragraph()
            urls = self._urls(text, self.elements)
            self.out.append(Heading(_LINE_PART_LEVEL, text, urls) if larger and not self.quoted
                            else Paragraph(text, text, urls))
        else:
            self.lines.append((text, self.elements))
        self.clear_line()

    def flush(self) -> None:
        """End the text before a block, or at the box's end."""
        self.end_line()
        self._end_paragraph()
        self.broken = False

    def _end_paragraph(self) -> None:
        if self.lines:
            text = " ".join(line for line, _ in self.lines)
            elements = [element for _, line_elements in self.lines for element in line_elements]
            self.out.append(Paragraph(text, None, self._urls(text, elements)))
        self.lines = []

    def _urls(self, text: str, elements: list[HtmlElement]) -> tuple[str, ...]:
        anchors = [url for element in elements for url in _urls(element, "", self.base_url)]
        return tuple(dict.fromkeys([*anchors, *bare_urls(text)]))


# Blocks a box holds, as opposed to a line of inline text.
_BLOCK_TAGS = {*_HEADINGS, "p", "ul", "ol", "pre", "table", *_CONTAINERS}


def _is_block_component(element: HtmlElement) -> bool:
    """A custom element (a web component: a hyphen in its name, "<turbo-frame>") that holds
    blocks is a box of the page, not a span of text; one holding text is inline ("<relative-time>")."""
    return "-" in tag_name(element) and any(tag_name(child) in _BLOCK_TAGS for child in element)


_PART_BODY = {"p", "pre", "ul", "ol", "div", "blockquote"}


def _numbers_parts(element: HtmlElement) -> bool:
    """Whether a list only numbers the post's parts: each of its items (two or more) opens
    with a paragraph of nothing but bold text, its name, and goes on with paragraphs of its
    own ("1. **Faster installs**" over text, code). Such names are headings, as a bold
    paragraph outside a list is; read as list items they would be one item's run-on text."""
    items = 0
    for item in element:
        if not tag_name(item):
            continue
        blocks = [child for child in itertools.islice(item, 3) if tag_name(child)]
        if (tag_name(item) != "li" or (item.text or "").strip() or len(blocks) < 2 or tag_name(blocks[0]) != "p"
                or tag_name(blocks[1]) not in _PART_BODY or (blocks[0].tail or "").strip()):
            return False
        name = squash_space(blocks[0].text_content())
        if not name or _lead(blocks[0]) != name:
            return False
        items += 1
    return items >= 2


def walk(element: HtmlElement, base_url: str | None, depth: int, out: list[Block], quoted: bool = False) -> None:
    """Append the blocks inside `element`. Loose inline text between blocks (a `<div>` with
    bare text) becomes a paragraph of its own. Inside a quote or a call-out box, lists are
    marked quoted and a heading is a paragraph: it titles an aside, not a part of the post."""
    loose = _LooseText(element.text or "", base_url, out, quoted)
    for child in element:
        tag = tag_name(child)
        if not tag:  # comments, processing instructions
            loose.add_text(child.tail or "")
            continue
        container = tag in _CONTAINERS or _is_block_component(child)
        if tag in _HEADINGS or tag in ("p", "ul", "ol", "pre") or container or tag in _SKIPPED:
            badge = _leading_badge(child, loose.parts, loose.elements) if tag in _HEADINGS else None
            if badge:
                loose.clear_line()
            loose.flush()
            terms_level = _terms_level(child, out) if tag == "dl" and not quoted and depth < MAX_DEPTH else None
            if tag in _HEADINGS:
                text = heading_text(child)
                if text:
                    urls = _urls(child, text, base_url)
                    out.append(Paragraph(text, None, urls) if quoted or _captions_code(child)
                               else Heading(_HEADINGS[tag], text, urls, badge=badge or _edge_badge(child)))
            elif terms_level is not None:
                _terms(child, terms_level, base_url, depth, out)
            elif tag == "p":
                paragraph = _paragraph(child, base_url)
                if paragraph:
                    out.append(paragraph)
            elif tag in ("ul", "ol") and depth < MAX_DEPTH and _numbers_parts(child):
                for item in child:
                    walk(item, base_url, depth + 1, out, quoted)
            elif tag in ("ul", "ol"):
                block = _list_block(child, base_url, depth, quoted)
                if block.items:
                    out.append(block)
            elif tag == "pre":
                out.append(Code(child.text_content()))
            elif container:
                if depth < MAX_DEPTH:
                    walk(child, base_url, depth + 1, out, quoted or _is_aside(child))
                else:
                    paragraph = _paragraph(child, base_url)
                    if paragraph:
                        out.append(paragraph)
            loose.add_text(child.tail or "")
        else:
            loose.add(child)
    loose.flush()


def _terms(element: HtmlElement, level: int, base_url: str | None, depth: int, out: list[Block]) -> None:
    """A definition list read as a part's entries: each term a heading, its description
    the entry's text."""
    for child in element:
        if tag_name(child) == "dt":
            text = heading_text(child)
            if text:
                out.append(Heading(level, text, _urls(child, text, base_url), badge=_edge_badge(child)))
        elif tag_name(child) == "dd":
            walk(child, base_url, depth + 1, out)


def blocks_from_html(html: str, base_url: str | None) -> tuple[Block, ...]:
    if not html.strip():
        return ()
    root = lxml.html.fragment_fromstring(html, create_parent="div")
    out: list[Block] = []
    walk(root, base_url, 0, out)
    return tuple(out)
