"""Textile (Redmine's news and wikis, Textpattern) read as the Markdown it stands for: "h2."
lines are headings, "* " and "# " lines list items, "bq." quotes, "bc."/"pre." code.

Read as plain text, a Textile post shows its headings as sentences ("h3. Webhooks") and no
feature is found; told by its block signatures, it is rendered as Markdown is.
"""

from __future__ import annotations

import re

from newsletter import lazy_re

# A block's signature: its kind, attributes ("(class)", "(#id)", "{style}", "[lang]",
# alignment) and a dot, or two for a block that runs past blank lines ("bc..").
_ATTRIBUTES = r"(?:\([^()\n]{0,80}\)|\{[^{}\n]{0,200}\}|\[[^\[\]\n]{0,20}\]|<>|[<>=])*"
_SIGNATURE = lazy_re.compile(r"(h[1-6]|p|bq|bc|pre|notextile|fn\d{1,3})" + _ATTRIBUTES + r"(\.\.?)(?:[ \t]+|$)")
# At a line's start: the pattern runs over the text with a "\n" before it (see text/sniff.py).
_HEADING = lazy_re.compile(r"\nh[1-6]" + _ATTRIBUTES + r"\.[ \t]+\S")
# Textile's own inline links ('"text":https://...') and list markers ("** nested").
_LINK = lazy_re.compile(r'"([^"\n]{1,300})":((?:https?://|/)[^\s<>"]*[^\s<>".,;:!?)])')
_LIST_ITEM = lazy_re.compile(r"([*#]{1,6})[ \t]+(\S.*)")
_BOLD = lazy_re.compile(r"(?<![\w*])\*{1,2}(?=\S)([^*\n]{1,300}?)(?<=\S)\*{1,2}(?![\w*])")
_CODE = lazy_re.compile(r"(?<![\w@])@(?=\S)([^@\n]{1,300}?)(?<=\S)@(?![\w@])")
_IMAGE = lazy_re.compile(r"(?<!\S)![^!\s][^!\n]{0,300}!(?::\S+)?")
# Raw HTML code blocks ("<pre><code>") hold lines a signature must not change.
_PRE_OPEN = lazy_re.compile(r"[ \t]*<pre\b", re.IGNORECASE)
_PRE_CLOSE = lazy_re.compile(r"</pre>", re.IGNORECASE)
_FENCE = "~~~~~~~~"


def looks_like_textile(text: str) -> bool:
    """Two heading signatures at a line's start ("h1. Title", "h2(#news). News") tell
    Textile: no other shape of post writes a heading so."""
    count = 0
    for _ in _HEADING.finditer("\n" + text):
        count += 1
        if count >= 2:
            return True
    return False


def textile_as_markdown(text: str) -> str:
    out: list[str] = []
    # The open block that runs on: "pre" inside raw HTML, "code" for "bc." (to a blank
    # line) or "code.." for "bc.." (to the next signature), "quote" likewise.
    block = ""
    for line in text.split("\n"):
        if block == "pre":
            out.append(line)
            block = "" if _PRE_CLOSE.search(line) else block
            continue
        signature = _SIGNATURE.match(line)
        if block and (block.endswith("..") and signature or not block.endswith("..") and not line.strip()):
            if block.startswith("code"):
                out.append(_FENCE)
            block = ""
        if block.startswith("code"):
            out.append(line)
            continue
        if block.startswith("quote"):
            out.append("> " + _inline(line))
            continue
        if _PRE_OPEN.match(line):
            out.append(line)
            block = "" if _PRE_CLOSE.search(line) else "pre"
            continue
        out.append(_converted(line, signature) if signature else _plain_line(line))
        if signature and signature.group(1) in ("bc", "pre", "bq"):
            kind = "quote" if signature.group(1) == "bq" else "code"
            block = kind + (".." if signature.group(2) == ".." else "")
            if kind == "code":
                rest = line[signature.end():]
                out[-1] = _FENCE + ("\n" + rest if rest.strip() else "")
    if block.startswith("code"):
        out.append(_FENCE)
    return "\n".join(out)


def _converted(line: str, signature: re.Match[str]) -> str:
    kind, rest = signature.group(1), _inline(line[signature.end():])
    if kind.startswith("h"):
        return "#" * int(kind[1]) + " " + rest
    if kind == "bq":
        return "> " + rest
    return rest


def _plain_line(line: str) -> str:
    item = _LIST_ITEM.fullmatch(line)
    if item:
        marks = item.group(1)
        indent = "   " * (len(marks) - 1)
        return f"{indent}{'1.' if marks[-1] == '#' else '-'} {_inline(item.group(2))}"
    return _inline(line)


def _inline(text: str) -> str:
    text = _IMAGE.sub("", text)
    text = _LINK.sub(r"[\1](\2)", text)
    text = _CODE.sub(r"`\1`", text)
    return _BOLD.sub(r"**\1**", text)
