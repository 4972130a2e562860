"""AsciiDoc inline text -> plain text: attribute references substituted, markup stripped,
link targets kept.

One left-to-right pass of one pattern, so text a rule has produced is never read again.
Every span a pattern may scan is bounded, so no line costs more than its length times a
constant, whatever characters it holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from newsletter import lazy_re
from newsletter.text.from_html import bare_urls, squash_space

# Longest run of text one inline span (bold, a link's text) may cover: far above what an
# author marks up, low enough that a paragraph of unclosed markers stays fast.
_SPAN = 300
_TARGET = 2000
# The text in a macro's brackets, where "\]" is a bracket of the text. An opening bracket
# ends it too, so a run of unclosed macros is read in one pass.
_BRACKETED = rf"(?:[^\[\]\\]|\\.){{0,{_SPAN}}}"


def _constrained(marker: str) -> str:
    """A span marked by one character that stands at word edges: "*bold*" but not
    "2*3*4". The text must not start or end with a space. It may not hold its own marker:
    a scan from one marker then stops at the next, so a line full of them costs its length."""
    m = re.escape(marker)
    return rf"(?<![\w;:}}{m}]){m}(?P<TEXT>[^{m}\s](?:[^{m}]{{0,{_SPAN}}}[^{m}\s])?){m}(?![\w{m}])"


def _unconstrained(marker: str) -> str:
    """A span marked by a doubled character, anywhere: "**bold**in a word"."""
    m = re.escape(marker)
    return rf"{m}{m}(?P<TEXT>(?:[^{m}]|{m}(?!{m})){{1,{_SPAN}}}?){m}{m}"


# (kind, pattern): alternatives are tried in order at each position, so escapes and
# passthroughs (whose text is taken as written) come before the markup they protect. A
# pattern's groups are named after its kind: TEXT becomes "<kind>_text".
_ALTERNATIVES = [
    ("escaped", r"\\(?P<TEXT>[*_`#^~+{<\[\\])"),
    ("raw3", rf"\+\+\+(?P<TEXT>.{{0,{_SPAN}}}?)\+\+\+"),
    ("raw2", _unconstrained("+")),
    ("raw1", _constrained("+")),
    ("raw_macro", rf"\bpass:[a-z,]*\[(?P<TEXT>{_BRACKETED})\]"),
    ("mono2", _unconstrained("`")),
    ("mono1", _constrained("`")),
    ("strong2", _unconstrained("*")),
    ("strong1", _constrained("*")),
    ("em2", _unconstrained("_")),
    ("em1", _constrained("_")),
    ("mark2", _unconstrained("#")),
    ("mark1", _constrained("#")),
    ("sup", rf"\^(?P<TEXT>[^\s^]{{1,{_SPAN}}})\^"),
    ("sub", rf"~(?P<TEXT>[^\s~]{{1,{_SPAN}}})~"),
    # A role or id set on the span that follows: "[.big]#text#".
    ("role", r"\[[.#][\w.#-]{0,100}\](?=[*_`#])"),
    ("link", rf"\blink:(?P<TARGET>[^\s\[]{{1,{_TARGET}}})\[(?P<TEXT>{_BRACKETED})\]"),
    ("mailto", rf"\bmailto:(?P<TARGET>[^\s\[]{{1,{_TARGET}}})\[(?P<TEXT>{_BRACKETED})\]"),
    ("angle_url", rf"<(?P<TARGET>(?:https?|ftp)://[^\s<>]{{1,{_TARGET}}})>"),
    ("url", (rf"(?<![\w\"'=/])(?P<TARGET>(?:https?|ftp|irc)://[^\s\[\]<>\"]{{1,{_TARGET}}})"
             rf"(?:\[(?P<TEXT>{_BRACKETED})\])?")),
    ("xref", rf"\bxref:(?P<TARGET>[^\s\[]{{1,{_TARGET}}})\[(?P<TEXT>{_BRACKETED})\]"),
    ("ref", rf"<<(?P<TARGET>[^\s,<>]{{1,{_SPAN}}})(?:,[ \t]*(?P<TEXT>[^<>]{{1,{_SPAN}}}))?>>"),
    ("macro", (r"\b(?P<NAME>kbd|btn|menu|footnote|footnoteref|image|icon|anchor|indexterm2?|stem|latexmath|asciimath)"
               rf":(?P<TARGET>[^\s\[]{{0,{_TARGET}}})\[(?P<TEXT>{_BRACKETED})\]")),
    ("hidden_term", rf"\(\(\((?P<TEXT>[^()]{{1,{_SPAN}}})\)\)\)"),
    ("term", rf"\(\((?P<TEXT>[^()]{{1,{_SPAN}}})\)\)"),
    ("anchor", r"\[\[[^\[\]\s]{1,200}\]\]"),
]


def _alternative(kind: str, pattern: str) -> str:
    for group in ("TEXT", "TARGET", "NAME"):
        pattern = pattern.replace(f"(?P<{group}>", f"(?P<{kind}_{group.lower()}>")
    # The outer group closes last, so a match's `lastgroup` names its kind.
    return f"(?P<{kind}>{pattern})"


# The characters a match can start with, tested before any alternative: most of a text
# is letters and spaces that start none, and one test is cheaper than twenty-six.
_STARTS = r"(?=[\\+`*_#^~\[<(abfhiklmpsx])"
_INLINE = lazy_re.compile(
    _STARTS + "(?:" + "|".join(_alternative(kind, pattern) for kind, pattern in _ALTERNATIVES) + ")", re.DOTALL)

# Characters a bare URL does not end with: they close the sentence around it.
_URL_TAIL = ".,;:!?)"
# Macros whose text is not part of the sentence: an image's alt text, a footnote (read at
# the foot of the page), an index entry, an anchor.
_SILENT_MACROS = {"footnote", "footnoteref", "image", "icon", "anchor", "indexterm"}
_FORMATTING = {"mono2", "mono1", "strong2", "strong1", "em2", "em1", "mark2", "mark1", "sup", "sub", "term"}
# Macros whose text is taken as written: keys, formulas.
_VERBATIM_MACROS = {"kbd", "stem", "latexmath", "asciimath"}
# Inline markup inside inline markup deeper than this is left as written.
_MAX_NESTING = 8

# Attributes Asciidoctor defines for characters that are awkward to type.
_BUILT_IN_ATTRIBUTES = {
    "empty": "", "blank": "", "sp": " ", "nbsp": "\u00a0", "zwsp": "\u200b", "wj": "\u2060",
    "apos": "'", "quot": '"', "lsquo": "\u2018", "rsquo": "\u2019", "ldquo": "\u201c", "rdquo": "\u201d",
    "deg": "\u00b0", "plus": "+", "brvbar": "\u00a6", "vbar": "|", "amp": "&", "lt": "<", "gt": ">",
    "startsb": "[", "endsb": "]", "caret": "^", "asterisk": "*", "tilde": "~", "backslash": "\\",
    "backtick": "`", "two-colons": "::", "two-semicolons": ";;", "cpp": "C++", "pp": "++",
}
_REFERENCE = lazy_re.compile(r"\{([\w][\w-]{0,100})\}")


class Attributes:
    """A document's attributes as its entries set them, and the substitution of references
    to them. Asciidoctor leaves a reference to an unknown attribute as written."""

    def __init__(self, budget: int) -> None:
        self.values: dict[str, str] = {}
        # Characters substitution may still add: values may nest references to each other
        # (":b: {a}{a}"), and without a bound a few lines would grow without end.
        self.budget = budget

    def set(self, name: str, value: str) -> None:
        self.values[name.lower()] = self.substitute(value)

    def unset(self, name: str) -> None:
        self.values.pop(name.lower(), None)

    def get(self, name: str) -> str | None:
        return self.values.get(name.lower())

    def substitute(self, text: str) -> str:
        if "{" not in text:
            return text
        return _REFERENCE.sub(self._value, text)

    def _value(self, found: re.Match[str]) -> str:
        name = found.group(1).lower()
        value = self.values.get(name, _BUILT_IN_ATTRIBUTES.get(name))
        if value is None or len(value) > self.budget:
            return found.group()
        self.budget -= len(value)
        return value


@dataclass(frozen=True)
class InlineText:
    text: str
    # Bold text opening the text, as the Markdown path reports "**(Beta) X** - ...".
    lead: str | None = None
    urls: tuple[str, ...] = ()


@dataclass
class _Reading:
    """What one block's inline text gives beside its plain text."""

    base_url: str | None
    urls: list[str] = field(default_factory=list)

    def keep_url(self, target: str) -> None:
        url = urljoin(self.base_url, target) if self.base_url else target
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and parts.netloc:
            self.urls.append(url)


