"""Which language a post is written in, when nothing declares it, or a site template's
"en" says otherwise: a trained identifier (py3langid) on a bounded sample of its text."""

from __future__ import annotations

import re
import threading

from py3langid.langid import MODEL_FILE, LanguageIdentifier

# A letter in any script: text without one (version bumps, hashes) says nothing of its language.
_LETTER = re.compile(r"[^\W\d_]")
# py3langid also answers in ISO 639-3; these labels belong to a 639-1 macrolanguage. Other
# three-letter labels (zxx: no linguistic content) give way to the next best guess.
_TO_ISO_639_1 = {"yue": "zh", "wuu": "zh", "ary": "ar", "arz": "ar", "uzs": "uz",
                 "gug": "gn", "fuv": "ff", "kik": "ki", "sdh": "ku"}
# Enough text to tell any language; more only costs time.
SAMPLE_CHARS = 1_500
# Below this many letters, plain ASCII text (a title, a few names) is too little to tell
# one Latin-script language from another: it is taken as English. Other scripts tell
# their language in a few characters.
_FEW_LETTERS = 60

_identifier: LanguageIdentifier | None = None
_loading = threading.Lock()


def _model() -> LanguageIdentifier:
    # The model takes half a second to load: once, on first use, by one thread.
    global _identifier
    with _loading:
        if _identifier is None:
            _identifier = LanguageIdentifier.from_model_file(MODEL_FILE)
        return _identifier


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is most likely in; "en" for text with no
    letters, or too few ASCII ones to tell."""
    sample = text[:SAMPLE_CHARS]
    letters = _LETTER.findall(sample)
    if not letters or len(letters) < _FEW_LETTERS and sample.isascii():
        return "en"
    for label, _score in _model().rank(sample):
        code: str = _TO_ISO_639_1.get(label, label)
        if len(code) == 2:
            return code
    return "en"
