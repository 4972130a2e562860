"""Which of a source's posts are skipped, by their titles: `include` and `exclude` regular
expressions, and `prereleases = false`.

A title's version is a pre-release when a pre-release word is attached to it: glued or
joined by "-", ".", "_" or "~" ("2.0b1", "3.13.0a2", "1.0.0-alpha", "2.0.0-rc.1"), or
following it after a space or in parentheses ("Kite 2.0 Beta 1", "Kite 2.0 (preview)"). The
same word elsewhere in the title says nothing of the version ("Beta features in 2.4",
"Preview: what comes next"). A version without a dot ("Kite 15") counts only when the word
after it ends the title or is followed by a number or punctuation ("Kite 15 Beta 2"), so
that "5 beta features to try" is no pre-release.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from newsletter import lazy_re

_DOTTED = r"v?\d+(?:\.\d+)+"
_BARE = r"v?\d+"
# Preceded by a qualifier sometimes ("Developer Preview", "Public Beta").
_WORD = (r"(?:(?:developer|public|technical|early)\s+)?"
         r"(?:alpha|beta|rc|preview|pre-?release|nightly|snapshot|canary|release[ -]candidate)")
# Only glued: "2.0 Dev Days" is an event, "2.5.0.dev1" a build; milestones and candidate
# releases numbered ("6.1.0-M2", "6.0.0.CR1"), as "1.5m" is a million.
_GLUED_WORD = rf"(?:{_WORD}|dev|pre|(?:m|cr)(?=\d))"
# Its own number, if any: "beta 2", "rc.1", "alpha-3", "dev20240101".
_NUMBER = r"(?:[-. ]?\d+)*(?![a-z])"
_GLUE = r"[-._~]?"
_SPACED = r"(?:\s+\(?|\s*\()"
_PRERELEASE = lazy_re.compile(
    rf"(?<![\w.])(?:"
    # PEP 440's one-letter forms only glued to a dotted version and numbered: "2.0b1", "1.0rc2".
    rf"{_DOTTED}(?:a|b|c)\d+(?![\w.])"
    rf"|{_DOTTED}{_GLUE}{_GLUED_WORD}{_NUMBER}"
    rf"|{_DOTTED}{_SPACED}{_WORD}{_NUMBER}"
    rf"|{_BARE}[-._~]{_GLUED_WORD}{_NUMBER}"
    rf"|{_BARE}{_SPACED}{_WORD}{_NUMBER}(?=\s*(?:$|\d|[^\w\s]))"
    rf")",
    re.IGNORECASE,
)


def prerelease(title: str) -> str | None:
    """The pre-release version the title names ("3.13.0a2", "2.0 Beta 1"), if any."""
    found = _PRERELEASE.search(title)
    return " ".join(found.group(0).replace("(", " ").split()) if found else None


@dataclass(frozen=True)
class TitleFilter:
    """A source's filter. Patterns search the title anywhere, ignoring case."""

    # A post is kept only if its title matches one of these (when there are any)...
    include: tuple[re.Pattern[str], ...] = ()
    # ...and none of these.
    exclude: tuple[re.Pattern[str], ...] = ()
    # Whether posts of a pre-release version are kept.
    prereleases: bool = True

    def skip_reason(self, title: str | None) -> str | None:
        """Why a post of this title is skipped, on one line; None if it is kept. A post
        without a title matches no pattern."""
        title = title or ""
        if self.include and not any(pattern.search(title) for pattern in self.include):
            return "matches no include pattern"
        for pattern in self.exclude:
            if pattern.search(title):
                return f"matches exclude pattern {pattern.pattern!r}"
        version = None if self.prereleases else prerelease(title)
        return f"pre-release {version}" if version else None

    def fingerprint(self) -> list[object]:
        """What decides which posts are skipped, as JSON can hold it."""
        return [[p.pattern for p in self.include], [p.pattern for p in self.exclude], self.prereleases]


def pattern(text: str) -> re.Pattern[str]:
    """A filter's pattern; re.error if it is not a regular expression."""
    return re.compile(text, re.IGNORECASE)
