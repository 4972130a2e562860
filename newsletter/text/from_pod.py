"""POD ("Plain Old Documentation", the markup some languages write their manuals and
release notes in) read as the Markdown it stands for: "=head1".."=head4" are headings, "=item" opens a list
item, an indented paragraph is code, and interior sequences ("C<code>", "B<bold>",
"L<text|target>") are the inline markup they name.

Read as plain text, a POD post shows its headings as commands ("=head2 New C<match>") and its
NAME section's line, which is the document's title, as a part of its own.
"""

from __future__ import annotations

import re

from newsletter import lazy_re

# A command paragraph at a line's start ("=head2 X", "=item *"): the pattern runs over the
# text with a "\n" before it (see text/sniff.py).
_HEADING_COMMAND = lazy_re.compile(r"\n=head[1-4][ \t]+\S")
_COMMAND = lazy_re.compile(r"=([a-z]+\d?)(?:[ \t]+(.*))?", re.S)
# Paragraphs stand apart by lines that are empty or hold only blanks.
_PARAGRAPH_BREAK = lazy_re.compile(r"\n[ \t]*\n")
# Interior sequences: "C<< a < b >>" (any number of angles, spaced inside), then "C<x>"
# from the innermost out ("B<C<x>>"). A wide one holds a phrase: bounded, an opening never
# closed costs a few hundred characters of search, not the rest of the paragraph.
_WIDE_SEQUENCE = lazy_re.compile(r"([A-Z])<{2,}\s(.{0,400}?)\s>{2,}", re.S)
_SEQUENCE = lazy_re.compile(r"([A-Z])<([^<>]*)>")
_MAX_NESTING = 4
_ENTITIES = {"lt": "<", "gt": ">", "verbar": "|", "sol": "/", "quot": '"', "amp": "&", "apos": "'"}
# What Markdown would read as markup in a POD paragraph's plain words.
_MARKDOWN_SPECIAL = lazy_re.compile(r"([\\`*_\[\]<>])")
_NUMBER_OPENER = lazy_re.compile(r"(\d+)([.)])(?=\s|$)")
_PLACEHOLDER = lazy_re.compile("\x00(\\d+)\x00")
# The man-page section whose one line is the document's name and purpose.
_NAME_SECTION = "NAME"


def looks_like_pod(text: str) -> bool:
    """Two heading commands at a line's start ("=head1 NAME", "=head2 New X") tell POD: no
    other shape of post writes a heading so."""
    found = _HEADING_COMMAND.finditer("\n" + text)
    return next(found, None) is not None and next(found, None) is not None


def pod_as_markdown(text: str) -> str:
    out: list[str] = []
    # Inside "=begin"/"=end": a block for another formatter.
    skipping = False
    in_name = after_name = False
    in_item = False
    for paragraph in _PARAGRAPH_BREAK.split(text):
        if not paragraph.strip():
            continue
        command = _COMMAND.fullmatch(paragraph.strip()) if paragraph.startswith("=") else None
        if skipping:
            if command and command.group(1) == "end":
                skipping = False
            continue
        if command:
            name, argument = command.group(1), " ".join((command.group(2) or "").split())
            # The man page's part right under its NAME ("DESCRIPTION") introduces the
            # document: its text is the post's opening, under the title.
            introduction = after_name and name == "head1" and argument.isupper()
            after_name = False
            in_name = name == "head1" and argument == _NAME_SECTION
            if name == "begin":
                skipping = True
            elif name.startswith("head") and not in_name and not introduction:
                in_item = False
                out.append(f"{'#' * (int(name[-1]) + 1)} {_inline(argument)}")
            elif name == "item":
                in_item = True
                # "=item *" (or a number) opens an item whose text follows; "=item Name" names it.
                label = "" if argument in ("", "*", "-", "o") or argument.rstrip(".").isdigit() else argument
                out.append(f"- {_inline(label)}" if label else "-")
            elif name == "back":
                in_item = False
            continue
        if paragraph[0] in " \t":
            out.append(_code(paragraph))
            continue
        line = _inline(" ".join(paragraph.split()))
        if in_name:
            out.append(f"# {line}")
            in_name, after_name = False, True
        elif in_item and out[-1] == "-":
            out[-1] = f"- {line}"
        else:
            out.append(f"  {line}" if in_item else line)
    return "\n\n".join(out) + "\n"


def _code(paragraph: str) -> str:
    lines = paragraph.rstrip().split("\n")
    indent = min(len(line) - len(line.lstrip()) for line in lines if line.strip())
    fence = "~" * max(4, *(len(line) - len(line.lstrip("~")) + 1 for line in lines))
    return "\n".join([fence, *(line[indent:] for line in lines), fence])


def _inline(text: str) -> str:
    """POD's interior sequences as Markdown, the rest of the text escaped."""
    parts: list[str] = []

    def keep(markdown: str) -> str:
        parts.append(markdown)
        return f"\x00{len(parts) - 1}\x00"

    def sequence(kind: str, content: str) -> str:
        plain = _PLACEHOLDER.sub(lambda found: _plain(parts[int(found.group(1))]), content)
        if kind == "C":
            ticks = "`" * (max((len(run) for run in re.findall("`+", plain)), default=0) + 1)
            return keep(f"{ticks} {plain} {ticks}")
        if kind in ("B", "I"):
            mark = "**" if kind == "B" else "*"
            return keep(f"{mark}{_escape_kept(content, parts)}{mark}") if content.strip() else ""
        if kind == "E":
            entity = content.strip()
            return keep(_ENTITIES.get(entity) or _numbered_character(entity))
        if kind in ("X", "Z"):
            return ""
        if kind == "L":
            shown = content.split("|", 1)[0] if "|" in content else content.split("/", 1)[-1] \
                if not re.match(r"\w+://", content) else content
            return keep(_escape_kept(shown.strip('"'), parts))
        return keep(_escape_kept(content, parts))

    text = _WIDE_SEQUENCE.sub(lambda found: sequence(found.group(1), found.group(2)), text)
    # Each pass reads one level of nesting, from the innermost out; writers nest a few.
    for _ in range(_MAX_NESTING):
        replaced = _SEQUENCE.sub(lambda found: sequence(found.group(1), found.group(2)), text)
        if replaced == text:
            break
        text = replaced
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    # A paragraph opening as a list item or a heading would is one of words.
    text = _NUMBER_OPENER.sub(r"\1\\\2", text, count=1) if _NUMBER_OPENER.match(text) \
        else "\\" + text if text[:1] in ("#", "+", "-", "|") else text
    return _PLACEHOLDER.sub(lambda found: parts[int(found.group(1))], text)


def _escape_kept(content: str, parts: list[str]) -> str:
    """Plain words escaped, markup already made (a placeholder) kept."""
    pieces = _PLACEHOLDER.split(content)
    return "".join(parts[int(piece)] if odd else _MARKDOWN_SPECIAL.sub(r"\\\1", piece)
                   for odd, piece in ((i % 2 == 1, piece) for i, piece in enumerate(pieces)))


def _plain(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown.strip("`* "))


def _numbered_character(number: str) -> str:
    """E<233>, E<0xE9>, E<0351>: a character by its decimal, hexadecimal or octal number;
    nothing for a name or number that is none."""
    base = 16 if number[:2].lower() == "0x" else 8 if number[:1] == "0" and len(number) > 1 else 10
    try:
        return chr(int(number, base))
    except (ValueError, OverflowError):
        return ""
