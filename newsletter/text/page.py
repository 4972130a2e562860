"""HTML pages: find the article, drop the page around it (menus, sidebars, footers)."""

from __future__ import annotations

import json
import re
from urllib.parse import urljoin

import lxml.html
from lxml.html import HtmlElement

from newsletter import lazy_re
from newsletter.text.from_html import heading_text, squash_space, tag_name, walk
from newsletter.text.outline import Block, Document
from newsletter.text.outline_numbers import without_outline_numbers

_CHROME_TAGS = ("nav", "aside", "footer", "script", "style", "noscript", "template",
                "iframe", "svg", "button", "menu", "dialog")
_CHROME_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar", "dialog"}
_CHROME_WORDS = {"nav", "navbar", "navigation", "menu", "sidebar", "breadcrumb", "breadcrumbs", "toc", "toctree",
                 "footer", "comments", "comment", "share", "sharing", "social", "related", "cookie",
                 "cookies", "banner", "skip", "pagination", "masthead", "subscribe", "widget"}
_CLASS_WORD = lazy_re.compile(r"[a-z]+")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CONTENTS_LIST = lazy_re.compile(r"table[-_ ]?of[-_ ]?contents")
_ADDRESS = lazy_re.compile(r"https?://", re.IGNORECASE)


def _is_chrome(element: HtmlElement) -> bool:
    if (element.get("role") or "").lower() in _CHROME_ROLES:
        return True
    if tag_name(element) in ("body", "html", "article", "main"):
        return False
    # A heading's id is the slug of its own text ("social" for "Social cards"), no widget's.
    slug = tag_name(element) in _HEADINGS
    names = f"{element.get('class') or ''} {'' if slug else element.get('id') or ''}".lower()
    return bool(_CHROME_WORDS.intersection(_CLASS_WORD.findall(names))) or bool(_CONTENTS_LIST.search(names))


def _text_weight(element: HtmlElement) -> int:
    return sum(len(squash_space(p.text_content())) for p in element.iter("p", "li", "pre"))


def _article_root(body: HtmlElement) -> HtmlElement:
    whole = _text_weight(body)
    # schema.org's articleBody marks the post where docs themes nest it in plain divs.
    for path in ("//article", "//main", "//*[@role='main']", "//*[@itemprop='articleBody']"):
        found: list[HtmlElement] = body.xpath(path)
        best = max(found, key=_text_weight) if found else None
        # Pages also wrap teasers of other posts in <article>: the post holds most text.
        if best is not None and _text_weight(best) * 2 >= whole:
            return best
    # The densest block: the element holding the most paragraph text directly, in paragraphs
    # or, as a forum's or an old CMS's post is written, as lines between <br>s.
    best, best_weight = body, 0
    for element in body.iter("div", "section", "td", "body"):
        weight = sum(len(squash_space(p.text_content())) for p in element if tag_name(p) in ("p", "pre", "ul", "ol"))
        weight += len(squash_space(element.text or "")) + sum(len(squash_space(child.tail or "")) for child in element)
        if weight > best_weight:
            best, best_weight = element, weight
    return _whole_run(best)


def _whole_run(densest: HtmlElement) -> HtmlElement:
    """A page may set its post in a run of sibling boxes, one per part (a <section> for
    each feature): the densest is one of them, and the post is their parent."""
    parent = densest.getparent()
    if parent is None or tag_name(densest) == "body":
        return densest
    peers = [child for child in parent if child.tag == densest.tag and (child.get("class") or "").split()[:1]
             == (densest.get("class") or "").split()[:1]]
    return parent if len(peers) >= _MIN_PART_BOXES and sum(map(_text_weight, peers)) >= 2 * _text_weight(densest) \
        else densest


# Parts of a post set in boxes of their own: a few at least.
_MIN_PART_BOXES = 3


def _meta_content(root: HtmlElement, *names: str) -> str | None:
    for name in names:
        for element in root.xpath(f"//meta[@property='{name}' or @name='{name}' or @itemprop='{name}']"):
            content = squash_space(element.get("content") or "")
            if content:
                return content
    return None


_TITLE_PARTS = lazy_re.compile(r"\s+(?:[|–—·•»«~-]|::)\s+")
# A site's name: a few words ending in what kind of site it is ("Wren Blog", "Lumen News").
SITE_NAME = (r"(?:\S+\s+){1,3}(?:blog|news|newsroom|weblog|developers|engineering)"
             r"|\S+(?:\s+\S+){0,2}\s*(?:博客|ブログ|블로그)")
_SITE_NAME = lazy_re.compile(SITE_NAME, re.IGNORECASE)
# Bounds on matching <h1>s against the <title>: real pages have a few short ones.
_MAX_TITLE_HEADINGS = 10
_MAX_TITLE = 500


# Structured data bigger than this is not a post's card.
_MAX_JSON_LD = 100_000


def _declared_headline(root: HtmlElement) -> str | None:
    """The headline the page's structured data declares: an element marked
    itemprop="headline", or a JSON-LD object's "headline"."""
    # (An element may hold more properties than one: itemprop="headline name".)
    for element in root.xpath("//*[contains(concat(' ', normalize-space(@itemprop), ' '), ' headline ')]")[:1]:
        text = squash_space(element.get("content") or element.text_content())
        if text:
            return text
    for script in root.xpath("//script[@type='application/ld+json']"):
        try:
            data = json.loads((script.text or "")[:_MAX_JSON_LD])
        except ValueError:
            continue
        graph = data.get("@graph") if isinstance(data, dict) else None
        items = data if isinstance(data, list) else [data, *(graph if isinstance(graph, list) else [])]
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("headline"), str) and item["headline"].strip():
                return squash_space(item["headline"])
    return None


