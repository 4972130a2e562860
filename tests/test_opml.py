"""Sources in and out as OPML, the format feed readers trade subscriptions in."""

from __future__ import annotations

from click.testing import CliRunner
from helpers import write_config
from lxml import etree

from newsletter import config as config_module
from newsletter.cli import cli

CONFIG = """# My digest: every comment stays.
[site]
title = "Kite & friends"

[[sources]]
name = "posts"
kind = "folder"
path = "posts"

[[sources]]
name = "kite-blog"
kind = "feed"
url = "https://kite.example.org/feed.xml"

[[sources]]
name = "lumen-2"
kind = "page"
url = "https://lumen.example.org/blog/lumen-2.0"

[archive]
dir = "archive"
"""

OPML = """<?xml version="1.0" encoding="utf-8"?>
<opml version="2.0">
  <head><title>My feeds</title></head>
  <body>
    <outline text="Releases">
      <outline type="rss" text="Kite blog" xmlUrl="https://kite.example.org/feed.xml"/>
      <outline type="rss" text="Tern — release notes" title="Tern: release notes" xmlUrl="https://tern.example.org/atom.xml"/>
      <outline type="rss" text="Kite blog" xmlUrl="https://kite.example.org/other.xml"/>
    </outline>
    <outline type="rss" text="" xmlUrl="https://www.example.net/rss"/>
    <outline type="rss" text="Local file" xmlUrl="file:///etc/passwd"/>
    <outline type="link" text="A page" url="https://example.com/"/>
  </body>
</opml>
"""


def invoke(path, *args: str):
    return CliRunner().invoke(cli, ["--config", str(path), "sources", *args])


def test_sources_opml_lists_the_feed_and_page_sources(tmp_path):
    path = write_config(tmp_path, CONFIG)
    result = CliRunner().invoke(cli, ["--config", str(path), "sources", "--opml"])
    assert result.exit_code == 0, result.output
    assert result.stderr == "1 folder source left out: a folder has no address to share\n"
    root = etree.fromstring(result.stdout.encode("utf-8"))
    assert root.get("version") == "2.0" and root.findtext("head/title") == "Kite & friends"
    assert [dict(outline.attrib) for outline in root.iter("outline")] == [
        {"type": "rss", "text": "kite-blog", "title": "kite-blog", "xmlUrl": "https://kite.example.org/feed.xml"},
        {"type": "link", "text": "lumen-2", "url": "https://lumen.example.org/blog/lumen-2.0"},
    ]


def test_import_adds_each_new_feed_and_keeps_the_config_as_written(tmp_path):
    path = write_config(tmp_path, CONFIG)
    opml = tmp_path / "feeds.opml"
    opml.write_text(OPML, encoding="utf-8")
    result = invoke(path, "import", str(opml))
    assert result.exit_code == 0, result.output
    assert f"{opml}: 'Local file': 'file:///etc/passwd' is not an http(s) URL, skipped" in result.output
    assert result.output.strip().endswith(f"3 feeds added to {path}, 1 already there")

    text = path.read_text(encoding="utf-8")
    assert text.startswith(CONFIG.rstrip())  # comments and order as they were
    added = [(s.name, s.url) for s in config_module.load(path).sources if s.kind == "feed"]
    assert added == [
        ("kite-blog", "https://kite.example.org/feed.xml"),
        ("tern-release-notes", "https://tern.example.org/atom.xml"),
        ("kite-blog-2", "https://kite.example.org/other.xml"),
        ("www.example.net", "https://www.example.net/rss"),
    ]
    # Imported again: nothing new.
    again = invoke(path, "import", str(opml))
    assert again.output.strip().endswith("0 feeds added to " + str(path) + ", 4 already there")
    assert path.read_text(encoding="utf-8") == text


def test_exported_sources_import_into_another_config(tmp_path):
    exported = tmp_path / "out.opml"
    exported.write_text(invoke(write_config(tmp_path, CONFIG), "--opml").stdout, encoding="utf-8")
    other = tmp_path / "other"
    other.mkdir()
    path = write_config(other, '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n')
    assert invoke(path, "import", str(exported)).exit_code == 0
    assert [(s.name, s.url) for s in config_module.load(path).sources if s.kind == "feed"] == [
        ("kite-blog", "https://kite.example.org/feed.xml")]


def test_an_opml_file_that_declares_entities_is_refused_before_expanding_them(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    laughs = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">' for i in range(1, 10))
    opml = tmp_path / "hostile.opml"
    opml.write_text(
        f'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY l0 "lol">{laughs}'
        f'<!ENTITY file SYSTEM "file://{secret}">]>'
        '<opml version="2.0"><body>'
        '<outline type="rss" text="&l9;" xmlUrl="https://a.example.org/feed"/>'
        '<outline type="rss" text="&file;" xmlUrl="https://b.example.org/feed"/>'
        "</body></opml>", encoding="utf-8")
    path = write_config(tmp_path, CONFIG)
    result = invoke(path, "import", str(opml))
    assert result.exit_code == 1
    assert result.output == f"error: {opml}: declares the XML entity 'l0', which OPML does not need: refused\n"
    assert path.read_text(encoding="utf-8") == CONFIG


def test_a_file_that_is_not_opml_is_one_line(tmp_path):
    path = write_config(tmp_path, CONFIG)
    for body in ("<html><body>hi</body></html>", "not xml at all <"):
        opml = tmp_path / "feeds.opml"
        opml.write_text(body, encoding="utf-8")
        result = invoke(path, "import", str(opml))
        assert result.exit_code == 1
        assert result.output.count("\n") == 1 and result.output.startswith(f"error: {opml}: not")
    assert path.read_text(encoding="utf-8") == CONFIG
