"""A post scraped from its web page is the same post: the summarizer must find the same
bullets, features, labels and sections in a plain-text scrape as in the Markdown.

Each Markdown post with gold labels is rendered to HTML and scraped the way a browser's
innerText or a copy from a page would: one block per line, blocks apart by a blank line,
heading levels and bold gone, list items under a marker. Scrapes come in several styles
(list items on consecutive lines or apart, "•", "*", "-" or "1." markers, with or without a
title line and a "by" line), and every style must give the gold.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import lxml.html
import pytest
from helpers import shared_dir
from markdown_it import MarkdownIt

from newsletter.summarize import summarize
from newsletter.text.encoding import decode
from newsletter.text.front_matter import split_front_matter

HOLDOUT = Path(__file__).parent / "fixtures" / "holdout"
# Pages are rendered the way most site generators do: CommonMark with tables, raw HTML kept.
_COMMONMARK = MarkdownIt("commonmark", {"html": True}).enable("table")
SEED_POSTS = ("000_09d19e5414362117.txt", "003_d28e77f3fa868a9e.txt", "004_c9cc283c80bf5b4c.txt")


@dataclass(frozen=True)
class Style:
    marker: str  # "•", "*", "-" or "1." (numbered)
    loose: bool  # list items apart by blank lines
    title: bool  # the page's title as the first line
    byline: bool  # a "by X" line under it, for a post whose front matter names its author


STYLES = {
    "browser": Style("•", loose=True, title=True, byline=True),
    "tight-bullets": Style("•", loose=False, title=False, byline=True),
    "stars": Style("*", loose=False, title=True, byline=False),
    "loose-dashes": Style("-", loose=True, title=False, byline=False),
    "numbered": Style("1.", loose=False, title=True, byline=True),
}

# Features whose gold section a scrape cannot give, and why; the rest of the post is held
# to the gold, and a strict xfail checks these too, so a fix asks to remove them here.
SCRAPE_LIMITS = {
    "003_d28e77f3fa868a9e.txt": {
        "Python code Transformations with FX":
            "a labeled feature standing at the groups' level, outside any group, looks in a "
            "scrape like one more feature of the group above it",
    },
    "004_c9cc283c80bf5b4c.txt": {
        "New Augmentations, Layers and Losses":
            "it follows a nested group ('New pre-trained weights') back at its parent's level, "
            "which only the lost heading levels told",
    },
}


def _block_lines(element: lxml.html.HtmlElement, style: Style, depth: int = 0) -> list[str]:
    """One element's text as a scrape shows it: a line per block, nested list items
    indented under their parent."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag in ("ul", "ol"):
        lines = []
        for number, item in enumerate(element.iterchildren("li"), 1):
            marker = f"{number}." if style.marker == "1." else style.marker
            own = " ".join(" ".join(part.text_content().split()) if not isinstance(part, str) else part
                           for part in _own_parts(item)).split()
            lines.append(f"{'  ' * (depth + 1)}{marker} {' '.join(own)}")
            for nested in item.iterchildren("ul", "ol"):
                lines.extend(_block_lines(nested, style, depth + 1))
        return lines
    if tag == "pre":
        return [element.text_content().rstrip("\n")]
    if tag == "table":
        return ["\t".join(" ".join(cell.text_content().split()) for cell in row.iterchildren("td", "th"))
                for row in element.iter("tr")]
    text = " ".join(element.text_content().split())
    return [text] if text else []


def _own_parts(item: lxml.html.HtmlElement) -> list:
    """A list item's text without its nested lists."""
    parts: list = [item.text or ""]
    for child in item:
        if child.tag not in ("ul", "ol"):
            parts.append(child)
        parts.append(child.tail or "")
    return parts


def scrape(post: str, style: Style, author: str | None = None) -> str:
    """A Markdown post -> the text a reader would copy from its rendered page."""
    front_matter, body, _problem = split_front_matter(post)
    html = _COMMONMARK.render(body)
    article = lxml.html.fragment_fromstring(html, create_parent="article")
    blocks: list[list[str]] = []
    title = front_matter.get("title")
    if style.title and isinstance(title, str):
        blocks.append([title])
    # The page's template prints the author its front matter names.
    if style.byline and author and (front_matter.get("author") or front_matter.get("authors")):
        blocks.append([f"by {author}"])
    for element in article:
        lines = _block_lines(element, style)
        if not lines:
            continue
        if element.tag in ("ul", "ol") and style.loose:
            blocks.extend([line] for line in lines)
        else:
            blocks.append(lines)
    return "\n\n".join("\n".join(lines) for lines in blocks) + "\n"


def _norm(text: str | None) -> str:
    text = unicodedata.normalize("NFKC", text or "")
    text = re.sub(r"[*_`#>•\\]+", " ", text)
    return " ".join(text.split()).casefold().rstrip(" .:;,!?")


def _features(features: list[dict], optional: set[str], unchecked: set[str]) -> list[tuple]:
    return [(_norm(f["heading"]), f["stability"], None if _norm(f["heading"]) in unchecked else _norm(f["section"]))
            for f in features if _norm(f["heading"]) not in optional]


def _posts() -> list[tuple[str, Path, Path]]:
    posts = [("holdout/" + path.name, path, path.with_name(path.name + ".json"))
             for path in sorted(HOLDOUT.glob("*.md"))]
    shared = shared_dir()
    if shared is not None:
        posts += [("seed/" + name, shared / "corpus" / "seeds" / name,
                   shared / "eval" / "gold" / "seeds" / f"{name}.json") for name in SEED_POSTS]
    return posts


def _check(post: Path, gold_path: Path, style: Style, *, limits: dict[str, str]) -> None:
    gold = json.loads(gold_path.read_text(encoding="utf-8"))
    text = scrape(decode(post.read_bytes()), style, gold.get("author"))
    summary = summarize(text).to_json()
    assert summary["format"] == "text"
    if style.title and gold["title"]:
        assert _norm(summary["title"]) == _norm(gold["title"])
    assert [_norm(b) for b in summary["summary_bullets"]] == [_norm(b) for b in gold["summary_bullets"]]
    optional = {_norm(o) for o in gold.get("optional") or ()} - {_norm(f["heading"]) for f in gold["features"]}
    unchecked = {_norm(heading) for heading in limits}
    assert _features(summary["features"], optional, unchecked) == _features(gold["features"], optional, unchecked)


@pytest.mark.parametrize("style", STYLES, ids=str)
@pytest.mark.parametrize("name, post, gold", _posts(), ids=[name for name, _, _ in _posts()])
def test_scrape_gives_the_gold(name, post, gold, style):
    _check(post, gold, STYLES[style], limits=SCRAPE_LIMITS.get(post.name, {}))


@pytest.mark.xfail(strict=True, reason="what the scrape loses: see SCRAPE_LIMITS")
@pytest.mark.parametrize("name", sorted(SCRAPE_LIMITS))
def test_scrape_limits_hold(name):
    shared = shared_dir() or pytest.skip("no shared folder")
    _check(shared / "corpus" / "seeds" / name, shared / "eval" / "gold" / "seeds" / f"{name}.json",
           STYLES["browser"], limits={})