# A blog's or a forum's template names the class of the post's heading for what it holds:
# "post-title", "entry-title", "article_title", "topic-title".
_TITLE_CLASS = lazy_re.compile(r"(?:^|\s)(?:post|entry|article|topic|thread|news|blog)[-_]?(?:title|headline)(?:\s|$)")


_NAME_LABEL = lazy_re.compile(r"^[^\W\d_]{1,12}\s?[:：]\s*")


def _subject(root: HtmlElement, article: HtmlElement) -> str | None:
    """A fragment's first heading, when it stands over the post's text and outside it: a
    forum post's subject over the post."""
    first = next(iter(root.xpath("//h1 | //h2 | //h3")[:1]), None)
    if first is None or first is article or article in first.iterancestors():
        return None
    for element in root.iter():
        if element is first:
            return heading_text(first) or None
        if element is article:
            return None
    return None


def _classed_title(root: HtmlElement) -> str | None:
    """The text of the first heading whose class says it is the post's title."""
    for heading in root.xpath("//h1[@class] | //h2[@class] | //h3[@class]")[:_MAX_TITLE_HEADINGS]:
        if _TITLE_CLASS.search(heading.get("class", "").lower()):
            return heading_text(heading) or None
    return None


def _page_meta(root: HtmlElement, article: HtmlElement, headline: str | None) -> dict[str, str]:
    meta: dict[str, str] = {}
    # A heading reads without the permalink a docs site puts in it ("Title#").
    article_h1s = [heading_text(h) for h in article.xpath(".//h1")]
    page_h1s = article_h1s or [heading_text(h) for h in root.xpath("//h1")]
    # A page's <title> usually carries the site's name after a bar or dash.
    full_title = squash_space(root.findtext(".//title") or "")[:_MAX_TITLE]
    # The site's name may stand on either side of the post's: "Site | Post", "Post - Site".
    site_name = (_meta_content(root, "og:site_name", "application-name") or "").casefold()
    page_title = next((part for part in _TITLE_PARTS.split(full_title)
                       if part.casefold() != site_name and not _SITE_NAME.fullmatch(part)), full_title)
    # Of the page's headings (the site's name in an <h1>, the post's in an <h2>), the post's
    # is the one the page's card declares (og:title), else the longest its <title> repeats.
    headings = [heading_text(h) for h in root.xpath("//h1 | //h2")[:_MAX_TITLE_HEADINGS]]
    # A blog template may set the site's name in the <h1> and the post's in an <h3>.
    repeated = [text for text in [*headings, *(heading_text(h) for h in root.xpath("//h3")[:_MAX_TITLE_HEADINGS])]
                if len(text) > 3 and text in full_title]
    card_title = _meta_content(root, "og:title", "twitter:title")
    title: str | None
    if len(article_h1s) == 1:
        title = article_h1s[0]
    elif card_title and card_title.casefold() in {text.casefold() for text in headings}:
        title = card_title
    elif declared := headline or _classed_title(root):
        title = declared
    elif repeated:
        title = max(repeated, key=len)
    else:
        title = ((page_h1s[0] if len(page_h1s) == 1 else None) or card_title or page_title
                 or _subject(root, article))
    if title:
        meta["title"] = title
    author = _meta_content(root, "author", "article:author", "dc.creator")
    # Open Graph's article:author is the address of the author's page, not a name.
    if author and _ADDRESS.match(author):
        author = None
    if not author:
        marked = "//*[@rel='author' or contains(@class, 'author') or contains(@class, 'byline')]"
        for element in article.xpath("." + marked) or root.xpath(marked):
            # An author card holds the date and reading time beside the name it marks.
            named = element.xpath(".//*[contains(@class, 'name') or contains(concat(' ', @class, ' '), ' fn ')]")
            # The box may label the name: "Author: Ada", "發文者：Ada".
            author = _NAME_LABEL.sub("", squash_space((named[0] if named else element).text_content()))
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


def _drop_form_boxes(body: HtmlElement) -> None:
    """A form (sign-up, search, comment) and the small box around it are page furniture;
    the box ends where a container holds more text than a pitch."""
    for form in list(body.iter("form")):
        # Some frameworks wrap the whole page in one form: that one is not furniture.
        if form.getparent() is None or len(squash_space(form.text_content())) > _MAX_FORM_BOX_TEXT:
            continue
        box = form
        parent = form.getparent()
        while (parent is not None and tag_name(parent) not in ("body", "html", "article", "main")
               and len(squash_space(parent.text_content())) <= _MAX_FORM_BOX_TEXT):
            box, parent = parent, parent.getparent()
        if box.getparent() is not None:
            box.drop_tree()


def parse_page(text: str, base_url: str | None) -> Document:
    root = lxml.html.document_fromstring(text)
    base = root.xpath("//base/@href")
    base_url = urljoin(base_url or "", base[0]) if base else base_url
    body = root.find("body")
    if body is None:
        body = root
    # Read before the page's scripts go with the rest of its furniture.
    headline = _declared_headline(root)
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
    meta = _page_meta(root, article, headline)
    out: list[Block] = []
    walk(article, base_url, 0, out)
    return Document("html", without_outline_numbers(tuple(out), from_one=True), meta)
