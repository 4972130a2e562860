"""Shapes met in the seventieth held-aside set, on invented posts (quillfen fixtures):
closing parts named in German, Spanish, Portuguese and Korean ("Unser Fazit", "Cómo migrar",
"Atualizando", "다음 계획") and a move to a release with a bare major number ("Update auf
Quillfen 19"); a scrape's line naming its text by a root of four letters ("Linter",
"lint"); who uses the project; a scrape's line naming the maturity of the labeled features
under it; a scrape's component line over the group of its changes."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize


@pytest.mark.parametrize("closing", [
    "Update auf Quillfen 19", "Unser Fazit", "Mein Fazit", "Cómo migrar", "Como migrar", "Atualizando",
    "Actualizando", "다음 계획", "향후 계획",
])
def test_closing_parts_in_more_languages_are_no_features(closing):
    text = ("# Quillfen 19\n\nQuillfen 19 is out.\n\n## Neue Funktionen\n\n"
            "### Lazy Loading (Experimental)\n\nModules load when first used.\n\n"
            "### Faster builds\n\nBuilds reuse the previous output.\n\n"
            f"## {closing}\n\nRun the updater, then rebuild your project once.\n")
    assert features(text) == [("Lazy Loading", "experimental", "Neue Funktionen"),
                              ("Faster builds", None, "Neue Funktionen")]


def test_a_scrapes_line_naming_its_text_by_a_words_root_is_a_feature():
    # "Linter" is what the text calls "quill-lint": a root of four letters, as an inflected
    # language's word and its derived noun share ("Vylepšený Linter", "lint").
    text = read("quillfen-3.2-lynx.txt")
    assert features(text) == [
        ("Typed routes", None, "Quillfen Router 3.2"),
        ("Named arguments in links", None, "Quillfen Router 3.2"),
        ("Strict templates", "beta", "Quillfen Views 1.4"),
        ("Better Linter", None, "Quillfen Views 1.4"),
    ]


@pytest.mark.parametrize("adoption", ["谁在使用 Quillfen", "Who's using Quillfen?", "Who uses Quillfen"])
def test_who_uses_the_project_is_no_feature(adoption):
    # Who adopted the project is its numbers, as "Project velocity" is: no change of the release.
    text = ("# Quillfen 1.0\n\nQuillfen 1.0 正式发布。\n\n"
            f"## {adoption}\n\nQuillfen 的周下载量已经超过 10 万次。\n\n"
            "## 新特性\n\n### 更快的构建\n\n构建速度提升了 30%。\n\n"
            "### 增量编译 (Experimental)\n\n只编译变更过的模块。\n")
    assert features(text) == [("更快的构建", None, "新特性"), ("增量编译", "experimental", "新特性")]


def test_a_scrapes_line_naming_the_maturity_of_the_features_under_it_groups_them():
    # "Modules expérimentaux" over two labeled modules is their group, as "Experimental
    # features" would be; it carries no label itself.
    text = read("quillfen-4.1-w3m.fr.txt")
    assert features(text) == [
        ("Commande de vérification des routes", None, "Nouveautés"),
        ("Cache des vues partagé", None, "Nouveautés"),
        ("Module Importeur", "experimental", "Modules expérimentaux"),
        ("Module Planificateur", "experimental", "Modules expérimentaux"),
    ]


def test_a_scrapes_component_line_over_its_changes_group_is_no_feature():
    # "Quillfen CLI", a sentence on what it is, then "Changes in Quillfen CLI 6.0": the
    # component is the part the group of its changes belongs to.
    text = read("quillfen-6.0-lynx.txt")
    assert features(text) == [
        ("Removal of deprecated APIs", None, "Changes in Quillfen Core 6.0"),
        ("Strict templates by default", "preview", "Changes in Quillfen Core 6.0"),
        ("Faster builds with the new bundler", "experimental", "Changes in Quillfen CLI 6.0"),
        ("TypeScript for new addons", None, "Changes in Quillfen CLI 6.0"),
    ]


def test_reading_many_component_and_maturity_groups_takes_linear_time():
    def many_groups(k: int) -> str:
        parts = [f"Quillfen Part {n}\n\n   Part {n} does one thing.\n\nChanges in Quillfen Part {n} 6.0\n\n"
                 f"Experimental modules {n}\n\n   Two modules arrive.\n\nImporter {n} (Experimental)\n\n"
                 f"   Imports files.\n\nScheduler {n} [Experimental]\n\n   Runs tasks.\n\n" for n in range(60 * k)]
        return "Quillfen 6.0 Released\n\n   May 4, 2027\n\n" + "".join(parts)
    assert_linear(summarize, many_groups)
