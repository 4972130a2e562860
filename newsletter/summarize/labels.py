"""Maturity labels on feature headings: "(Beta) X", "X [Stable]", "（测试版）X"."""

from __future__ import annotations

import re
import unicodedata

from newsletter import lazy_re
from newsletter.models import STABILITIES, Stability

# Translations sometimes translate the label too.
_TRANSLATED_LABELS: dict[str, Stability] = {
    "稳定版": "stable", "稳定": "stable", "测试版": "beta", "原型": "prototype", "实验性": "experimental",
    "实验性的": "experimental", "实验": "experimental",
    "预览": "preview", "预览版": "preview", "已弃用": "deprecated", "弃用": "deprecated",
    "安定版": "stable", "ベータ版": "beta", "ベータ": "beta", "プロトタイプ": "prototype", "実験的": "experimental",
    "アルファ": "alpha", "プレビュー": "preview", "非推奨": "deprecated",
    "안정": "stable", "베타": "beta", "프로토타입": "prototype", "실험적": "experimental",
    "알파": "alpha", "프리뷰": "preview", "미리 보기": "preview", "미리보기": "preview", "지원 중단": "deprecated",
    "실험용": "experimental", "지원 중단됨": "deprecated",
    "stabil": "stable", "experimentell": "experimental", "veraltet": "deprecated", "vorschau": "preview",
    # Persian, written right to left; "پیش‌نمایش" joins its parts with a zero-width non-joiner.
    "آزمایشی": "experimental", "بتا": "beta", "منسوخ": "deprecated", "منسوخ‌شده": "deprecated", "پایدار": "stable",
    "پیش‌نمایش": "preview", "پیش نمایش": "preview",
    # Arabic, written right to left: "(تجريبي)" is "(experimental)".
    "تجريبي": "experimental", "مهمل": "deprecated", "بيتا": "beta", "مستقر": "stable", "معاينة": "preview",
    "bêta": "beta", "expérimental": "experimental", "obsolète": "deprecated", "aperçu": "preview",
    "estable": "stable", "prototipo": "prototype", "obsoleto": "deprecated", "estável": "stable",
    "protótipo": "prototype", "stabile": "stable", "sperimentale": "experimental", "deprecato": "deprecated",
    "prévia": "preview", "descontinuado": "deprecated", "anteprima": "preview", "déprécié": "deprecated",
    "экспериментальный": "experimental", "бета": "beta", "стабильный": "stable", "прототип": "prototype",
    "устарело": "deprecated", "устаревший": "deprecated", "vista previa": "preview",
    # The neuter and adverb forms Russian labels take too: "(стабильно)", "(экспериментально)".
    "стабильно": "stable", "экспериментально": "experimental",
    "bèta": "beta", "experimenteel": "experimental", "verouderd": "deprecated", "eksperymentalne": "experimental",
    "eksperymentalny": "experimental", "przestarzałe": "deprecated", "przestarzały": "deprecated",
    "thử nghiệm": "experimental", "không dùng nữa": "deprecated", "ổn định": "stable", "xem trước": "preview",
    # Hungarian, Finnish, Romanian, Hebrew, Greek, Thai.
    "kísérleti": "experimental", "elavult": "deprecated", "béta": "beta", "stabil változat": "stable",
    "kokeellinen": "experimental", "vanhentunut": "deprecated", "vakaa": "stable", "esikatselu": "preview",
    "învechit": "deprecated", "învechită": "deprecated",
    "ניסיוני": "experimental", "בטא": "beta", "מיושן": "deprecated", "יציב": "stable",
    "βήτα": "beta", "σταθερό": "stable",
    # Danish and Norwegian, Catalan (German, Catalan and Romanian share "obsolet").
    "forældet": "deprecated", "utdatert": "deprecated", "utfaset": "deprecated", "udfaset": "deprecated",
    "obsolet": "deprecated", "vista prèvia": "preview",
    "ทดลอง": "experimental", "เบต้า": "beta", "เลิกใช้": "deprecated", "เสถียร": "stable",
    # Feminine and regional forms (Spanish, Portuguese, French, Polish), Swedish, Hungarian,
    # Polish and Russian "preview", Bulgarian "stable" and Russian "beta version".
    "obsoleta": "deprecated", "deprecado": "deprecated", "deprecada": "deprecated", "dépréciée": "deprecated",
    "przestarzała": "deprecated", "pré-visualização": "preview", "förhandsversion": "preview",
    "előzetes": "preview", "podgląd": "preview", "предварительная версия": "preview", "стабилен": "stable",
    "бета-версия": "beta",
    # Hindi.
    "प्रायोगिक": "experimental", "बीटा": "beta", "अप्रचलित": "deprecated", "स्थिर": "stable",
    "पूर्वावलोकन": "preview",
    # Bengali.
    "পরীক্ষামূলক": "experimental", "বিটা": "beta", "বেটা": "beta", "অপ্রচলিত": "deprecated", "স্থিতিশীল": "stable",
    # Malay.
    "eksperimen": "experimental", "lapuk": "deprecated", "pratonton": "preview",
}
# Traditional Chinese writes the same labels with its own characters: "實驗性" is "实验性".
_TRADITIONAL = str.maketrans("实验预览弃稳测试废", "實驗預覽棄穩測試廢")
_TRANSLATED_LABELS.update({word.translate(_TRADITIONAL): stability for word, stability in _TRANSLATED_LABELS.items()
                           if word.translate(_TRADITIONAL) != word})
