"""Shapes met in the sixteenth and seventeenth held-aside sets, on invented posts (whimbrel
fixtures): headings ending in a link back to the contents, known issues and a hall of fame
beside the news, Slovak labels."""

from __future__ import annotations

from helpers.shapes import features


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
