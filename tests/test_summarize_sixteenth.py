"""Shapes met in the sixteenth and seventeenth held-aside sets, on invented posts (whimbrel
fixtures): headings ending in a link back to the contents, known issues and a hall of fame
beside the news, Slovak labels."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_link_back_to_the_contents_ends_no_heading_name():
    text = ("---\ntitle: Whimbrel 3.1\n---\n\n## Contents\n\n- [Queues](#queues-top)\n- [Thanks](#thanks-top)\n\n"
            "# Queues [[top](#contents)]\n\n## Sharded queues [[top](#contents)]\n\nQueues split across nodes.\n\n"
            "## Replay [Beta] [↑](#contents)\n\nConsumers replay from any offset.\n\n"
            "# Hall of fame [[top](#contents)]\n\nThanks to everyone who helped.\n")
    assert features(text) == [("Sharded queues", None, "Queues"), ("Replay", "beta", "Queues")]


def test_known_issues_stand_beside_the_news():
    text = ("# Whimbrel 3.1\n\n## Neuerungen\n\n### Schnellere Warteschlangen\n\nWarteschlangen sind schneller.\n\n"
            "### Bekannte Probleme\n\nDer Export kann hängen.\n\n### Nästa steg\n\nLäs dokumentationen.\n")
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