# Many languages build the label from the same stem ("experimentell", "experimentální",
# "експериментальне", "zastaralé"/"zastarané"/"застаріле"): a stem covers a language the words above lack.
# Whole words in a few more languages (Turkish, Indonesian, Swedish, Czech, Ukrainian).
_LABEL_STEMS: tuple[tuple[str, Stability], ...] = (
    (r"e(?:ks|x)p[eé]r[iy]m[eé]nt\w*|[эе]кспериментал\w*|deneysel|πειραματικ\w*", "experimental"),
    (r"deprecat\w*|veralte\w*|zastar(?:al|an)\w*|застар\w*|устар\w*|остар\w*|föråldrad\w*|usang|kullanımdan kaldırıl\w*"
     r"|παρωχημέν\w*", "deprecated"),
    (r"pratinjau|önizleme|förhandsvisning|náhled|попередній перегляд", "preview"),
    (r"stabiln[íiaé]|kararlı|стабільн\w*", "stable"),
)
# Spelled-out forms of the same labels.
_LABEL_FORMS: dict[str, Stability] = {"ga": "stable", "generally available": "stable", "public preview": "preview",
                                      "experiment": "experimental", "beta-version": "beta", "betaversion": "beta"}
# Every label the pattern below finds, to the stability it means.
_STABILITY_OF: dict[str, Stability] = {**{s: s for s in STABILITIES}, **_TRANSLATED_LABELS, **_LABEL_FORMS}
# A label may name what it qualifies: "(Preview support)", "(Beta release)", or how early
# or open it is: "(early preview)", "(developer preview)", "(open beta)", "(개발자 프리뷰)";
# CJK writes the qualifier unspaced: "（实验特性）".
_QUALIFIER = r"(?:\s+(?:support|feature|release|version|api)|特性|功能|機能|기능)?"
_PRE_QUALIFIER = (r"(?:(?:early|developer|tech(?:nical)?|technology|open|public)\s+"
                  r"|(?:개발자|开发者|開発者|공개|早期|公开|公開)\s*)?")
_LABEL_WORDS = (_PRE_QUALIFIER + "(?P<label>" + "|".join([*_LABEL_FORMS, *STABILITIES, *_TRANSLATED_LABELS,
                                                  *(stem for stem, _ in _LABEL_STEMS)]) + ")" + _QUALIFIER)
# A Latin bracket glued to what stands before it is code's: "@[Experimental]" is an
# annotation, "opts[beta]" an index. Full-width brackets follow their word with no space, and
# so may a Latin one holding a label in CJK script ("mono_sum(非推奨)"): no code's. Each
# opening closes its own way, and the words are written once: three copies made this the
# slowest of the summarizer's patterns to compile, in every process that summarizes. (So
# is a class of 40,000 characters compiled to ignore case: CJK script has none.)
_LABEL = lazy_re.compile(r"(?:(?<![A-Za-z0-9_@#$.:])\\?[(\[]\s*|(?P<wide>[（【])\s*"
                         r"|(?P<glued>[(\[])(?=(?-i:[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])))"
                         + _LABEL_WORDS + r"(?(wide)\s*[）】]|(?(glued)[)\]]|\s*\\?[)\]]))", re.IGNORECASE)
# The brackets _LABEL's openings hold, one in each: a text with none holds no label.
_OPENING_BRACKETS = "([（【"
EDGE_SEPARATORS = " \t-–—:：|·"
# Separators left at a heading's start once its label goes: "(Beta) – X". A dash right
# before a word is the word's own: "--dry-run" names a flag.
_LEADING_SEPARATORS = lazy_re.compile(r"^(?:[-–—:：|·]+(?=\s)|\s)+")
_STOPS = (".", "。", "!", "?", ";", ",")


