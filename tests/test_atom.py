import json
import shutil
import subprocess
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import feedparser
import pytest
from helpers import NOW
from helpers.posts import lumen, numbered, stored_post
from lxml import etree

from newsletter import pipeline
from newsletter.models import DigestHead, Entry
from newsletter.publish import atom
from newsletter.publish.feed_items import feed_items

NS = {"a": "http://www.w3.org/2005/Atom", "fh": "http://purl.org/syndication/history/1.0"}
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def posts_feeds(config, entries) -> dict[str, bytes]:
    """posts.atom and every archive page, rendered, keyed by path relative to the archive.
    The history is in the order the state database keeps it: by first sighting, then by
    publication (entry_index.EntryIndex.history)."""
    history = sorted(entries, key=lambda e: (min(f.first_seen for f in e.forms), e.published, e.id))
    return {page.path: atom.render_page(config, page, feed_items(config, history[page.start:page.stop])).document
            for page in atom.feed_pages(config, len(history))}


def parse(data: bytes) -> etree._Element:
    return etree.fromstring(data)


def check_atom(data: bytes, rng: Path) -> None:
    """RFC 4287's RELAX NG grammar, plus the rules it states outside the grammar."""
    root = parse(data)
    schema = etree.RelaxNG(etree.parse(str(rng)))
    assert schema.validate(root), schema.error_log
    entries = root.xpath("a:entry", namespaces=NS)
    if not root.xpath("a:author", namespaces=NS):
        assert all(e.xpath("a:author", namespaces=NS) for e in entries)
    for entry in entries:
        assert entry.xpath("a:link[@rel='alternate' or not(@rel)] or a:content", namespaces=NS)
        assert not entry.xpath("a:content[@src]", namespaces=NS) or entry.xpath("a:summary", namespaces=NS)
    for parent in [root, *entries]:
        keys = [(link.get("type"), link.get("hreflang"))
                for link in parent.xpath("a:link[@rel='alternate' or not(@rel)]", namespaces=NS)]
        assert len(keys) == len(set(keys)), keys


def test_a_post_entry_carries_everything_a_reader_shows(config):
    feed = posts_feeds(config, [lumen()])["posts.atom"]
    entry = parse(feed).find("a:entry", NS)
    assert entry.findtext("a:id", namespaces=NS) == "https://lumen.example.org/blog/2.0"
    assert entry.findtext("a:title", namespaces=NS) == "Lumen 2.0 is out"
    assert entry.findtext("a:author/a:name", namespaces=NS) == "Ada"
    assert entry.get(XML_LANG) == "en"
    assert entry.findtext("a:published", namespaces=NS) == (NOW - timedelta(days=1)).isoformat()
    assert entry.findtext("a:updated", namespaces=NS) == NOW.isoformat()
    links = [(link.get("rel"), link.get("hreflang"), link.get("href")) for link in entry.findall("a:link", NS)]
    # The canonical URL, relative in the post, is resolved against the post's address. The
    # main link comes first and is the only alternate, which every reader takes as the link.
    assert links == [
        ("alternate", "en", "https://lumen.example.org/blog/2.0#top"),
        ("related", "de", "https://lumen.example.org/de/2.0"),
        ("related", "en", "https://mirror.example.net/lumen-2.0"),
    ]
    assert entry.findtext("a:summary", namespaces=NS) == (
        "• Rendering is twice as fast.\n• A <script>alert(1)</script> plugin API.")
    assert entry.find("a:summary", NS).get("type") == "text"
    categories = [(c.get("scheme"), c.get("term"), c.get("label")) for c in entry.findall("a:category", NS)]
    assert categories == [
        ("https://digest.example.org/#project", "lumen", "Project: Lumen"),
        ("https://digest.example.org/#section", "rendering", "Section: Rendering"),
        ("https://digest.example.org/#section", "core", "Section: Core"),
        ("https://digest.example.org/#stability", "stable", "Stability: Stable"),
        ("https://digest.example.org/#stability", "beta", "Stability: Beta"),
        ("https://digest.example.org/#stability", "prototype", "Stability: Prototype"),
    ]
    content = entry.find("a:content", NS)
    assert content.get("type") == "html"
    html = content.text
    assert "<h3>Rendering</h3>" in html and "<h3>Core</h3>" in html
    assert "GPU path tracer <strong>(Beta)</strong>" in html
    assert "<li>Old hooks removed</li>" in html
    assert "<script" not in html and "&lt;script&gt;" in html
    assert '<a href="https://lumen.example.org/de/2.0" hreflang="de" rel="noopener">Deutsch</a>' in html
    # The labels again, for readers that drop categories.
    assert html.startswith(
        "<p><small>Project: Lumen · Section: Rendering, Core · Stability: Stable, Beta, Prototype</small></p>")


