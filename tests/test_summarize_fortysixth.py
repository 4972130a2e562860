"""Shapes met in the forty-sixth to forty-eighth held-aside sets, on invented posts
(kittiwake fixtures): a dump whose breadcrumb stands over its title and byline; a scrape's
line naming a feature and saying no more, over the next feature's line; a lynx dump whose
changes stand at the margin as long lines under a centered title; AsciiDoc sections
numbered by hand; an unlabeled list of links over a "What's new" part; a credits part
before the Highlights part; a part joining kinds of change ("New features and
improvements:")."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.forum_thread import forum_thread


def test_a_dumps_breadcrumb_over_its_title_and_byline_is_no_title():
    text = read("kittiwake-5.2-w3m.txt")
    summary = summarize(text)
    assert summary.title == "Kittiwake 5.2 chegou (mapas offline, novo editor e mais)"
    assert summary.summary_bullets == ("Mapas offline - Baixe regiões inteiras para usar sem rede",
                                       "Novo editor - Edição de rotas com arrastar e soltar")
    # A bare line that says what changed, over a labeled feature's line, is one more feature
    # of the group above, not a group of its own.
    assert features(text) == [
        ("Mapas offline", None, None),
        ("Novo editor", "beta", None),
        ("Sincronização: fila de envio persistente", "preview", "Outras mudanças"),
        ("Suporte a tablets Android com tela de 13 polegadas", None, "Outras mudanças"),
        ("Removido o tema claro antigo", "deprecated", "Outras mudanças"),
    ]


def test_a_lynx_dump_with_its_changes_at_the_margin_keeps_its_centered_title():
    text = read("kittiwake-5.3-lynx.txt")
    assert summarize(text).title == "Kittiwake 5.3 Released"
    # "feature: added ..." says no more of itself: it does not group the lines after it.
    assert features(text) == [
        ("upgraded the bundled map styles to 2027.1", None, "Maps"),
        ("feature: routes avoid ferries on request", "experimental", "Planner"),
        ("feature: added the waypoint notes field to the exported files", None, "Planner"),
        ("bugfix: the planner could stop on very long routes over borders", None, "Planner"),
        ("change: the legacy GPX 1.0 exporter", "deprecated", "Planner"),
        ("feature: conflicts are merged field by field now", "beta", "Sync"),
    ]


def test_asciidoc_sections_numbered_by_hand_lose_their_numbers():
    text = read("kittiwake-6.0-notes.adoc")
    summary = summarize(text)
    # Numbered "1. Introduction" is still the post's introduction, with its highlights.
    assert summary.summary_bullets == ("Routes can now be shared as links.", "The map renderer draws vector tiles.")
    assert features(text) == [
        ("Shared route links", "beta", "Routing"),
        ("Ferry avoidance", None, "Routing"),
        ("Vector tiles", None, "Rendering"),
    ]


def test_a_features_line_with_no_text_under_new_features_stays_in_that_group():
    text = read("kittiwake-6.1-github.txt")
    # So do bare lines in a row right above the next group's name ("Breaking changes").
    assert features(text) == [
        ("Cargo bike profile", None, "New features"),
        ("Smaller offline maps by default", None, "New features"),
        ("Waypoint icons", "experimental", "New features"),
        ("Route notes on the lock screen", None, "New features"),
        ("Elevation charts in the planner", None, "New features"),
    ]


def test_a_scrapes_list_of_links_over_a_whats_new_part_is_no_summary():
    text = read("kittiwake-6.2-lynx.txt")
    summary = summarize(text)
    assert summary.title == "Kittiwake 6.2"
    # Where to download it and its errata are no news; the post names its news part below.
    assert summary.summary_bullets == ()
    assert features(text) == [
        ("Ferry avoidance", None, "New and extended planning"),
        ("Cargo bike profile", "beta", "New and extended planning"),
        # A group's line sharing a word with the text above is no caption of it: the
        # layout ranked it over the line under it.
        ("Field-by-field merges", None, "Various sync improvements"),
    ]


def test_a_credits_part_before_the_highlights_part_and_a_part_joining_kinds_of_change():
    text = read("kittiwake-7.0-notes.md")
    summary = summarize(text)
    assert summary.summary_bullets == ("Routes can be planned for horses.",
                                       "The planner is twice as fast on long routes.")
    # "New Features and Improvements:" groups the parts under it despite its colon; the
    # credits opening the post are no feature.
    assert features(text) == [
        ("Horse riding profile", "beta", "Planner"),
        ("Route links with previews", "experimental", "Sharing"),
    ]


def test_a_body_under_front_matter_with_bold_lead_ins_only_is_markdown():
    # No heading, link or fence: the bold lead-ins are the one sign of Markdown, and the parts.
    assert features(read("kittiwake-7.1-ca.md")) == [
        ("Rutes per a cadires de rodes", None, None),
        ("Nova ordre share per a rutes", None, None),
        ("Mapes sense connexió a tot arreu", None, None),
    ]


def test_a_forum_posters_rank_under_the_header_and_peer_parts_one_bullet_lists():
    text = read("kittiwake-8.0-forum.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Kittiwake 8.0 Albatross released", "rmarsh")
    # The rank at the margin under the header is no part of the post, whose text the forum
    # indents: its lone lines are its parts. Parts named alike, listed in one bullet, are
    # peers: the first does not group the others.
    assert features(text) == [
        ("Phone 8.0 edition", None, None),
        ("Tablet 8.0 edition", None, None),
        ("Route sharing as links", None, None),
    ]


def test_a_changelog_item_led_by_its_area_carries_its_label_after_the_lead():
    text = ("# Changelog\n\n## [3.1.0] - 2027-04-02\n\n### Added\n\n"
            "- **Planner:** cargo bike profile ([#512](https://kittiwake.invalid/pull/512))\n\n"
            "### Deprecated\n\n"
            "- **Sync:** the legacy GPX 1.0 exporter (deprecated) ([#530](https://kittiwake.invalid/pull/530))\n")
    assert ("Sync: the legacy GPX 1.0 exporter (#530)", "deprecated", "Deprecated") in features(text)



def test_closing_parts_and_a_whats_new_heading_in_more_languages():
    italian = ("---\ntitle: Kittiwake 7.2\n---\n\n## Percorsi per cavalli (beta)\n\nIl pianificatore evita le scale.\n\n"
               "## Mappe più piccole\n\nLe mappe occupano la metà.\n\n## In conclusione\n\nBuon viaggio a tutti!\n\n"
               "## Prossima versione\n\nKittiwake 7.3 è prevista per dicembre.\n")
    assert [name for name, _, _ in features(italian)] == ["Percorsi per cavalli", "Mappe più piccole"]
    portuguese = ("---\ntitle: Kittiwake 7.2\n---\n\n## Rotas para cavalos (beta)\n\nO planejador evita escadas.\n\n"
                  "## Baixar o Kittiwake\n\nNovas instalações: baixe as imagens na página de downloads.\n")
    assert [name for name, _, _ in features(portuguese)] == ["Rotas para cavalos"]
    bulgarian = ("---\ntitle: Kittiwake 7.2\n---\n\nИзлезе Kittiwake 7.2.\n\n## Какво е ново\n\n"
                 "### Маршрути за коне (бета)\n\nПланировчикът избягва стълби.\n\n"
                 "### По-малки карти\n\nКартите заемат половината място.\n")
    assert [name for name, _, _ in features(bulgarian)] == ["Маршрути за коне", "По-малки карти"]


def test_resolved_tickets_and_a_detailed_changelog_close_the_post():
    text = ("Kittiwake 7.3\n=============\n\nKittiwake 7.3 is out, with two new profiles.\n\n"
            "Horse riding profile (beta)\n---------------------------\n\nRoutes for horses avoid steps.\n\n"
            "Wheelchair profile\n------------------\n\nRoutes avoid high kerbs.\n\n"
            "Resolved tickets\n----------------\n\n* 512 - the planner stops on long routes\n\n"
            "Detailed changelog since 7.2\n----------------------------\n\n"
            "Rui Marsh (3)\n~~~~~~~~~~~~~\n\n* planner: avoid steps for horses\n")
    assert [name for name, _, _ in features(text)] == ["Horse riding profile", "Wheelchair profile"]


def test_a_long_run_of_bare_feature_lines_is_read_in_linear_time():
    def make(size: int) -> str:
        lines = "".join(f"Bare feature line number {n}\n\n" for n in range(300 * size))
        return ("Kittiwake 9.0 Latest\n@rmarsh rmarsh released this 2 Sep 10:15\n\n"
                "Kittiwake 9.0 has been released! This release needs Android 12 or later.\n\n"
                "New features\n\nCargo bike profile\n\nRoutes for cargo bikes avoid steps and narrow gates.\n\n"
                f"{lines}Breaking changes\n\n  The GPX 1.0 exporter is gone and files from it need converting first\n")
    assert_linear(summarize, make)


def test_a_header_on_the_last_line_with_nothing_under_it_is_no_thread():
    # A poster's header as the post's last line once made the rank check read past the end.
    assert forum_thread("00\n0 AAA") is None
