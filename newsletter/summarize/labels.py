"""Maturity labels on feature headings: "(Beta) X", "X [Stable]", "（测试版）X"."""

from __future__ import annotations

import re

from newsletter.models import STABILITIES

# Translations sometimes translate the label too.
_TRANSLATED_LABELS = {
    "稳定版": "stable", "稳定": "stable", "测试版": "beta", "原型": "prototype", "实验性": "experimental",
    "预览": "preview", "预览版": "preview", "已弃用": "deprecated", "弃用": "deprecated",
    "安定版": "stable", "ベータ版": "beta", "ベータ": "beta", "プロトタイプ": "prototype", "実験的": "experimental",
    "アルファ": "alpha", "プレビュー": "preview", "非推奨": "deprecated",
    "안정": "stable", "베타": "beta", "프로토타입": "prototype", "실험적": "experimental",
    "stabil": "stable", "experimentell": "experimental", "veraltet": "deprecated", "vorschau": "preview",
    "bêta": "beta", "expérimental": "experimental", "obsolète": "deprecated", "aperçu": "preview",
    "estable": "stable", "prototipo": "prototype", "obsoleto": "deprecated", "estável": "stable",
    "protótipo": "prototype", "stabile": "stable", "sperimentale": "experimental",
    "экспериментальный": "experimental", "бета": "beta", "стабильный": "stable", "прототип": "prototype",
}
_LABEL = re.compile(
    r"\\?[(\[（【]\s*(" + "|".join([*STABILITIES, *_TRANSLATED_LABELS]) + r")\s*\\?[)\]）】]", re.I)
EDGE_SEPARATORS = " \t-–—:：|·"


def split_label(text: str) -> tuple[str, str | None]:
    """"(Beta) X" / "X [STABLE]" / "（Beta）X" / "\\[Beta] X" -> ("X", "beta")."""
    found = _LABEL.search(text)
    if not found:
        return text.strip(), None
    rest = f"{text[:found.start()]} {text[found.end():]}"
    rest = " ".join(rest.split()).strip(EDGE_SEPARATORS).replace("\\", "")
    label = found.group(1).lower()
    return rest, _TRANSLATED_LABELS.get(label, label)
