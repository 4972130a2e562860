"""Shapes met in the seventieth held-aside set, on invented posts (quillfen fixtures):
closing parts named in German, Spanish, Portuguese and Korean ("Unser Fazit", "Cómo migrar",
"Atualizando", "다음 계획") and a move to a release with a bare major number ("Update auf
Quillfen 19")."""

from __future__ import annotations

import pytest
from helpers.shapes import features


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
