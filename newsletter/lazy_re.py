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

# What the package calls on its patterns. Put on the placeholder once it is compiled, so a
# later call finds the compiled pattern's own method at once: no lookup through
# `__getattr__`, no extra frame.
_METHODS = ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer")


class _Uncompiled(Generic[AnyStr]):
    def __init__(self, source: AnyStr, flags: int) -> None:
        # Readable before compiling: patterns are built from others' `.pattern`.
        self.pattern: AnyStr = source
        self._flags = flags

    def __getattr__(self, name: str) -> object:
        # Only names not yet on the object get here. Dunder names (asked by copy and pickle
        # of an object made without __init__) must not compile, nor recurse into `pattern`.
        if name.startswith("__"):
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_re.compile({self.pattern!r}, {self._flags})"


def compile(source: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """A pattern that behaves as `re.compile(source, flags)` and is compiled on first use.
    Only for patterns used through their methods: `re`'s module functions take strings or
    real patterns, and a match's `.re` is the compiled pattern, not this one."""
    return cast(re.Pattern[AnyStr], _Uncompiled(source, flags))
