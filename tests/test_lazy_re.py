"""Patterns compiled on first use behave as compiled ones, and cost nothing until used."""

from __future__ import annotations

import copy
import re

from newsletter import lazy_re


def test_a_pattern_is_compiled_only_when_first_used(monkeypatch):
    compiled = []
    real_compile = re.compile
    monkeypatch.setattr(re, "compile", lambda *args: compiled.append(args) or real_compile(*args))
    version = lazy_re.compile(r"v(\d+)\.(\d+)", re.IGNORECASE)
    assert compiled == []
    assert version.search("Release V2.10 is out").groups() == ("2", "10")
    assert version.findall("v1.0 and v1.1") == [("1", "0"), ("1", "1")]
    assert compiled == [(r"v(\d+)\.(\d+)", re.IGNORECASE)]


def test_every_method_and_attribute_answers_as_re_does():
    source = r"(?P<word>[^\W\d_]+)|\d+"
    lazy, real = lazy_re.compile(source), re.compile(source)
    text = "Added 3 new cues, kept 12"
    for method in ("match", "fullmatch", "search"):
        assert getattr(getattr(lazy, method)(text), "group", lambda: None)() == \
            getattr(getattr(real, method)(text), "group", lambda: None)()
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("_", text) == real.sub("_", text)
    assert lazy.subn("_", text) == real.subn("_", text)
    assert lazy.split(text) == real.split(text)
    assert lazy.groupindex == real.groupindex and lazy.flags == real.flags


def test_its_source_is_readable_before_compiling_to_build_other_patterns():
    number = lazy_re.compile(r"\d+")
    assert number.pattern == r"\d+"
    assert lazy_re.compile(rf"v{number.pattern}").fullmatch("v42")


def test_bytes_patterns_too():
    assert lazy_re.compile(rb"charset=(\w+)").search(b"text/html; charset=utf8").group(1) == b"utf8"


def test_copying_does_not_recurse_into_the_placeholder():
    copied = copy.copy(lazy_re.compile("a+"))
    assert copied.match("aaa").group() == "aaa"


def test_every_pattern_of_the_package_compiles():
    # A broken pattern would otherwise fail at its first use only, maybe mid-build in a
    # reader few posts need.
    found = [pattern for module in _package_modules() for pattern in _patterns_in(vars(module).values())]
    assert len(found) > 350
    for pattern in found:
        re.compile(pattern.pattern, pattern._flags)


def _package_modules():
    import importlib
    import pkgutil

    import newsletter

    for info in pkgutil.walk_packages(newsletter.__path__, "newsletter."):
        yield importlib.import_module(info.name)


def _patterns_in(values):
    for value in values:
        if isinstance(value, lazy_re._LazyPattern):
            yield value
        elif isinstance(value, tuple | list | frozenset | set):
            yield from _patterns_in(value)
        elif isinstance(value, dict):
            yield from _patterns_in([*value.keys(), *value.values()])
