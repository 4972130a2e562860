"""Regular expressions compiled the first time they are used.

The package keeps its patterns at module level, some 350 of them, most in the summarizer and
its readers. Python's `re` compiles in Python: compiling them all as the modules load costs
a process about 0.1 s of CPU, the longest part of loading the summarizer, while one post
touches about a third of them (a Markdown post, none of the AsciiDoc reader's). A build of
one new post waits for that load, so each pattern is compiled when first used instead.
"""

from __future__ import annotations

import re
from typing import AnyStr, Generic, cast

# What the package asks of its patterns. Put on the stand-in once it is compiled, so that a
# later use finds the compiled pattern's own method or value at once: no lookup through
# `__getattr__`, no extra frame.
_ATTRIBUTES = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
               "flags", "groups", "groupindex")


class _LazyPattern(Generic[AnyStr]):
    def __init__(self, source: AnyStr, flags: int) -> None:
        # Readable before compiling: patterns are built from others' `.pattern`.
        self.pattern: AnyStr = source
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        # Only names not yet on the object get here. Dunder names (asked by copy and pickle
        # of an object made without __init__), and the two set by __init__ on such an object,
        # must not compile.
        if name.startswith("__") or name in ("pattern", "_flags"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for attribute in _ATTRIBUTES:
            setattr(self, attribute, getattr(compiled, attribute))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self.pattern!r}, {self._flags})"


def compile(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """A pattern that behaves as `re.compile(source, flags)` and is compiled on first use.
    Not for `re`'s module functions, which take strings or real patterns; and a match's
    `.re` is the compiled pattern, not this one."""
    return cast(re.Pattern[AnyStr], _LazyPattern(source, flags))
