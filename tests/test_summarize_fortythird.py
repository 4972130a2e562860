"""Shapes met in the forty-third to forty-fifth held-aside sets, on invented posts
(merganser fixtures): a post saved as an Atom entry; a dump's site name over its menu row;
a wiki's page name over the post's own title."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.parse import parse


def test_a_post_saved_as_an_atom_feed_of_one_entry():
    text = read("merganser-3.1-entry.atom")
    summary = summarize(text)
    # The entry's title, not the feed's; its author and its permalink.
    assert (summary.title, summary.author, summary.canonical_url) == (
        "Merganser 3.1: qué trae la nueva versión", "Inés Robledo", "https://merganser.example.org/blog/3-1/")
    assert summary.format == "html"
    # The content's markup is the post: its headings, labels and sections; its code's
    # comment is no heading.
    assert features(text) == [
        ("Colas persistentes", "beta", "Novedades"),
        ("Planificador por prioridades", None, "Novedades"),
        ("merganser.run_all", "deprecated", "Cambios"),
    ]


def test_an_atom_entry_with_escaped_html_content_and_a_feed_of_many_entries():
    entry = ('<entry xmlns="http://www.w3.org/2005/Atom"><title>Merganser 3.2</title>'
             '<author><name>Inés Robledo</name></author>'
             '<content type="html">&lt;h2&gt;Faster queues&lt;/h2&gt;&lt;p&gt;Queues are faster.&lt;/p&gt;'
             '&lt;h2&gt;Smaller wheels&lt;/h2&gt;&lt;p&gt;Wheels are smaller.&lt;/p&gt;</content></entry>')
    document = parse(entry)
    assert (document.format, document.meta["title"], document.meta["author"]) == ("html", "Merganser 3.2", "Inés Robledo")
    assert [f[0] for f in features(entry)] == ["Faster queues", "Smaller wheels"]
    # A feed of two entries is a list of posts, not a post: no entry's title is taken.
    feed = f'<feed xmlns="http://www.w3.org/2005/Atom"><title>Planet</title>{entry}{entry}</feed>'
    assert parse(feed).meta.get("title") != "Merganser 3.2"
