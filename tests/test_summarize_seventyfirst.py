"""Parts met in the seventy-first held-aside set (after its unseen score), on invented posts
(wagtail fixtures): notes for packagers and a hall of fame wherever they stand; building,
installing, getting and updating the release as a closing part, in a few languages; a first
part listing what the release breaks."""

from __future__ import annotations

import pytest
from helpers.shapes import features

from newsletter.summarize import summarize

_FEATURES = ["Faster restore", "Snapshot pruning"]


@pytest.mark.parametrize("part", ["Packaging", "Packaging notes", "Hall of fame"])
def test_notes_for_packagers_and_a_hall_of_fame_are_no_feature_wherever_they_stand(part):
    text = (f"# Wagtail Vault 4.2\n\nWagtail Vault 4.2 is out.\n\n## {part}\n\nThanks to everyone who helped.\n\n"
            "## Faster restore\n\nRestores read the index once.\n\n"
            "## Snapshot pruning (Beta)\n\nOld snapshots are pruned.\n")
    assert [heading for heading, _, _ in features(text)] == _FEATURES


@pytest.mark.parametrize("part", ["Building", "Сборка", "Installazione", "Wagtail 4.2 installieren",
                                  "Obtenir Wagtail 4.2", "Actualizar", "Next",
                                  '3 thoughts on "Wagtail Vault 4.2"'])
def test_building_installing_or_getting_the_release_closes_the_post(part):
    text = ("# Wagtail Vault 4.2\n\nWagtail Vault 4.2 is out.\n\n"
            "## Faster restore\n\nRestores read the index once.\n\n"
            "## Snapshot pruning (Beta)\n\nOld snapshots are pruned.\n\n"
            f"## {part}\n\nRun the installer from the download page.\n")
    assert [heading for heading, _, _ in features(text)] == _FEATURES


def test_a_first_part_listing_what_the_release_breaks_holds_no_highlights():
    text = ("# Wagtail Vault 4.2\n\nWagtail Vault 4.2 is out.\n\n"
            "## Notable backwards-incompatible changes\n\n"
            "- Snapshots of 1.x can no longer be read.\n- The `--legacy` option is gone.\n\n"
            "## Notable improvements\n\n"
            "### Faster restore\n\nRestores read the index once.\n\n"
            "### Snapshot pruning\n\nOld snapshots are pruned.\n")
    assert summarize(text).summary_bullets == ()
    # (The part over its plain list is a changelog's category: a careful editor may take it either way.)
    assert [heading for heading, _, _ in features(text)][-2:] == _FEATURES


# The rules above, kept from reading ordinary posts wrong (a reviewer's counter-examples).

def test_a_part_whose_line_goes_on_after_no_changes_is_news():
    text = ("# Wagtail Vault 4.2\n\nWagtail Vault 4.2 is out.\n\n## Faster restore\n\n"
            "No changes to your settings are needed: restores now read the index once.\n\n"
            "## Snapshot pruning\n\nOld snapshots are pruned.\n")
    assert [heading for heading, _, _ in features(text)] == _FEATURES


def test_a_row_of_names_over_a_statement_of_its_own_is_a_part():
    text = ("# Wagtail Vault 4.2\n\nWagtail Vault 4.2 is out.\n\n## Linux | macOS | Windows installers\n\n"
            "Each platform now gets a signed installer that updates itself.\n\n"
            "## Snapshot pruning\n\nOld snapshots are pruned.\n\n## Privacy | Code of Conduct | Contact\n\n"
            "© 2027 Wagtail authors\n")
    assert [heading for heading, _, _ in features(text)] == ["Linux | macOS | Windows installers", "Snapshot pruning"]


def test_a_dated_line_with_its_year_under_a_pages_first_line_leaves_that_line_the_title():
    text = ('<html><body><div class="post"><p class="post-name">Wagtail Vault 4.2 released</p>'
            "<p>March 4, 2025</p><p>Wagtail Vault 4.2 is out with two changes.</p>"
            "<h2>Faster restore</h2><p>Restores read the index once.</p>"
            "<h2>Snapshot pruning</h2><p>Old snapshots are pruned.</p></div></body></html>")
    assert summarize(text).title == "Wagtail Vault 4.2 released"


def test_a_parts_tag_before_its_name_stays_in_the_feature():
    text = ('<html><body><article><h1>Wagtail Vault 4.2 released</h1><p>Wagtail Vault 4.2 is out.</p>'
            '<h2><span class="tag">CLI</span> New watch flag</h2><p>The watch flag restores on every save.</p>'
            '<h2><span class="tag">API</span> Streaming restores</h2><p>Restores stream chunk by chunk.</p>'
            "</article></body></html>")
    assert [heading for heading, _, _ in features(text)] == ["CLI New watch flag", "API Streaming restores"]


def test_a_root_of_four_letters_shares_a_word_only_inflected():
    from newsletter.summarize.headings import _shares_a_word
    assert _shares_a_word("Linter", "Run wagtail-lint on the vault.")
    assert not _shares_a_word("Sidebar without tabs", "Plugins register commands with the palette.")