def test_an_undated_post_has_no_made_up_published_date(config):
    entry = parse(posts_feeds(config, [numbered(5), lumen(primary=replace(
        lumen().primary, summary=replace(lumen().primary.summary, published=None)))])["posts.atom"])
    published = {e.findtext("a:title", namespaces=NS): e.findtext("a:published", namespaces=NS)
                 for e in entry.findall("a:entry", NS)}
    assert published == {"Lumen 2.0 is out": None, "Post 5": (NOW - timedelta(days=95)).isoformat()}


def test_feed_and_archive_pages_are_valid_atom(config, shared):
    entries = [lumen(), *(numbered(n) for n in range(10, 17))]
    feeds = posts_feeds(replace(config, feed_size=3), entries)
    assert sorted(feeds) == ["feeds/posts-1.atom", "feeds/posts-2.atom", "posts.atom"]
    for data in feeds.values():
        check_atom(data, shared / "validators" / "atom.rng")
    check_atom(atom.digests_feed(config, [], str).document, shared / "validators" / "atom.rng")
    digest = DigestHead(1, "2026-11-02-1", NOW, entry_count=1)
    check_atom(atom.digests_feed(config, [digest], lambda d: "<p>body</p>").document, shared / "validators" / "atom.rng")


def test_feedparser_reads_every_field_without_complaint(config):
    parsed = feedparser.parse(posts_feeds(config, [lumen(), numbered(5)])["posts.atom"])
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.feed.links[0].rel == "self"
    assert [e.title for e in parsed.entries] == ["Lumen 2.0 is out", "Post 5"]
    lumen_entry = next(e for e in parsed.entries if e.title == "Lumen 2.0 is out")
    # The post itself, not one of its translations, is the entry's link.
    assert lumen_entry.link == "https://lumen.example.org/blog/2.0#top"
    assert lumen_entry.content[0].type == "text/html"
    assert [t.term for t in lumen_entry.tags] == ["lumen", "rendering", "core", "stable", "beta", "prototype"]
    assert lumen_entry.tags[0].label == "Project: Lumen"


def test_the_feed_updated_is_the_newest_entry_never_the_build_time(config):
    old = numbered(1, first_seen=NOW - timedelta(days=30))
    newer = replace(numbered(2), primary=replace(numbered(2).primary, changed=NOW - timedelta(days=2)))
    root = parse(posts_feeds(config, [old, newer])["posts.atom"])
    assert root.findtext("a:updated", namespaces=NS) == (NOW - timedelta(days=2)).isoformat()
    empty = parse(posts_feeds(config, [])["posts.atom"])
    assert empty.findtext("a:updated", namespaces=NS) == "1970-01-01T00:00:00+00:00"


def test_entries_are_written_newest_first_and_only_the_newest_feed_size(config):
    entries = [numbered(n) for n in range(1, 8)]
    root = parse(posts_feeds(replace(config, feed_size=3), entries)["posts.atom"])
    titles = [e.findtext("a:title", namespaces=NS) for e in root.findall("a:entry", NS)]
    assert titles == ["Post 7", "Post 6", "Post 5"]


