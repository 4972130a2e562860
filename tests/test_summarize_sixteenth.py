"""Shapes met in the sixteenth and seventeenth held-aside sets, on invented posts (whimbrel
fixtures): headings ending in a link back to the contents, known issues and a hall of fame
beside the news, Slovak labels."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_link_back_to_the_contents_ends_no_heading_name():
    text = ("---\ntitle: Whimbrel 3.1\n---\n\n## Contents\n\n- [Queues](#queues-top)\n- [Thanks](#thanks-top)\n\n"
            "# Queues [[top](#contents)]\n\n## Sharded queues [[top](#contents)]\n\nQueues split across nodes.\n\n"
            "## Replay [Beta] [↑](#contents)\n\nConsumers replay from any offset.\n\n"
            "# Hall of fame [[top](#contents)]\n\nThanks to everyone who helped.\n")
    assert features(text) == [("Sharded queues", None, "Queues"), ("Replay", "beta", "Queues")]


def test_known_issues_and_notes_for_packagers_stand_beside_the_news():
    text = ("# Whimbrel 3.1\n\n## Neuerungen\n\n### Schnellere Warteschlangen\n\nWarteschlangen sind schneller.\n\n"
            "### Bekannte Probleme\n\nDer Export kann hängen.\n\n### Nästa steg\n\nLäs dokumentationen.\n\n"
            "### For distributors\n\nBuild with Go 1.24.\n")
    assert features(text) == [("Schnellere Warteschlangen", None, "Neuerungen")]


def test_slovak_labels_for_stable_and_deprecated():
    text = ("# Whimbrel 3.1\n\n## Novinky\n\n### Rýchle fronty (stabilné)\n\nFronty sú rýchlejšie.\n\n"
            "### Starý formát (zastarané)\n\nFormát v1 bude odstránený.\n")
    assert features(text) == [("Rýchle fronty", "stable", "Novinky"), ("Starý formát", "deprecated", "Novinky")]


def test_a_copied_release_page_whose_items_head_their_text():
    text = read("whimbrel-2.0-release-page.txt")
    summary = summarize(text)
    # The page's "Latest" badge sits on the release's name line: it is no part of the name.
    assert (summary.title, summary.author) == ("whimbrel-core: v2.0.0", "nadiak")
    assert summary.summary_bullets == ("Streams can be resumed after a restart.", "The minimum Go version is now 1.24.")
    # Each item's short name stands on its bullet's line over its own text: a heading. The
    # one-line item under "Fixed" is a plain list's.
    assert features(text) == [
        ("Resumable streams", "beta", "Added"),
        ("Batch acknowledgements", None, "Added"),
        ("Client.Dial", "deprecated", "Changed"),
    ]


def test_items_under_a_sentence_or_wrapped_stay_a_list():
    text = ("Whimbrel 2.0\n\nWhat changed\n\nThe release is out today. Two new integrations came in:\n\n"
            "  * Heron, added by @ana\n    Reads the heron sensors.\n  * Egret, added by @bo\n    Reads the egret sensors.\n\n"
            "Plugins\n\n  * Plugins can now be loaded at run time from any directory that the\n"
            "    configuration names.\n  * Plugins may declare the versions of the core they need, which the\n"
            "    loader checks.\n")
    assert not [f for f in features(text) if f[0].startswith(("Heron", "Egret", "Plugins can"))]


def test_a_release_page_copy_under_its_top_navigation():
    text = ("Skip to content\nwhimbrel-dev / whimbrel\nPublic\nNotifications\nFork 310\nStar 4.2k\n\n"
            "    Code\n    Issues 48\n    Pull requests 9\n\nReleases / v2.0.0\n\nWhimbrel v2.0.0\nLatest\n\n"
            "NadiaK released this Mar 3, 2026 · 12 commits to main since this release\nv2.0.0\n9f0e1d2\n\n"
            "Whimbrel 2.0 is out, with resumable streams.\n\nNew features\n\nResumable streams\n\n"
            "Streams resume after a restart.\n\nBatch acknowledgements [Beta]\n\nConsumers acknowledge many messages.\n")
    summary = summarize(text)
    assert summary.title == "Whimbrel v2.0.0"
    assert features(text) == [("Resumable streams", None, "New features"),
                              ("Batch acknowledgements", "beta", "New features")]


def test_a_dump_that_glues_headings_between_paragraphs():
    text = read("whimbrel-2.0-w3m.txt")
    summary = summarize(text)
    # Under the site's header and a rule, a breadcrumb with a long last step; the title may
    # end in "!"; a forum's byline gives the poster's login and role beside the date.
    assert (summary.title, summary.author) == ("Whimbrel 2.0 is here!", "nadia")
    assert summary.summary_bullets == ("Sharded queues across nodes", "Replay of messages from any offset",
                                       "A much smaller memory footprint")
    # No blank line parts a heading from the text above or below it: a short line that ends
    # no sentence, under a line that ended its block and over text, is a heading.
    assert features(text) == [
        ("Sharded queues", None, "Delivery"),
        ("Offset replay", "beta", "Delivery"),
        ("Compact snapshots", None, "Storage"),
        ("Cold storage tiering", "experimental", "Storage"),
        ("The v1 wire format", "deprecated", "Retired"),
    ]


def test_short_lines_of_a_pages_chrome_are_no_glued_headings():
    text = ("Whimbrel 2.0\n\nWhat is new\n\nSharded queues\nQueues may be split across nodes, each with part of the\n"
            "messages.\n\nWhimbrel 2.0 released\nAnnouncements\nrelease\nYou have selected 0 posts.\nTopic Replies Views\n"
            "The v1 wire format\n3 4 May 2026\n")
    assert not [f for f in features(text) if f[0] in ("release", "The v1 wire format")]


def test_a_changelogs_highlights_under_a_sentence_about_the_version():
    text = ("# Changelog\nAll notable changes are listed here.\n\n## [Unreleased]\n* fix(queue): a typo\n\n"
            "## [2.0.0] - 2026-03-03\n\nThis release brings resumable streams.\n\n### Highlights\n"
            "1. **Resumable streams** after a restart\n2. Batch acknowledgements\n\n### Added\n"
            "* **Resumable streams (beta)**: call `resume()`\n\n### Fixed\n* fix(net): a leak\n")
    assert summarize(text).summary_bullets == ("Resumable streams after a restart", "Batch acknowledgements")


@pytest.mark.parametrize("opening", [
    "Whimbrel 2.0 is the first release of the year. The main points:",
    "Today we release Whimbrel 2.0, with a new storage engine. What you\nget:",
])
def test_sentences_naming_the_main_points_introduce_the_highlights(opening):
    text = (f"Whimbrel 2.0\n============\n\n{opening}\n\n* Resumable streams\n* Batch acknowledgements\n\n"
            "Features\n--------\n\nResumable streams\n^^^^^^^^^^^^^^^^^\n\nStreams resume after a restart.\n")
    assert summarize(text).summary_bullets == ("Resumable streams", "Batch acknowledgements")


def test_a_docs_pages_title_without_its_permalink():
    text = ('<html><head><title>Novidades na v2.0 — documentação do whimbrel 2.0</title></head><body>'
            '<div class="sidebar"><h2>Navegação</h2><ul><li><a href="/">Início</a></li></ul></div>'
            '<main><h1>Novidades na v2.0<a class="headerlink" href="#novidades">#</a></h1>'
            '<p>Uma versão com filas mais rápidas.</p>'
            '<h2>Filas<a class="headerlink" href="#filas">#</a></h2>'
            '<h3>Filas particionadas<a class="headerlink" href="#particionadas">#</a></h3>'
            '<p>As filas dividem-se entre nós.</p></main></body></html>')
    assert summarize(text).title == "Novidades na v2.0"
    assert features(text) == [("Filas particionadas", None, "Filas")]


def test_a_lynx_dump_released_by_its_author_with_a_footer_of_links():
    text = read("whimbrel-2.0-lynx.txt")
    summary = summarize(text)
    # "Released on <date> by <name>" is a byline: the centered line above it is the title.
    assert (summary.title, summary.author) == ("What's new in Whimbrel 2.0", "Nadia Kowalczyk")
    assert summary.summary_bullets == ("Queues can be sharded across nodes", "Consumers replay from any offset")
    # A feature's text may end in code indented deeper. The footer's rows of links, between
    # the body's indent and the margin, head nothing.
    assert features(text) == [("Sharded queues", None, "New features"), ("Offset replay", "beta", "New features")]


def test_an_mdx_components_template_string_holds_no_heading():
    text = ("---\ntitle: Whimbrel 2.0\n---\n\n## Resumable streams\n\nStreams resume after a restart.\n\n"
            "<Playground code={`import { open } from 'whimbrel';\n# a comment in the template, not a heading\n"
            "open('queue');`} />\n\n## Batch acknowledgements\n\nMany messages in one call.\n")
    assert features(text) == [("Resumable streams", None, None), ("Batch acknowledgements", None, None)]


def test_a_mail_feature_whose_text_ends_in_code():
    text = ("Subject: Whimbrel 2.0 released\n\nHi,\n\nWhimbrel 2.0 is out.\n\nStorage\n=======\n\n"
            "Sharded queues\n  Queues split across nodes. Turn it on:\n    # in whimbrel.toml\n    shards = 4\n\n"
            "Offset replay (beta)\n  Consumers replay from any offset.\n\nNotes for packagers\n"
            "===================\n\nBuild with Go 1.24 or later.\n")
    assert features(text) == [("Sharded queues", None, "Storage"), ("Offset replay", "beta", "Storage")]


def test_reading_glued_runs_and_release_page_items_is_linear():
    def make_glued(k: int) -> str:
        run = "".join(f"Feature {i}\nThe text of feature {i} says what changed, at some length.\n"
                      for i in range(150 * k))
        return f"Whimbrel 2.0\n\nnadia · Core team · Mar 3, 2026\n\nWhimbrel 2.0 is out.\n\nDelivery\n{run}"

    assert_linear(summarize, make_glued)

    def make_items(k: int) -> str:
        items = "".join(f"  * Item {i}\n    Item {i} has a text of its own.\n" for i in range(150 * k))
        return f"Whimbrel v2.0.0\n\n@nadia nadia released this 3 Mar 2026\n\nAdded\n\n{items}\nChanged\n\n{items}"

    assert_linear(summarize, make_items)