def inline_text(source: str, attributes: Attributes, base_url: str | None) -> InlineText:
    """AsciiDoc inline text (a paragraph's lines, a title) -> plain text, its bold lead and
    the http(s) targets of its links."""
    reading = _Reading(base_url)
    text, lead = _plain(attributes.substitute(source), reading, 0)
    text = squash_space(text)
    urls = dict.fromkeys([*reading.urls, *bare_urls(text)])
    return InlineText(text, squash_space(lead) if lead is not None else None, tuple(urls))


def _plain(source: str, reading: _Reading, depth: int) -> tuple[str, str | None]:
    """(plain text, bold lead) of `source`: the lead is the text of a strong span that
    opens it, with nothing but space before."""
    out: list[str] = []
    lead: str | None = None
    started = False
    position = 0
    for found in _INLINE.finditer(source):
        before = source[position:found.start()]
        started = started or bool(before.strip())
        out.append(before)
        text, inner_lead = _replacement(found, reading, depth)
        if not started:
            kind = found.lastgroup or ""
            if kind.startswith("strong"):
                lead = text
            elif kind.startswith("em") and inner_lead is not None:
                # "_*X*_": emphasis around bold reads as bold, as "***X***" does in Markdown.
                lead = text
        started = started or bool(text.strip())
        out.append(text)
        position = found.end()
    out.append(source[position:])
    return "".join(out), lead


