"""OPML, the outline format feed readers trade subscriptions in: the feed and page sources
written as one, and the feeds of one read as sources.

An OPML file comes from elsewhere. As defusedxml does, one that declares an entity is
refused before any is expanded (no billion laughs, no external files: OPML needs none); the
rest is parsed without a DTD and without fetching anything."""

from __future__ import annotations

import xml.parsers.expat
from collections.abc import Iterable
from dataclasses import dataclass

from lxml import etree

from newsletter.config import FeedSource, PageSource, SourceConfig
from newsletter.errors import SourceError
from newsletter.sources.http import is_http_url

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


@dataclass(frozen=True)
class OutlinedFeed:
    """A feed an OPML file subscribes to."""

    title: str
    url: str


def read_opml(data: bytes, where: str) -> tuple[list[OutlinedFeed], list[str]]:
    """The feeds of an OPML document, in its order, at any depth of its folders, and a line
    for each outline with a feed address that is not an http(s) URL. SourceError if `data`
    is not OPML."""
    _refuse_entities(data, where)
    try:
        root = etree.fromstring(data, _PARSER)
    except etree.XMLSyntaxError as exc:
        raise SourceError(f"{where}: not readable OPML: {exc}") from None
    body = root.find("body")
    if root.tag != "opml" or body is None:
        raise SourceError(f"{where}: not OPML (no <opml> with a <body>)")
    feeds, problems = [], []
    for outline in body.iter("outline"):
        url = (outline.get("xmlUrl") or "").strip()
        if not url:
            continue  # a folder, or a link to a page: nothing to subscribe to
        title = " ".join((outline.get("title") or outline.get("text") or "").split())
        if is_http_url(url):
            feeds.append(OutlinedFeed(title, url))
        else:
            problems.append(f"{where}: {title or url!r}: {url!r} is not an http(s) URL, skipped")
    return feeds, problems


def _refuse_entities(data: bytes, where: str) -> None:
    """SourceError if `data` declares an entity; expat reports each declaration before any
    reference to it is expanded."""

    def refuse(name: str, *_declaration: object) -> None:
        raise SourceError(f"{where}: declares the XML entity {name!r}, which OPML does not need: refused")

    scanner = xml.parsers.expat.ParserCreate()
    scanner.EntityDeclHandler = refuse
    try:
        scanner.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise SourceError(f"{where}: not readable OPML: {exc}") from None


def write_opml(title: str, sources: Iterable[SourceConfig]) -> bytes:
    """An OPML 2.0 document with an outline per feed (type "rss") and page (type "link")
    source; folder sources have no address to share."""
    root = etree.Element("opml", version="2.0")
    etree.SubElement(etree.SubElement(root, "head"), "title").text = title
    body = etree.SubElement(root, "body")
    for source in sources:
        if isinstance(source, FeedSource):
            etree.SubElement(body, "outline", type="rss", text=source.name, title=source.name, xmlUrl=source.url)
        elif isinstance(source, PageSource):
            etree.SubElement(body, "outline", type="link", text=source.name, url=source.url)
    return etree.tostring(root, xml_declaration=True, encoding="utf-8", pretty_print=True)
