"""Checks over a built archive: every file complete and well-formed, and nothing a post
carried can run, load, or add a header to a message.

The HTML checks parse the documents and look at elements, attributes and URL schemes, so
an escaped `&lt;script&gt;` shown as text passes and a real element fails.
"""

from __future__ import annotations

import email
import functools
import json
import re
import tempfile
from email import policy
from pathlib import Path
from urllib.parse import urlsplit

from lxml import etree, html

from helpers import EXAMPLES, NOW
from newsletter import config, pipeline

ATOM = "{http://www.w3.org/2005/Atom}"
# Elements that run code, load documents, or submit data: none may appear anywhere.
ACTIVE_TAGS = {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "form",
               "base", "svg", "math", "noscript", "template", "portal"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "srcset", "background", "poster",
                  "cite", "data", "xlink:href", "ping"}
SAFE_SCHEMES = {"", "http", "https", "mailto"}
# The header names a digest's .eml carries; a header from a post's text would add one.
EML_HEADERS = {"subject", "from", "to", "date", "message-id", "mime-version", "content-type",
               "list-unsubscribe", "list-unsubscribe-post", "list-id", "reply-to", "precedence",
               "auto-submitted"}
# Browsers drop these from a URL before reading its scheme ("java\tscript:").
_URL_NOISE = re.compile(r"[\x00-\x20]")