def _replacement(found: re.Match[str], reading: _Reading, depth: int) -> tuple[str, str | None]:
    """The plain text one match stands for, and the lead inside it, if any."""
    kind = found.lastgroup or ""
    text = found.group(f"{kind}_text") if f"{kind}_text" in _INLINE.groupindex else None
    if kind in ("escaped", "raw3", "raw2", "raw1", "raw_macro"):
        return (text or "").replace("\\]", "]"), None
    if kind in _FORMATTING:
        return _nested(text or "", reading, depth)
    if kind in ("link", "mailto", "url", "angle_url"):
        return _link(found, kind, reading, depth), None
    if kind in ("xref", "ref"):
        return _cross_reference(found.group(f"{kind}_target"), text), None
    if kind == "macro":
        return _macro(found, reading, depth), None
    # Hidden index terms, anchors and roles say nothing to a reader.
    return "", None


def _nested(source: str, reading: _Reading, depth: int) -> tuple[str, str | None]:
    if depth >= _MAX_NESTING:
        return source, None
    return _plain(source, reading, depth + 1)


def _link(found: re.Match[str], kind: str, reading: _Reading, depth: int) -> str:
    target = found.group(f"{kind}_target")
    tail = ""
    text = found.group(f"{kind}_text") if kind != "angle_url" else None
    if kind == "url" and text is None:
        # A bare URL gives the sentence back the punctuation that ends it.
        stripped = target.rstrip(_URL_TAIL)
        target, tail = stripped, target[len(stripped):]
    reading.keep_url(f"mailto:{target}" if kind == "mailto" else target)
    label = _nested(_link_label(text or ""), reading, depth)[0].strip()
    return (label or target) + tail


def _link_label(text: str) -> str:
    """A link's text without its attributes: "Docs^" (a new window), "Docs,role=x"."""
    text = text.replace("\\]", "]")
    if "=" in text:
        text = text.split(",", 1)[0]
        text = "" if "=" in text else text.strip("\"'")
    return text.rstrip("^").strip()


def _cross_reference(target: str, text: str | None) -> str:
    """A reference's own text, else its target spelled as words: the section it names is
    not looked up."""
    if text and text.strip():
        return text.replace("\\]", "]").strip()
    name = target.split("#")[-1].removesuffix(".adoc")
    return name.strip("_").replace("_", " ").replace("-", " ")


def _macro(found: re.Match[str], reading: _Reading, depth: int) -> str:
    name = found.group("macro_name")
    text = found.group("macro_text").replace("\\]", "]")
    if name in _SILENT_MACROS:
        # A footnote is out of the sentence, but where it links still counts.
        _nested(text, reading, depth)
        return ""
    if name == "menu":
        parts = [found.group("macro_target"), *text.split(">")]
        return " > ".join(part.strip() for part in parts if part.strip())
    if name in _VERBATIM_MACROS:
        return text
    return _nested(text, reading, depth)[0]
