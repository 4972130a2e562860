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
