"""Shapes met in the twenty-first and twenty-second held-aside sets, on invented posts: a
changelog whose labeled items nest under their package, a release page's dump that joins its
breadcrumb, name and byline, a w3m dump ruled by box-drawing lines, a mail's inline-styled
call-out box, a call-out box titled for the summary, and closing parts in more languages."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import explain, summarize
from newsletter.text.plain_lines import looks_like_code


def _roles(text: str) -> dict[str, tuple[str, str]]:
    """Each heading's role and reason, the first of two headings named alike."""
    roles: dict[str, tuple[str, str]] = {}
    for role in explain(text):
        roles.setdefault(role.text, (role.role, role.reason))
    return roles


def test_a_changelogs_labeled_items_nested_under_their_package_are_features():
    text = read("grebe-changelog.md")
    # Each item opens with its pull request's number before its bold name; the label stands
    # inside the bold or right after it. An unlabeled bold item is no feature. (The older
    # version's lone "Bug Fix" part after them is left as it was.)
    assert features(text)[:3] == [
        ("Shared worker cache", "beta", "New Feature"),
        ("Lazy plugin loading", "stable", "New Feature"),
        ("The --legacy-paths flag", "deprecated", "Breaking Change"),
    ]
    roles = _roles(text)
    # Under a release's version heading, "Breaking Change" groups changes: no aside.
    assert roles["Breaking Change"][0] == "section"
    assert roles["Bug Fix"] == ("skipped", "a plain list after parts that group features: a category")
    assert roles["Committers: 2"][0] == "skipped"


def test_a_versions_one_sentence_list_over_its_sub_parts_is_the_highlights():
    # The sentence names no summary ("In brief:"): the list going on from it as one
    # sentence, over the version's sub-parts, says what changed.
    assert summarize(read("grebe-changelog.md")).summary_bullets == (
        "Grebe 4 needs Python 3.12;", "the cache is shared between workers, and", "plugins load lazily.")


def test_a_release_page_dump_joining_breadcrumb_name_and_byline():
    summary = summarize(read("grebe-4.0-release-page.txt"))
    assert (summary.title, summary.author) == ("v4.0.0", "mira")
    # The commits-since line under the byline is the byline's; the highlights follow the
    # body's heading naming the release.
    assert summary.summary_bullets == ("Workers share one cache", "Plugins load on first use",
                                       "Python 3.11 is no longer supported")
    assert features(read("grebe-4.0-release-page.txt")) == [
        ("Shared worker cache", "beta", "Features"),
        # Under code, over a sentence opening with a keyword ("import hooks ... are resolved.").
        ("Lazy plugin loading", None, "Features"),
        ("Report colour themes", None, "Features"),
        # Right under the group's line and over a labeled feature: the group's first feature.
        ("Python 3.12 required", None, "Breaking changes"),
        # A line longer than a heading's glued over its text, marked by its bracketed label.
        ("Old report path flags in grebe/cli/paths.py", "deprecated", "Breaking changes"),
    ]


@pytest.mark.parametrize(("line", "code"), [
    ("import hooks and entry points are resolved on first use.", False),
    ("#inline hints", False),
    ("import os", True),
    ("import { run } from './run.js';", True),
    ("# a comment", True),
    ("#include <stdio.h>", True),
    ("#[derive(Debug)]", True),
])
def test_a_keyword_led_sentence_and_a_hashed_name_are_no_code(line, code):
    assert looks_like_code(line) is code


def test_a_w3m_dump_ruled_by_box_drawing_lines():
    text = read("noddy-2.0-w3m.txt")
    summary = summarize(text)
    # The rule parts the breadcrumb from what stands above; a date beside a login is a byline.
    assert (summary.title, summary.author) == ("Noddy 2.0 released", "ternWright")
    # A sentence under "Summary" stands over the list that ends the part.
    assert summary.summary_bullets == ("pattern guards in match arms", "#inline hints on any procedure",
                                       "30% faster string builder")
    assert features(text) == [
        ("#inline hints", None, "Language"),
        ("Pattern guards", "beta", "Language"),
        ("Faster string builder", None, "Library"),
    ]


@pytest.mark.parametrize("login", ["Releases", "Engineering"])
def test_a_capitalized_word_beside_a_date_is_no_login(login):
    text = f"Noddy 2.0 released\n\n2026-03-14 · {login}\n\nNoddy 2.0 is out with pattern guards and more.\n"
    assert summarize(text).author is None


def test_a_mails_box_with_a_bar_at_its_left_is_an_aside_and_closing_parts_in_danish():
    text = read("petrel-3.0-da-newsletter.html")
    assert features(text) == [
        ("Delt byggecache", "beta", "Nye funktioner"),
        ("Hurtigere watch-tilstand", None, "Nye funktioner"),
        ("petrel.json", "deprecated", "Fjernet"),
    ]
    roles = _roles(text)
    assert roles["Sådan opgraderer du"][1].startswith("closing part")
    assert roles["Min konklusion"][1].startswith("closing part")


@pytest.mark.parametrize("heading", ["Så uppgraderar du", "Slik installerer du", "Min slutsats", "Vår konklusjon",
                                     "移行ガイド", "마이그레이션 가이드"])
def test_closing_parts_in_more_languages(heading):
    text = (f"# Petrel 3.1\n\n## Delt cache [beta]\n\nCachen deles.\n\n## Hurtigere start\n\nStarten er hurtig.\n\n"
            f"## {heading}\n\nKør kommandoen.\n")
    assert [f.heading for f in summarize(text).features] == ["Delt cache", "Hurtigere start"]


def test_a_last_part_naming_a_version_states_a_requirement():
    text = ("# Petrel 3.1\n\n## Core\n\n### Shared cache (beta)\n\nShared.\n\n### Fast start\n\nFast.\n\n"
            "## Plugins\n\n### Themes\n\nThemes.\n\n### Hooks\n\nHooks.\n\n"
            "## Node.js 22 required\n\nPetrel no longer runs on Node.js 20.\n\n"
            "## Upgrading\n\n```\nnpm install petrel@3.1\n```\n\n## Thanks\n\nThanks to all.\n")
    assert ("Node.js 22 required", None, None) in features(text)


def test_a_call_out_box_titled_for_the_summary_holds_the_highlights():
    text = ('---\ntitle: "Petrel 3.2"\n---\n\n<Callout type="info" title="In this release">\n'
            "The short list:\n\n- the cache is shared;\n- builds start faster.\n</Callout>\n\n"
            "## Shared cache\n\nShared.\n\n## Fast start\n\nFast.\n")
    assert summarize(text).summary_bullets == ("the cache is shared;", "builds start faster.")


def test_a_code_names_parts_are_words_its_text_may_share():
    text = ("Petrel 3.2 released\n\n   Petrel 3.2 is out with shared caches and more.\n\nTools\n\n"
            "petrel_lint [beta]\n       A linter for build files.\n\n"
            "pkg_tidy bundled\n       The tidy tool now ships in-tree.\n\n"
            "Upgrading\n       Run the installer.\n")
    # "tidy", a part of "pkg_tidy", is the one word the heading shares with its text.
    assert ("pkg_tidy bundled", None, "Tools") in features(text)


def test_a_changelog_of_nested_items_reads_in_linear_time():
    def make(k: int) -> str:
        items = "".join(f"* `pkg-{i}`\n  * [#{i}](https://example.org/pull/{i}) **Change {i} (beta)** (x)\n"
                        for i in range(40 * k))
        return f"# Changelog\n\n## v{k}.0.0\n\n#### New Feature\n\n{items}"

    assert_linear(summarize, make)
