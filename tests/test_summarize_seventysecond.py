"""Shapes met in the seventy-second held-aside set, on invented posts (pochard posts): parts
that close a post or stand beside its news, in the words real posts give them (a sign-off,
the numbers, where to get it and its manual, the bugs it ships with, contributors in
Turkish); a move to something other than a release, which is news; a changelog's
categories in a row at the top; a component's part stating its own change; a dump that
opens with the site's menu; a release page's dump that shows each feature by its code
(under version captions) before telling it, with link badges beside the names."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features

from newsletter.summarize import summarize

_FEATURES = """\
# Pochard 4.2 released

Pochard 4.2 is out today.

## Faster indexing

Indexes are built in parallel now.

## Live reload (Preview)

Edits show up without a restart.

"""


@pytest.mark.parametrize("closing", [
    "That's it", "That's all for now!", "Download and documentation", "Downloads & docs",
    "Statistics", "統計", "Statistiques", "This release contains bugs", "The release has known issues",
    "Known bugs", "Katkıda bulunanlar",
])
def test_a_closing_or_side_part_in_the_words_posts_use_is_no_feature(closing):
    text = f"{_FEATURES}## {closing}\n\nA line about it, and a link or two.\n"
    assert features(text) == [("Faster indexing", None, None), ("Live reload", "preview", None)]


def test_a_migration_to_something_other_than_a_release_is_news():
    text = (f"{_FEATURES}## Migration to the new query planner begins\n\n"
            "Queries are planned by the new planner where it can.\n\n"
            "## Migrating to Pochard 4.2\n\nRun the upgrade command first.\n")
    assert features(text) == [("Faster indexing", None, None), ("Live reload", "preview", None),
                              ("Migration to the new query planner begins", None, None)]


_CATEGORIES_FIRST = """\
########################
 Pochard Release 5.1
########################

This release is about the new storage engine.

***********
 Bug fixes
***********

-  Windows: paths with spaces were quoted twice.
-  Exports could miss their last row.

****************
 Plugin support
****************

-  Added support for the ``tern-auth`` plugin 2.0.
-  Added support for the ``skua`` exporter's data files.

**************
 New features
**************

Storage engine (Experimental)
=============================

Tables can be stored in the new engine with ``--engine=v2``.

Report pages
============

Reports render as HTML pages now.
"""


def test_a_changelog_category_after_another_is_no_summary_part():
    # A part over only a list, before a part grouping features, sums the post up, unless
    # a part like it stands right before it: then both are categories of changes.
    summary = summarize(_CATEGORIES_FIRST)
    assert summary.summary_bullets == ()
    # (A category over a plain list may be reported or not: an editor's call.)
    assert [(f.heading, f.stability, f.section) for f in summary.features][-2:] == [
        ("Storage engine", "experimental", "New features"), ("Report pages", None, "New features")]


@pytest.mark.parametrize("statement", [
    "PQJ 2 では起動が速くなりました。", "PQJ 2 starts faster and uses less memory.",
])
def test_a_part_whose_text_opens_stating_its_own_change_is_a_feature_and_a_section(statement):
    text = ("# Pochard 6.0\n\n## 新しいパーサー\n\nパーサーを書き直しました。\n\n"
            f"## PQJ\n\n{statement}\n\n### キャッシュの共有\n\nキャッシュを共有します。\n\n"
            "### 遅延コンパイル\n\n必要な時にだけコンパイルします。\n\n"
            "## 標準ライブラリ\n\n以下の変更があります:\n\n### Set#join\n\n追加しました。\n\n"
            "### Dir.tmp\n\n追加しました。\n\n## 型チェック\n\n速くなりました。\n")
    # A component's part whose text introduces what follows only groups its features.
    assert features(text) == [
        ("新しいパーサー", None, None), ("PQJ", None, None), ("キャッシュの共有", None, "PQJ"),
        ("遅延コンパイル", None, "PQJ"), ("Set#join", None, "標準ライブラリ"), ("Dir.tmp", None, "標準ライブラリ"),
        ("型チェック", None, None)]


_MENU_FIRST_DUMP = """\
  • [1]pochard
  • [2]Downloads
  • [3]Docs
  • [4]Get Involved
  • [5]Pochard 7

Idioma: [6][Español          ]
¡Pochard 7 ya está aquí!

Pochard 7 es una versión mayor. Trae un planificador nuevo y consultas más rápidas
para todos los que lo usan a diario.

Planificador nuevo

El planificador elige el orden de las uniones con estadísticas.

Consultas paralelas

Las consultas grandes se reparten entre varios núcleos.
"""


def test_a_dump_opening_with_a_menu_of_names_has_no_summary():
    # Above everything, the title too (here glued under a language selector), a list of
    # names is the site's menu.
    assert summarize(_MENU_FIRST_DUMP).summary_bullets == ()
    # A dump that opens with its highlights says what changed in them.
    statements = _MENU_FIRST_DUMP.replace("  • [5]Pochard 7", "  • Joins are planned with statistics now.")
    assert len(summarize(statements).summary_bullets) == 5


# A release page as w3m dumps it: each feature's name with its link badges beside it, its
# code flush left (maybe as the old and the new way, each under the version's name), then
# its text.
_SHOWN_FEATURES_DUMP = """\
Pochard 8 is out

Pochard 8 is a major update of the query language. It brings pipelines, typed
records and a faster planner.

Pipelines [3]Spec [4]Manual

Pochard < 8

rows = scan(orders);
paid = filter(rows, (r) => r.paid);

Pochard 8

scan(orders) |> filter((r) => r.paid) {
}

Pipelines pass each step's result to the next one without naming it.

Typed records [5]Spec [6]Manual

record Order {
    id: int;
}

Fields are checked when a record is built, and the editor completes them.

Faster planner [7]Spec

Queries over several tables are planned with statistics now.
"""


def test_a_dumps_features_shown_by_code_then_told_are_features_without_their_badges():
    assert features(_SHOWN_FEATURES_DUMP) == [
        ("Pipelines", None, None), ("Typed records", None, None),
        # One link after the name may be its last word: kept.
        ("Faster planner Spec", None, None)]


def test_a_sigil_variable_and_a_line_opening_a_brace_block_read_as_code():
    from newsletter.text.plain_lines import looks_like_code

    assert looks_like_code("$total = $price * 2;")
    assert looks_like_code("$this->name")
    assert looks_like_code("record Order {")
    assert not looks_like_code("Prices are shown in $ now.")


def test_reading_a_dump_of_many_shown_features_stays_linear():
    part = _SHOWN_FEATURES_DUMP.split("\n\n", 2)[2]
    assert_linear(summarize, lambda k: _SHOWN_FEATURES_DUMP + part * (30 * k))
