"""Shapes met in the fifteenth held-aside set, on invented posts (lapwing fixtures): a w3m
dump that wraps its paragraphs but glues each heading to its text, a copy of an older
release page (no "@" before the login, a badge line over the byline), a changelog whose
highlights are the newest version's first sub-part, a list introduced after a sentence
saying the release is available, and short parts after a post's closing part."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import split_label, summarize
from newsletter.summarize.metadata import byline


def test_a_wrapped_dump_with_headings_glued_to_their_text():
    text = read("lapwing-4.0-w3m.txt")
    summary = summarize(text)
    # Under a menu row and a breadcrumb, the title stands a blank line above its byline,
    # which gives a reading time beside the date.
    assert (summary.title, summary.author) == ("Lapwing 4.0 is out", "Mara Okonkwo")
    assert summary.summary_bullets == ("Queues can be sharded across nodes", "Message replay from any offset",
                                       "A smaller memory footprint for idle consumers")
    # The labeled line with no text, right above the next group's line, is a feature of
    # its group; the steps to upgrade and the page's footer are none.
    assert features(text) == [
        ("Sharded queues", None, "Delivery"),
        ("Replay from offset", "beta", "Delivery"),
        ("Compact snapshots", None, "Operations"),
        ("Cold storage tiering", "experimental", "Operations"),
        ("The v1 wire format", "deprecated", "Retired"),
    ]


def test_a_heading_glued_to_its_text_needs_a_break_no_wrap_made():
    # Each paragraph's first line is filled to the column: the next word would not have fit.
    text = ("Notes for the release\n\nSchedules now start every job in the order in which\n"
            "they came.\n\nCaches are now shared across all of the hosts of one\npool.\n\n"
            "Replay\nConsumers ask for messages again from any offset.\n")
    assert not [f for f in features(text) if f[0].startswith(("Schedules", "Caches"))]
    # One short line over its text alone may be a break made by hand: two or more tell.
    assert not [f for f in features(text) if f[0] == "Replay"]


def test_a_copied_release_page_without_the_at_sign():
    text = read("lapwing-4.0-release-page.txt")
    summary = summarize(text)
    # The release's name stands over a badge ("Latest") and the byline; its tag differs.
    assert (summary.title, summary.author) == ("Lapwing 4.0.0", "okonkwo")
    assert summary.summary_bullets == ("Sharded queues across nodes", "Replay of messages from any offset",
                                       "Idle consumers use far less memory")
    assert features(text) == [
        ("Sharded queues", None, "New"),
        ("Offset replay", "beta", "New"),
        ("The v1 wire format", "deprecated", "Removed"),
    ]


def test_badges_and_buttons_between_a_releases_name_and_its_byline():
    text = read("lapwing-4.0-release-page.txt").replace("Latest\n", "Latest\nLatest\nCompare\n")
    assert summarize(text).title == "Lapwing 4.0.0"


@pytest.mark.parametrize(("line", "name"), [
    ("okonkwo released this Feb 3", "okonkwo"),
    ("we released this 2 days ago", None),
    ("okonkwo released this fix because it was needed.", None),
])
def test_a_release_byline_without_the_at_sign_names_a_login_and_a_date(line, name):
    assert byline(line) == name


def test_a_changelogs_highlights_in_the_newest_versions_first_sub_part():
    text = read("lapwing-changelog.md")
    assert summarize(text).summary_bullets == ("Sharding: a queue spans several nodes",
                                               "Replay messages from any offset", "Idle consumers need less memory")
    # The highlights' part is the summary's, no feature.
    assert not [f for f in features(text) if f[0].startswith("Highlights")]
    assert ("Offset replay", "beta", "Added") in features(text)


def test_a_list_introduced_after_a_sentence_saying_the_release_is_available():
    summary = summarize(read("lapwing-4.0-es.html"))
    assert summary.summary_bullets == ("las colas se reparten entre varios nodos;",
                                       "los consumidores pueden volver a leer desde cualquier posición;",
                                       "los consumidores inactivos ocupan menos memoria.")
    text = ("# Lapwing 4.0\n\nLapwing 4.0 ist ab heute verfügbar. Das Wichtigste:\n\n"
            "- Warteschlangen verteilen sich auf Knoten\n- Nachrichten lassen sich erneut lesen\n\n"
            "## Verteilte Warteschlangen\n\nText.\n\n## Erneutes Lesen\n\nText.\n")
    assert summarize(text).summary_bullets == ("Warteschlangen verteilen sich auf Knoten",
                                               "Nachrichten lassen sich erneut lesen")
    # A list the last sentence introduces as where the release runs stays no highlights.
    text = ("# Lapwing 4.0\n\nLapwing 4.0 is here. It is available for:\n\n- Linux on x86-64 and arm64 hosts\n"
            "- macOS 14 and later on Apple silicon\n\n## Sharded queues\n\nText.\n\n## Replay\n\nText.\n")
    assert summarize(text).summary_bullets == ()


@pytest.mark.parametrize("cue", ["L'essentiel :", "Lo esencial:", "Das Wichtigste:", "Основное:",
                                 "Principais mudanças:", "Punti salienti:", "Kort samengevat:", "重要な変更："])
def test_summary_labels_in_more_languages(cue):
    # Short names no heading repeats: only the label over them says they are the highlights.
    text = (f"# Lapwing 4.0\n\nA release for operators.\n\n{cue}\n\n- Cold storage\n- Faster disks\n\n"
            "## Sharding\n\nText.\n\n## Replay\n\nText.\n")
    assert summarize(text).summary_bullets == ("Cold storage", "Faster disks"), cue


BODY = ("# Lapwing 4.0\n\n## New features\n\n### Sharded queues (beta)\n\nA queue spans nodes.\n\n"
        "## Removed\n\n### The v1 wire format (deprecated)\n\nGone in 5.0.\n\n")


def test_a_short_part_after_the_closing_part_closes_the_post_too():
    text = BODY + "## Upgrading\n\nRestart the nodes one by one.\n\n## Kudos\n\nTo everyone who filed a report.\n"
    assert features(text) == [("Sharded queues", "beta", "New features"),
                              ("The v1 wire format", "deprecated", "Removed")]
    # Without a closing part before it, a part at the end is judged as any other.
    text = BODY + "## Smaller snapshots\n\nSnapshots load twice as fast.\n"
    assert ("Smaller snapshots", None, None) in features(text)


@pytest.mark.parametrize("closing", ["Aggiornare", "Grazie", "Gràcies", "Следващи стъпки", "Благодарности",
                                     "Mise à jour", "Atualização", "Obrigado", "Aktualisierung", "Обновление",
                                     "Güncelleme", "Uppdatering", "アップデート方法", "업데이트", "Special thanks"])
def test_closing_parts_in_more_languages(closing):
    text = BODY + f"## {closing}\n\nSee the docs.\n"
    assert [f[0] for f in features(text)] == ["Sharded queues", "The v1 wire format"], closing


@pytest.mark.parametrize(("heading", "stability"), [
    ("Старият модул (остаряло)", "deprecated"), ("Старият модул (остарял)", "deprecated"),
    ("Filtro antiguo (obsoleta)", "deprecated"), ("Filtro antiguo (deprecado)", "deprecated"),
    ("Ancien format (dépréciée)", "deprecated"), ("Stary format (przestarzała)", "deprecated"),
    ("Nova fila (pré-visualização)", "preview"), ("Ny kö (förhandsversion)", "preview"),
    ("Nowa kolejka (podgląd)", "preview"), ("Новая очередь (предварительная версия)", "preview"),
    ("Нова опашка (стабилен)", "stable"), ("Neue Warteschlange (Beta-Version)", "beta"),
])
def test_labels_in_more_forms_and_languages(heading, stability):
    assert split_label(heading)[1] == stability


def test_reading_glued_dumps_and_changelogs_is_linear():
    def make_dump(k: int) -> str:
        parts = "".join(f"Part {i} name\nThe text of part {i} says what changed in it, at some length\n"
                        f"and goes on to a second line.\n\n" for i in range(60 * k))
        return f"Lapwing\nDocs • Blog\n\nLapwing 4.0\n\nAda Byron · 3 February 2027 · 5 min read\n\n{parts}"

    assert_linear(summarize, make_dump)

    def make_changelog(k: int) -> str:
        versions = "".join(f"## 4.{i}.0 - 2027-02-03\n\n### Fixed\n- Fix {i}\n\n" for i in range(60 * k))
        return f"# Changelog\n\n## 5.0.0\n\n### Highlights\nThe big ones:\n- a\n- b\n\n### Added\n- c\n\n{versions}"

    assert_linear(summarize, make_changelog)


@pytest.mark.parametrize("name", ["Highlights ✨", "New features 🎉", "Breaking changes ⚠️"])
def test_an_emoji_after_a_generic_part_name_decorates_it(name):
    text = (f"# Lapwing 4.0\n\n## {name}\n\nThis release changes how queues grow, and how they shrink again.\n\n"
            "## Sharded queues (beta)\n\nA queue spans nodes.\n\n## Replay\n\nConsumers read again.\n")
    assert features(text) == [("Sharded queues", "beta", None), ("Replay", None, None)], name