@functools.cache
def example_titles() -> frozenset[str]:
    """The entry titles a build of the bundled example posts alone puts in posts.atom: what
    must still be there when a hostile post or source sits beside them."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(f'[[sources]]\nname = "posts"\nkind = "folder"\npath = "{EXAMPLES}"\n', encoding="utf-8")
        pipeline.build(config.load(path), now=NOW)
        return frozenset(feed_titles(Path(folder) / "archive" / "posts.atom"))


def feed_titles(feed: Path) -> list[str]:
    root = etree.fromstring(feed.read_bytes())
    return [entry.findtext(f"{ATOM}title") for entry in root.iter(f"{ATOM}entry")]


def feed_authors(feed: Path) -> list[str]:
    root = etree.fromstring(feed.read_bytes())
    return [name.text or "" for name in root.iter(f"{ATOM}name")]


def digest_names(archive: Path) -> list[str]:
    return sorted(path.stem for path in (archive / "digests").glob("*.html"))


def assert_archive_complete(archive: Path, *, settled: bool = True) -> None:
    """Both Atom feeds are well-formed, posts.json is whole, every index page, post page and digest file is whole, and
    digests.atom lists every digest whose files are written (or, right after a build was
    killed, only such digests: the next build adds the rest)."""
    for name in ("posts.atom", "digests.atom"):
        root = etree.fromstring((archive / name).read_bytes())  # raises on a truncated file
        assert root.tag == f"{ATOM}feed", name
    # posts.json is whole JSON; once settled, with posts.atom's entries (a build killed between
    # the two leaves the older one for the next build to write).
    items = json.loads((archive / "posts.json").read_bytes())["items"]
    if settled:
        atom_ids = [e.findtext(f"{ATOM}id") for e in etree.parse(str(archive / "posts.atom")).getroot().iter(f"{ATOM}entry")]
        assert [item["id"] for item in items] == atom_ids
    for page in [archive / "index.html", *sorted(archive.glob("index-*.html")), *sorted(archive.glob("posts/*.html"))]:
        _assert_whole_html(page)
    digests = digest_names(archive)
    listed = sorted(
        entry.findtext(f"{ATOM}id").rsplit("/", 1)[-1].removesuffix(".html")
        for entry in etree.parse(str(archive / "digests.atom")).getroot().iter(f"{ATOM}entry"))
    if settled:
        assert listed == digests
    else:
        assert set(listed) <= set(digests)
    for name in digests:
        _assert_whole_html(archive / "digests" / f"{name}.html")
        assert (archive / "digests" / f"{name}.txt").read_text(encoding="utf-8").strip()
        message = _message(archive / "digests" / f"{name}.eml")
        assert [part.get_content_type() for part in message.iter_parts()] == ["text/plain", "text/html"]


def assert_nothing_active(archive: Path, marker: str = "PWNED") -> None:
    """No element, attribute, URL or style that a post could use to run or load anything
    reaches any output, and no post text becomes an email header."""
    for name in ("posts.atom", "digests.atom"):
        _assert_feed_inert(archive / name, marker)
    # Post pages show the text of posts with no address: the most direct road for a post's HTML.
    for page in [archive / "index.html", *sorted(archive.glob("index-*.html")), *sorted(archive.glob("posts/*.html"))]:
        assert_html_inert(html.fromstring(page.read_bytes()), marker)
    for path in sorted((archive / "digests").iterdir()):
        if path.suffix == ".html":
            assert_html_inert(html.fromstring(path.read_bytes()), marker)
        elif path.suffix == ".txt":
            _assert_text_inert(path.read_text(encoding="utf-8"))
        elif path.suffix == ".eml":
            assert_headers_clean(path, marker)
            message = _message(path)
            _assert_text_inert(message.get_body(("plain",)).get_content())
            assert_html_inert(html.fromstring(message.get_body(("html",)).get_content()), marker)


def assert_headers_clean(eml: Path, marker: str) -> None:
    raw = eml.read_bytes()
    head = raw.split(b"\r\n\r\n", 1)[0] if b"\r\n\r\n" in raw else raw.split(b"\n\n", 1)[0]
    # RFC 5322: no header line longer than 998 octets.
    assert max(len(line) for line in head.splitlines()) <= 998
    message = _message(eml)
    names = [name.lower() for name in message.keys()]
    assert set(names) <= EML_HEADERS, set(names) - EML_HEADERS
    assert len(names) == len(set(names)), "a header appears twice"
    for name, value in message.items():
        # A post's title may be quoted in the Subject, as text on one unfolded line.
        assert "\r" not in str(value) and "\n" not in str(value), name
        assert marker not in name, name


def _message(path: Path) -> email.message.EmailMessage:
    message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
    defects = [*message.defects, *(d for part in message.walk() for d in part.defects)]
    assert not defects, (path, defects)
    return message


def _assert_whole_html(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.rstrip().lower().endswith("</html>"), path
    assert html.fromstring(text.encode("utf-8")).find("body") is not None, path


def _assert_feed_inert(feed: Path, marker: str) -> None:
    root = etree.fromstring(feed.read_bytes())
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        assert element.tag.startswith(ATOM), f"{feed.name}: foreign element {element.tag}"
        for attribute, value in element.attrib.items():
            if attribute in URL_ATTRIBUTES:
                _assert_safe_url(value, f"{feed.name}: <{element.tag} {attribute}>")
        if element.get("type") == "html" and element.text:
            assert_html_inert(html.fragment_fromstring(element.text, create_parent="div"), marker)
        if element.tag in (f"{ATOM}title", f"{ATOM}name"):
            assert "\n" not in (element.text or "") and "\r" not in (element.text or "")


def assert_html_inert(root: html.HtmlElement, marker: str) -> None:
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue
        tag = element.tag.lower().rsplit("}", 1)[-1]
        assert tag not in ACTIVE_TAGS, f"<{tag}> in output"
        if tag == "style":
            assert marker not in (element.text or ""), "a post's CSS reached a <style>"
        if tag == "meta" and (element.get("http-equiv") or "").lower() == "refresh":
            raise AssertionError("<meta http-equiv=refresh> in output")
        for attribute, value in element.attrib.items():
            name = attribute.lower()
            assert not name.startswith("on"), f"event handler {attribute} on <{tag}>"
            if name in URL_ATTRIBUTES:
                _assert_safe_url(value, f"<{tag} {attribute}>")
            if name == "style":
                assert marker not in value, f"a post's CSS reached <{tag} style>"


def _assert_safe_url(value: str, where: str) -> None:
    for candidate in value.split(","):  # srcset lists several
        url = _URL_NOISE.sub("", candidate)
        scheme = urlsplit(url).scheme.lower() if ":" in url.split("/", 1)[0] else ""
        assert scheme in SAFE_SCHEMES, f"{where}: {value!r}"


def _assert_text_inert(text: str) -> None:
    lowered = text.lower()
    assert "javascript:" not in lowered and "vbscript:" not in lowered and "data:text" not in lowered
