"""A post saved as an Atom entry (a feed of one entry, or an <entry> document): the entry's
title, author, date and permalink are the post's metadata, its content the post's HTML.

Feed readers and planet aggregators hand posts on this way. A feed of several entries is a
list of posts, not one: it is read as any other text.
"""

from __future__ import annotations

import html
import re

from lxml import etree

from newsletter import lazy_re

_ATOM = "http://www.w3.org/2005/Atom"
_XHTML = "http://www.w3.org/1999/xhtml"
# An Atom document opens with its root element, after an XML declaration and comments.
_ATOM_ROOT = lazy_re.compile(r"\A\ufeff?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<(?:\w+:)?(?:feed|entry)\b[^>]*"
                             r"http://www\.w3\.org/2005/Atom", re.S)
_DECLARATION = lazy_re.compile(r"\A\ufeff?\s*<\?xml[^>]*\?>")
# No entity of a post's may reach outside it.
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True)


def atom_entry(text: str) -> tuple[dict[str, str], str] | None:
    """The entry's metadata and its content as HTML, when the text is one Atom entry."""
    if not _ATOM_ROOT.match(text[:2048]):
        return None
    try:
        root = etree.fromstring(_DECLARATION.sub("", text).encode(), _PARSER)
    except etree.XMLSyntaxError:
        return None
    if root is None:
        return None
    entries = [root] if root.tag == f"{{{_ATOM}}}entry" else root.findall(f"{{{_ATOM}}}entry")
    if len(entries) != 1:
        return None
    entry = entries[0]
    content = entry.find(f"{{{_ATOM}}}content")
    if content is None or not _text_of(content):
        content = entry.find(f"{{{_ATOM}}}summary")
    meta = {key: value for key, value in (
        ("title", _squashed(entry.findtext(f"{{{_ATOM}}}title"))),
        ("author", _squashed(entry.findtext(f"{{{_ATOM}}}author/{{{_ATOM}}}name"))),
        ("date", _squashed(entry.findtext(f"{{{_ATOM}}}published") or entry.findtext(f"{{{_ATOM}}}updated"))),
        ("language", entry.get("{http://www.w3.org/XML/1998/namespace}lang")
         or root.get("{http://www.w3.org/XML/1998/namespace}lang")),
        # The entry's alternate link is its permalink: the post's own address.
        ("canonical_url", _permalink(entry)),
    ) if value}
    return meta, _content_html(content) if content is not None else ""


def _squashed(text: str | None) -> str:
    return " ".join((text or "").split())


def _text_of(element: etree._Element) -> str:
    return "".join(element.itertext()).strip()


def _permalink(entry: etree._Element) -> str | None:
    for link in entry.findall(f"{{{_ATOM}}}link"):
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return str(link.get("href")).strip()
    return None


def _content_html(content: etree._Element) -> str:
    """Atom's three kinds of content: XHTML markup (in a div), escaped HTML, or text."""
    kind = content.get("type", "text")
    if kind == "xhtml":
        holder = content.find(f"{{{_XHTML}}}div")
        holder = content if holder is None else holder
        inner = (holder.text or "") + "".join(
            etree.tostring(child, encoding="unicode", with_tail=True) for child in holder)
        # The markup is the page's: its namespace is no part of the tags' names.
        return re.sub(r"\s+xmlns(?::\w+)?=\"[^\"]*\"", "", inner)
    text = content.text or ""
    if kind == "html" or kind.endswith(("/html", "+xml")):
        return text
    return "".join(f"<p>{html.escape(part)}</p>" for part in text.split("\n\n") if part.strip())