def test_a_page_of_entries_kept_from_an_earlier_one_is_the_page_made_whole(config):
    """posts.atom takes its unchanged entries' elements as an earlier build made them
    (archive._posts_feeds): they must fit the page's bytes wherever they stand in it."""
    small = replace(config, feed_size=4)
    # What starts an entry's element, as text in its title, a bullet and its link: escaped
    # in the document, it is not taken for an element's start.
    tricky = Entry(id="tag:example.org,2026:tricky", primary=stored_post(
        9, "<entry> in a title", url="https://example.org/a?<entry>", author="Zoë",
        bullets=("  <entry xml:lang='de'> in a bullet", "Zweite Zeile: äöü, 中文")))
    entries = [lumen(), tricky, *(numbered(n) for n in range(1, 7))]
    pages = atom.feed_pages(small, len(entries))
    assert [page.path for page in pages] == ["feeds/posts-1.atom", "feeds/posts-2.atom", "posts.atom"]
    for page in pages:
        items = feed_items(small, entries[page.start:page.stop])
        whole = atom.render_page(small, page, items)
        assert len(whole.entries) == len(items) == len(parse(whole.document).findall("a:entry", NS))
        assert all(entry.startswith(b"  <entry") and entry.endswith(b"</entry>\n") for entry in whole.entries)
        alternate = [entry if number % 2 else None for number, entry in enumerate(whole.entries)]
        for kept in (whole.entries, [None, *whole.entries[1:]], alternate):
            assert atom.render_page(small, page, items, kept) == whole, page.path


def follow_archives(feeds: dict[str, bytes], site: str) -> list[str]:
    """Every entry id a reader finds starting at posts.atom and following prev-archive."""
    ids, path, visited = [], "posts.atom", []
    while path:
        visited.append(path)
        root = parse(feeds[path])
        ids += root.xpath("a:entry/a:id/text()", namespaces=NS)
        previous = root.xpath("a:link[@rel='prev-archive']/@href", namespaces=NS)
        path = previous[0].removeprefix(site) if previous else None
        assert path not in visited
    return ids


def test_rfc5005_archive_pages_reach_every_entry(config):
    entries = [numbered(n, first_seen=NOW + timedelta(minutes=n)) for n in range(1, 12)]
    feeds = posts_feeds(replace(config, feed_size=3), entries)
    site = config.site.url
    assert set(follow_archives(feeds, site)) == {e.id for e in entries}

    page = parse(feeds["feeds/posts-2.atom"])
    assert page.find("fh:archive", NS) is not None
    assert parse(feeds["posts.atom"]).find("fh:archive", NS) is None
    links = {link.get("rel"): link.get("href") for link in page.findall("a:link", NS)}
    assert links == {
        "self": f"{site}feeds/posts-2.atom", "alternate": site, "current": f"{site}posts.atom",
        "prev-archive": f"{site}feeds/posts-1.atom", "next-archive": f"{site}feeds/posts-3.atom",
    }
    # Pages are counted from the first entry: page 1 holds the three that arrived first.
    assert page_titles(feeds["feeds/posts-1.atom"]) == ["Post 3", "Post 2", "Post 1"]


def page_titles(data: bytes) -> list[str]:
    return parse(data).xpath("a:entry/a:title/text()", namespaces=NS)


def test_archive_pages_keep_their_entries_and_bytes_when_new_posts_arrive(config):
    small = replace(config, feed_size=3)
    entries = [numbered(n, first_seen=NOW + timedelta(minutes=n)) for n in range(1, 8)]
    before = posts_feeds(small, entries)
    # A late arrival with an old publication date goes to the end of the history, not page 1.
    late = numbered(99, first_seen=NOW + timedelta(days=1))
    late = replace(late, primary=replace(late.primary, summary=replace(
        late.primary.summary, published=NOW - timedelta(days=400))))
    after = posts_feeds(small, [*entries, late])
    assert after["feeds/posts-1.atom"] == before["feeds/posts-1.atom"]
    assert after["feeds/posts-2.atom"] == before["feeds/posts-2.atom"]
    more = posts_feeds(small, [*entries, late, numbered(50, first_seen=NOW + timedelta(days=2))])
    assert more["feeds/posts-1.atom"] == before["feeds/posts-1.atom"]
    assert page_titles(more["feeds/posts-2.atom"]) == page_titles(before["feeds/posts-2.atom"])
    assert "Post 99" in page_titles(more["feeds/posts-3.atom"])


