"""posts.json: a JSON Feed 1.1 that validates against the spec's fields (written down in
tests/fixtures/feeds/), reads in a feed reader, carries posts.atom's entries with the same ids
and content (as feedparser reads them there), and is linked from posts.atom and the index page."""

from __future__ import annotations

import json
from contextlib import closing
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

import feedparser
import jsonschema
import pytest
from helpers import NOW, REPO
from helpers.posts import lumen, numbered
from lxml import etree, html
from reader import make_reader

from newsletter import pipeline
from newsletter.publish import atom, json_feed
from newsletter.publish.feed_items import feed_items

SCHEMA = json.loads((REPO / "tests" / "fixtures" / "feeds" / "jsonfeed-1.1.schema.json").read_text(encoding="utf-8"))
ATOM = {"a": "http://www.w3.org/2005/Atom"}


def validate(data: bytes) -> dict:
    feed = json.loads(data)
    jsonschema.Draft202012Validator(SCHEMA).validate(feed)
    return feed


def test_the_schema_refuses_what_the_spec_does():
    good = {"version": json_feed.VERSION, "title": "T", "items": [{"id": "1", "content_text": "x"}]}
    validate(json.dumps(good).encode())
    for bad in (
        {**good, "version": "https://jsonfeed.org/version/1"},
        {**good, "items": [{"id": "1"}]},
        {**good, "items": [{"id": "1", "content_html": "x", "date_published": "2 May 2026"}]},
        {**good, "authors": [{}]},
        {**good, "author": {"name": "1.0's field"}},
        {key: value for key, value in good.items() if key != "title"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validate(json.dumps(bad).encode())


@pytest.fixture
def built(config):
    pipeline.build(config, now=NOW)
    return config.archive_dir


def test_posts_json_validates_and_carries_the_entries_of_posts_atom(built: Path):
    feed = validate((built / "posts.json").read_bytes())
    assert feed["feed_url"] == "https://digest.example.org/posts.json"
    assert feed["home_page_url"] == "https://digest.example.org/"
    assert feed["title"] == "Test digest" and feed["language"] == "en"
    root = etree.fromstring((built / "posts.atom").read_bytes())
    entries = root.findall("a:entry", ATOM)
    assert [item["id"] for item in feed["items"]] == [e.findtext("a:id", namespaces=ATOM) for e in entries]
    assert len(entries) == 2
    for item, entry in zip(feed["items"], entries, strict=True):
        assert item["title"] == entry.findtext("a:title", namespaces=ATOM)
        assert item["content_html"] == entry.findtext("a:content", namespaces=ATOM)
        assert item["summary"] == entry.findtext("a:summary", namespaces=ATOM)
        assert item["date_modified"] == entry.findtext("a:updated", namespaces=ATOM)
        assert item.get("date_published") == entry.findtext("a:published", namespaces=ATOM)
        assert item["url"] == entry.find("a:link[@rel='alternate']", ATOM).get("href")
        assert item["tags"] == [c.get("label") for c in entry.findall("a:category", ATOM)]
    lumen_item = next(item for item in feed["items"] if "Lumen" in item["title"])
    assert "Stability: Beta" in lumen_item["tags"] and lumen_item["language"] == "en"
    assert lumen_item["date_published"].startswith("2026-10-14")


def test_posts_json_says_what_feedparser_reads_in_posts_atom(built: Path):
    """feedparser reads JSON Feed only in its unreleased development branch (6.0.14, the
    newest on PyPI, takes posts.json for broken XML), so it reads posts.atom here, and
    posts.json must say the same of every entry."""
    feed = validate((built / "posts.json").read_bytes())
    parsed = feedparser.parse((built / "posts.atom").read_bytes())
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert feed["title"] == parsed.feed.title and feed["home_page_url"] == parsed.feed.link
    assert [item["id"] for item in feed["items"]] == [entry.id for entry in parsed.entries]
    for item, entry in zip(feed["items"], parsed.entries, strict=True):
        assert item["title"] == entry.title and item["url"] == entry.link
        assert item["content_html"] == entry.content[0].value
        assert datetime.fromisoformat(item["date_modified"]).utctimetuple() == entry.updated_parsed
        assert [author["name"] for author in item["authors"]] == [author.name for author in entry.authors]
        assert item["language"] == entry.content[0].language


def test_a_feed_reader_reads_posts_json(built: Path):
    """reader (lemon24's feed reader library) parses JSON Feed itself: it must take every
    item with posts.json's id, title, link and content, as a subscriber's reader would."""
    feed = validate((built / "posts.json").read_bytes())
    with closing(make_reader(":memory:", feed_root=str(built))) as feed_reader:
        feed_reader.add_feed("posts.json")
        feed_reader.update_feeds()
        (read,) = feed_reader.get_feeds()
        assert read.last_exception is None and read.title == feed["title"]
        entries = {entry.id: entry for entry in feed_reader.get_entries()}
    assert sorted(entries) == sorted(item["id"] for item in feed["items"]) and entries
    for item in feed["items"]:
        entry = entries[item["id"]]
        assert (entry.title, entry.link) == (item["title"], item["url"])
        assert [content.value for content in entry.content] == [item["content_html"]]


def test_posts_atom_and_the_index_link_to_posts_json(built: Path):
    root = etree.fromstring((built / "posts.atom").read_bytes())
    (link,) = root.xpath("a:link[@type='application/feed+json']", namespaces=ATOM)
    assert (link.get("rel"), link.get("href")) == ("alternate", "https://digest.example.org/posts.json")
    # The feed's page is still its first alternate link, where readers look for it.
    assert feedparser.parse((built / "posts.atom").read_bytes()).feed.link == "https://digest.example.org/"
    page = html.fromstring((built / "index.html").read_bytes())
    (head_link,) = page.xpath("//head/link[@type='application/feed+json']")
    assert (head_link.get("rel"), head_link.get("href")) == ("alternate", "posts.json")
    assert page.xpath("//body//a[@href='posts.json']")


def test_posts_json_holds_the_newest_feed_size_entries_like_posts_atom(config):
    small = replace(config, feed_size=3)
    entries = [lumen(), *(numbered(n, first_seen=NOW + timedelta(minutes=n)) for n in range(6))]
    history = sorted(entries, key=lambda e: (min(f.first_seen for f in e.forms), e.published, e.id))
    current = atom.feed_pages(small, len(history))[-1]
    feed = validate(json_feed.render(small, feed_items(small, history[current.start:current.stop])))
    atom_ids = [e.findtext("a:id", namespaces=ATOM) for e in etree.fromstring(
        atom.render_page(small, current, feed_items(small, history[current.start:current.stop])).document).findall("a:entry", ATOM)]
    assert [item["id"] for item in feed["items"]] == atom_ids and len(atom_ids) == 3


def test_an_empty_archive_has_an_empty_valid_json_feed(config):
    feed = validate(json_feed.render(config, []))
    assert feed["items"] == []
    assert json_feed.render(config, []) == json_feed.render(config, [])