# A keycap emoji ("1️⃣") starts with a digit; other emoji are symbols, joiners and marks.
_KEYCAP = lazy_re.compile("[0-9#*]\ufe0f?\u20e3")
_DECORATION_CATEGORIES = {"So", "Sk", "Cf", "Mn", "Me"}
# Symbols too, but a footer's, not a heading's decoration: "© 2026 Lumen".
_RIGHTS_SIGNS = "©®℗™"


# Markdown's emoji shortcodes (":rocket:") are the markup of an emoji.
_SHORTCODES = lazy_re.compile(r"(?::[a-z0-9_+-]{1,40}:\s*)+")


# A numbered part's number may stand before the emoji: "2. 🚀 Faster builds".
_PART_NUMBER = lazy_re.compile(r"\d{1,2}[.)]\s+")


def strip_decoration(text: str) -> tuple[str, bool]:
    """"🚀 Faster builds" or ":rocket: Faster builds" -> ("Faster builds", True): the emoji
    some sites put before every heading is decoration, not part of its name. Its number
    stays ("2. 🚀 Faster builds" -> "2. Faster builds")."""
    stripped = text.lstrip()
    numbered = _PART_NUMBER.match(stripped)
    if numbered:
        rest, decorated = strip_decoration(stripped[numbered.end():])
        return (stripped[:numbered.end()] + rest, True) if decorated else (text.strip(), False)
    shortcodes = _SHORTCODES.match(stripped)
    # An emoji stands before a heading's name, which opens as a name does; a role's name
    # shown as written opens a phrase (":kbd: role styling").
    if (shortcodes and shortcodes.end() < len(stripped) and shortcodes.group().endswith((" ", "\t"))
            and not stripped[shortcodes.end()].islower()):
        return strip_decoration(stripped[shortcodes.end():])[0], True
    start = 0
    while start < len(stripped):
        keycap = _KEYCAP.match(stripped, start)
        if keycap:
            start = keycap.end()
        elif unicodedata.category(stripped[start]) in _DECORATION_CATEGORIES and stripped[start] not in _RIGHTS_SIGNS:
            start += 1
        else:
            break
    decorated = start > 0 and (start == len(stripped) or stripped[start].isspace())
    return (stripped[start:].lstrip(), True) if decorated else (text.strip(), False)


_ESCAPE = lazy_re.compile(r"\\(?=[^\w\s]|$)")


def split_label(text: str) -> tuple[str, Stability | None]:
    """"(Beta) X" / "X [STABLE]" / "（Beta）X" / "\\[Beta] X" -> ("X", "beta"), a leading emoji
    dropped. A label is bracketed: "Beta: X" or "X — now GA" say it in prose."""
    text = strip_decoration(text)[0]
    # Every label opens with a bracket. Most headings have none: a build's feature histories
    # then never compile the label pattern (~7 ms), nor search with it.
    found = _LABEL.search(text) if any(bracket in text for bracket in _OPENING_BRACKETS) else None
    if not found:
        return text.strip(), None
    after = text[found.end():]
    # "X (experimental)." -> "X.": the sentence's own stop stays on it.
    rest = f"{text[:found.start()].rstrip()}{after}" if after[:1] in _STOPS else f"{text[:found.start()]} {after}"
    rest = _LEADING_SEPARATORS.sub("", " ".join(rest.split())).rstrip(EDGE_SEPARATORS)
    # Markdown's escapes go ("\[Beta]"); a backslash in a name stays ("Forms\Fields").
    rest = _ESCAPE.sub("", rest).strip()
    label = " ".join(found.group("label").lower().split())
    return rest, _STABILITY_OF.get(label) or _stem_stability(label)


def _stem_stability(label: str) -> Stability | None:
    return next((stability for stem, stability in _LABEL_STEMS if re.fullmatch(stem, label)), None)


def badge_label(text: str, badge: str) -> tuple[str, Stability | None]:
    """A heading's badge that is a maturity label ("Faster sync" with a "Beta" badge) ->
    the heading without it, and the label."""
    rest, stability = split_label(f"({badge})")
    if stability is None or rest:
        return text, None
    if text.endswith(badge):
        text = text[:-len(badge)]
    elif text.startswith(badge):
        text = text[len(badge):]
    return text.strip(EDGE_SEPARATORS), stability
