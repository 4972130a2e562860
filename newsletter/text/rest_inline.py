"""reST inline markup read as the text it shows: roles, literals, links, bold."""

from __future__ import annotations

import re

from newsletter import lazy_re

# reST inline markup that reads as its text: roles (":ref:`Upgrading <upgrading>`",
# ":doc:`changelog`", ":py:func:`f`"), literals ("``x``") and links ("`site <https://…>`_",
# "`name`_"). A role's name is short: bounding it keeps a search linear in a line's length
# (an unbounded name would rescan a long run of "a:a:a:" from every colon).
ROLE_NAME = r":[\w+.-]{1,40}(?::[\w+.-]{1,40}){0,2}:`"
_REST_ROLE = lazy_re.compile(ROLE_NAME + r"([^`]*)`")
_REST_LITERAL = lazy_re.compile(r"``([^`]+)``")
_REST_LINK = lazy_re.compile(r"`([^`]+)`__?")
_REST_STRONG = lazy_re.compile(r"\*\*(\S[^*]*?)\*\*")
# Text in the default role ("`scipy.fft`") is a name set apart, as a literal is.
_REST_DEFAULT_ROLE = lazy_re.compile(r"(?<![`\w])`([^`\n]+)`(?![`\w])")


def with_roles_joined(group: list[str]) -> list[str]:
    """A role or link whose text goes on to the next line (":ref:`improved error" over
    "messages <x>`") is read whole: a line with an unclosed backtick takes the next one."""
    lines: list[list[str]] = []
    unclosed = False
    for line in group:
        if unclosed:
            lines[-1].append(line.strip())
        else:
            lines.append([line])
        unclosed ^= line.count("`") % 2 == 1
    return [" ".join(parts) for parts in lines]


def rest_inline(line: str) -> str:
    """A line of reST with its inline markup read as the text it shows."""
    def role_text(found: re.Match[str]) -> str:
        text = found.group(1)
        # "Title <target>" reads as its title; a bare "<target>" as itself.
        if text.endswith(">") and text.rfind("<") > 0:
            text = text[:text.rfind("<")].rstrip() or text
        return text.lstrip("~!")

    def markup_read(text: str) -> str:
        text = _REST_STRONG.sub(r"\1", _REST_ROLE.sub(role_text, text))
        return _REST_DEFAULT_ROLE.sub(r"\1", _REST_LINK.sub(role_text, text))

    # A literal shows its text as written: a role inside it ("``:kbd:``") is no markup.
    parts = _REST_LITERAL.split(line)
    return "".join(part if index % 2 else markup_read(part) for index, part in enumerate(parts))
