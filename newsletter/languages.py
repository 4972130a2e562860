"""Language tags as feeds and HTML accept them, and the names readers know them by."""

from __future__ import annotations

from newsletter import lazy_re

# RFC 4646-shaped tags as Atom's grammar accepts them ("de", "pt-BR", "zh-Hant").
_TAG = lazy_re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")

# Each language by its own name: someone looking for the German form of a post looks for
# "Deutsch", not "German".
ENDONYMS = {
    "ar": "العربية", "bg": "Български", "ca": "Català", "cs": "Čeština", "da": "Dansk",
    "de": "Deutsch", "el": "Ελληνικά", "en": "English", "eo": "Esperanto", "es": "Español",
    "et": "Eesti", "eu": "Euskara", "fa": "فارسی", "fi": "Suomi", "fr": "Français",
    "ga": "Gaeilge", "gl": "Galego", "he": "עברית", "hi": "हिन्दी", "hr": "Hrvatski",
    "hu": "Magyar", "id": "Bahasa Indonesia", "is": "Íslenska", "it": "Italiano",
    "ja": "日本語", "ko": "한국어", "lt": "Lietuvių", "lv": "Latviešu", "ms": "Bahasa Melayu",
    "nb": "Norsk bokmål", "nl": "Nederlands", "nn": "Norsk nynorsk", "no": "Norsk",
    "pl": "Polski", "pt": "Português", "pt-br": "Português (Brasil)", "ro": "Română",
    "ru": "Русский", "sk": "Slovenčina", "sl": "Slovenščina", "sr": "Српски", "sv": "Svenska",
    "th": "ไทย", "tr": "Türkçe", "uk": "Українська", "vi": "Tiếng Việt",
    "zh": "中文", "zh-hans": "简体中文", "zh-hant": "繁體中文",
}


def language_tag(value: str | None) -> str | None:
    """`value` as a well-formed language tag ("en_US" -> "en-US"), or None if it is not one."""
    if not value:
        return None
    tag = value.strip().replace("_", "-")
    return tag if _TAG.fullmatch(tag) and tag.lower() != "und" else None


def language_name(tag: str) -> str:
    """The language's own name, from the most specific known prefix of `tag`; else the tag."""
    parts = tag.lower().split("-")
    for length in range(len(parts), 0, -1):
        name = ENDONYMS.get("-".join(parts[:length]))
        if name:
            return name
    return tag
