"""Which language a post is written in, when nothing declares it, or a site template's
"en" says otherwise: a trained identifier (py3langid) on a bounded sample of its text."""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
from pathlib import Path

import numpy as np
import platformdirs
import py3langid
from py3langid import modelio
from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

from newsletter import lazy_re
from newsletter.text.outline import Document, block_text, list_text

log = logging.getLogger(__name__)

# A letter in any script: text without one (version bumps, hashes) says nothing of its language.
_LETTER = lazy_re.compile(r"[^\W\d_]")
# py3langid also answers in ISO 639-3; these labels belong to a 639-1 macrolanguage. Other
# three-letter labels (zxx: no linguistic content) give way to the next best guess.
_TO_ISO_639_1 = {"yue": "zh", "wuu": "zh", "ary": "ar", "arz": "ar", "uzs": "uz",
                 "gug": "gn", "fuv": "ff", "kik": "ki", "sdh": "ku"}
# Enough text to tell any language; more only costs time.
SAMPLE_CHARS = 800
# Below this many letters, plain ASCII text (a title, a few names) is too little to tell
# one Latin-script language from another: it is taken as English. Other scripts tell
# their language in a few characters.
_FEW_LETTERS = 60

_identifier: LanguageIdentifier | None = None
_loading = threading.Lock()


def load_model() -> LanguageIdentifier:
    """The identifier, loaded once, on first use, by one thread."""
    global _identifier
    with _loading:
        if _identifier is None:
            _identifier = _from_cache(Path(platformdirs.user_cache_dir("newsletter")) / _CACHED_MODEL)
        return _identifier


# The model ships LZMA-compressed: unpacking it costs 0.6 s of CPU in every process that
# summarizes a post, more than a build of one new post should take. Unpacked once into the
# user's cache, an array a file, it is mapped into memory rather than read: a post's sample
# touches a few thousand of the state machine's 10 million entries and of the table's rows,
# so only those pages are ever read. Named by version: an upgrade unpacks its own. (The
# package's own attribute: asking importlib.metadata cost the worker 30 ms of imports.)
_CACHED_MODEL = f"py3langid-{py3langid.__version__}-model"
_ARRAYS = ("ptc", "pc", "classes", "output", "nextmove", "row")


def _from_cache(folder: Path) -> LanguageIdentifier:
    """The model from its unpacked copy in `folder`, made there first if missing or
    unreadable; from the package's own file when the cache cannot be written."""
    try:
        arrays = {name: np.load(folder / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in _ARRAYS}
        # The identifier walks its state machine in Python, an entry at a time: a memoryview
        # (`.data`) of the mapped file indexes as fast as a list there, a NumPy array ten times slower.
        return LanguageIdentifier(
            arrays["ptc"], np.array(arrays["pc"]), arrays["classes"].tolist(), arrays["nextmove"].data,
            arrays["output"].tolist(), tk_row=arrays["row"].data)
    except Exception as exc:  # whatever is wrong with the copy, the package's own model is there
        log.debug("language model cache %s: %s; unpacking the model", folder, exc)
    ptc, pc, classes, nextmove, row, output = modelio.load_model(MODEL_DIR / MODEL_FILE)
    try:
        _save(folder, ptc=np.asarray(ptc), pc=np.asarray(pc), classes=np.array(classes),
              output=np.array(output, dtype=np.int32), nextmove=np.frombuffer(nextmove, dtype=f"u{nextmove.itemsize}"),
              row=np.frombuffer(row, dtype=f"u{row.itemsize}"))
    except OSError as exc:
        log.debug("language model cache %s not written: %s", folder, exc)
    return LanguageIdentifier(np.asarray(ptc), np.asarray(pc), classes, nextmove, output, tk_row=row)


def _save(folder: Path, **arrays: np.ndarray) -> None:
    """Each file written whole or not at all: two processes may fill the cache at once."""
    folder.mkdir(parents=True, exist_ok=True)
    for earlier in folder.parent.glob("py3langid-*-model.npz"):  # the single-file copy of earlier releases
        earlier.unlink(missing_ok=True)
    for name, values in arrays.items():
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.")
        try:
            with os.fdopen(handle, "wb") as out:
                np.save(out, values, allow_pickle=False)
            os.replace(temporary, folder / f"{name}.npy")
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def detect_language(text: str) -> str:
    """The ISO 639-1 code of the language `text` is most likely in; "en" for text with no
    letters, or too few ASCII ones to tell."""
    sample = text[:SAMPLE_CHARS]
    letters = _LETTER.findall(sample)
    if not letters or len(letters) < _FEW_LETTERS and sample.isascii():
        return "en"
    for label, _score in load_model().rank(sample):
        code: str = _TO_ISO_639_1.get(label, label)
        if len(code) == 2:
            return code
    return "en"


# Characters of text it takes to overrule a declared language.
_ENOUGH_TO_OVERRULE = 200
_LATIN_LETTER = lazy_re.compile(r"[A-Za-z\u00c0-\u024f]")


def _mostly_non_latin(text: str) -> bool:
    return len(_LATIN_LETTER.findall(text)) * 2 < len(_LETTER.findall(text))


def language_of(document: Document) -> str:
    """The post's language: what it declares, unless its text says otherwise."""
    declared = document.meta.get("language", "")
    primary = re.split(r"[-_]", declared.strip().lower())[0] if declared else ""
    sample = " ".join(block_text(b) or list_text(b) for b in document.blocks[:400])[:SAMPLE_CHARS]
    detected = detect_language(sample)
    # Site templates often say "en" around a translated article: its script says otherwise
    # at once, a language of Latin script only with enough text (a short post of names and
    # code may look like anything).
    if primary == "en" and detected != "en" and (len(sample) >= _ENOUGH_TO_OVERRULE or _mostly_non_latin(sample)):
        return detected
    return primary if re.fullmatch(r"[a-z]{2,3}", primary) else detected
