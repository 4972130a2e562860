"""Shapes met in the forty-first and forty-second held-aside sets, on invented posts
(razorbill fixtures): forum topics whose posts' headers set the date under the poster's
rank, or whose posts are Markdown; a byline dated "Published ..."; a copied release page
that indents its whole body; summary labels "What's in" and Catalan "Resum"."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_forum_post_header_with_the_date_under_the_posters_rank():
    text = read("razorbill-4.2-forum.txt")
    summary = summarize(text)
    # The topic's title, not the forum's menu; the first poster, not a reply's.
    assert (summary.title, summary.author) == ("Razorbill 4.2 is out!", "tmarsh")
    # The replies' list is no summary of the release.
    assert summary.summary_bullets == ()
    # A heading line with no text, set right of the group line under it, does not group it.
    assert features(text) == [
        ("Tile streaming rewritten", "experimental", "Engine"),
        ("Palette: per-layer colour tables", None, "Engine"),
        ("Coroutines in event handlers", None, "Scripting"),
        ("Script reload is instant", None, "Scripting"),
        ("Meson 1.4 is now the minimum", None, "Packaging"),
        ("Static builds on macOS", "beta", "Packaging"),
    ]


def test_a_forum_topic_whose_posts_are_markdown():
    text = read("razorbill-4.3-forum.txt")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Razorbill 4.3 released: layers, palettes and a new launcher", "tmarsh")
    assert summary.summary_bullets == ("Layer groups are stable now", "A new launcher replaces the old one")
    # A reply's heading, and a heading quoted mid-line in a reply, are no part of the post.
    assert features(text) == [
        ("Layer groups", "stable", None),
        ("New launcher", None, None),
        ("Palette import", "experimental", None),
    ]


def test_a_byline_whose_date_says_published_under_the_dumps_title():
    text = ("Razorbill  • Docs • Blog • Forum\n\n━━━━━━━━━━━━━━━━━━━━━━━━\nBlog › News\n\n"
            "This month in Razorbill: May 2026\n\nPublished May 31, 2026 · Tamsin Marsh\n\n"
            "Two releases came out this month. Here is the roundup.\n\nRazorbill 4.0\n\n"
            "Tile layers\nMaps may hold any number of tile layers.\n\n"
            "Faster saves\nSaving a large map is twice as fast.\n")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("This month in Razorbill: May 2026", "Tamsin Marsh")


def test_a_copied_release_page_that_indents_its_whole_body():
    text = read("razorbill-4.4-github.txt")
    summary = summarize(text)
    assert summary.title == "4.4"
    # Neither the indented byline with its tag nor the indented opening sentence is a list
    # of highlights; each line at the margin over an indented paragraph is a part.
    assert summary.summary_bullets == ()
    assert features(text) == [("Input", None, None), ("Audio", None, None), ("Fonts", None, None)]


def test_a_block_title_saying_whats_in_the_release_labels_its_list():
    text = ("= Razorbill 5.0 Release Notes\nRazorbill Team\n:toc: left\n\n"
            "Razorbill 5.0 is a large release with many changes across the engine.\n\n"
            ".What's in 5.0\n* A new renderer for tile maps\n* Scripts reload while the game runs\n\n"
            "== Engine\n\n=== New renderer\n\nTiles are drawn in one batch.\n\n"
            "=== Live script reload\n\nScripts reload on save.\n")
    assert summarize(text).summary_bullets == ("A new renderer for tile maps", "Scripts reload while the game runs")


def test_a_catalan_summary_line_over_its_list():
    text = ("# Razorbill 5.1\n\nRazorbill arriba a la versió 5.1 amb força novetats.\n\nResum\n\n"
            "- mapes amb capes agrupades;\n- un llançador nou.\n\n## Novetats\n\n### Capes agrupades\n\n"
            "Les capes es poden agrupar.\n\n### Llançador nou\n\nEl llançador obre projectes recents.\n")
    assert summarize(text).summary_bullets == ("mapes amb capes agrupades;", "un llançador nou.")


def test_closing_parts_for_going_further_exercises_and_support():
    text = ("# Razorbill 5.2\n\n## Capes agrupades\n\nLes capes es poden agrupar.\n\n"
            "## Pour aller plus loin\n\nLa documentation complète est en ligne.\n\n"
            "## 연습 문제\n\n레이어를 두 개 만들어 보세요.\n\n## 참고 자료\n\n공식 문서를 읽어 보세요.\n\n"
            "## Подкрепете ни\n\nСтанете спонсор на проекта.\n")
    assert features(text) == [("Capes agrupades", None, None)]


def test_a_copy_gluing_a_features_name_and_text_to_its_code():
    text = ("Razorbill  • Docs • Blog\n\nThis month in Razorbill: June 2026\n\nPublished June 30, 2026 · Tamsin Marsh\n\n"
            "One release shipped this month, with a lot of work on the editor behind it. Here is the roundup.\n\n"
            "Razorbill 4.5\n\nTile layers\nMaps may now hold any number of tile layers, each with its own palette.\n\n"
            "Layer scripting\nLayers can be created from scripts.\nfrom razorbill import Layer\n"
            "# a layer per biome\nmap.add(Layer(\"forest\"))\n\n"
            "Faster saves\nSaving a large map is now twice as fast as it was in the last release.\n")
    assert features(text) == [("Tile layers", None, "Razorbill 4.5"), ("Layer scripting", None, "Razorbill 4.5"),
                              ("Faster saves", None, "Razorbill 4.5")]


def test_a_topic_of_many_posts_headed_in_columns_is_read_in_linear_time():
    opening = read("razorbill-4.2-forum.txt").split("\n" + "-" * 78 + "\nWilma Crane")[0]
    reply = ("-" * 78 + "\n" + "Wilma Crane".ljust(58) + "Member #3,990\n" + " " * 58 + "June 3, 2026\n"
             + "-" * 78 + "\nWorks here too. Tile streaming is quick on my old laptop.\n\n")
    assert_linear(summarize, lambda k: opening + reply * (150 * k))