def test_feed_pages_of_an_earlier_page_size_are_removed_and_the_others_kept(config):
    pipeline.build(replace(config, feed_size=1), now=NOW)
    feeds = config.archive_dir / "feeds"
    assert sorted(path.name for path in feeds.iterdir()) == ["posts-1.atom", "posts-2.atom"]
    (feeds / "notes.txt").write_text("not a page", encoding="utf-8")
    pipeline.build(replace(config, feed_size=2), now=NOW + timedelta(hours=1))
    assert sorted(path.name for path in feeds.iterdir()) == ["notes.txt", "posts-1.atom"]


def test_rebuilds_are_byte_identical_and_updated_moves_only_with_content(config, posts_dir):
    pipeline.build(replace(config, feed_size=2), now=NOW)
    archive = config.archive_dir
    outputs = sorted(p for p in archive.rglob("*") if p.is_file())
    first = {p: p.read_bytes() for p in outputs}
    assert archive / "feeds" / "posts-1.atom" in first and archive / "posts.json" in first
    pipeline.build(replace(config, feed_size=2), now=NOW + timedelta(hours=5))
    assert {p: p.read_bytes() for p in sorted(p for p in archive.rglob("*") if p.is_file())} == first

    before = entry_dates(archive)
    post = posts_dir / "tern-0.9-scrape.txt"
    post.write_text(post.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    later = NOW + timedelta(days=1)
    pipeline.build(replace(config, feed_size=2), now=later)
    after = entry_dates(archive)
    assert after.keys() == before.keys()
    changed = {i for i in after if after[i] != before[i]}
    assert len(changed) == 1
    (changed_id,) = changed
    assert after[changed_id] == later.isoformat()
    # posts.json, written from the same entries as posts.atom, moves with it.
    items = json.loads((archive / "posts.json").read_bytes())["items"]
    assert {item["id"]: item["date_modified"] for item in items} == {
        i: after[i] for i in entry_dates(archive, [archive / "posts.atom"])}


def entry_dates(archive: Path, feeds: list[Path] | None = None) -> dict[str, str]:
    """Entry id -> updated, over `feeds` (the feed and its archive pages by default)."""
    dates = {}
    for path in feeds or [archive / "posts.atom", *sorted((archive / "feeds").glob("*.atom"))]:
        for entry in parse(path.read_bytes()).findall("a:entry", NS):
            dates[entry.findtext("a:id", namespaces=NS)] = entry.findtext("a:updated", namespaces=NS)
    return dates


def test_the_digests_feed_carries_each_digest_body_sanitized_with_absolute_links(config):
    digest = DigestHead(1, "2026-11-02-1", NOW, entry_count=1)
    body = ('<table><tr><td><h2><a href="posts/1">Lumen</a></h2></td></tr></table>'
            '<script>alert(1)</script><p style="color:red" onclick="x()">text</p>')
    root = parse(atom.digests_feed(config, [digest], lambda d: body).document)
    entry = root.find("a:entry", NS)
    assert entry.findtext("a:id", namespaces=NS) == "https://digest.example.org/digests/2026-11-02-1.html"
    assert root.findtext("a:updated", namespaces=NS) == NOW.isoformat()
    html = entry.findtext("a:content", namespaces=NS)
    assert entry.find("a:content", NS).get("type") == "html"
    assert '<a href="https://digest.example.org/digests/posts/1" rel="noopener">Lumen</a>' in html
    assert "<script" not in html and "style=" not in html and "onclick" not in html
    assert "<table" not in html and "<h2>" in html and "text" in html
    assert "1 new post" in entry.findtext("a:title", namespaces=NS)


@pytest.mark.slow
@pytest.mark.skipif(
    not (shutil.which("newsboat") and shutil.which("rsstail")),
    reason="the newsboat and rsstail feed readers are not installed (Debian packages)",
)
def test_real_feed_readers_read_the_feed_and_link_each_entry_to_the_post(config, shared, tmp_path):
    feed = tmp_path / "posts.atom"
    feed.write_bytes(posts_feeds(config, [lumen(), numbered(5), numbered(6)])["posts.atom"])
    result = subprocess.run(
        ["bash", str(shared / "tools" / "reader-check.sh"), f"file://{feed}", "3"],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Lumen 2.0 is out  <https://lumen.example.org/blog/2.0#top>" in result.stdout
    assert "rsstail: 3 entries" in result.stdout
