"""The package's import graph runs one way: from the command line down through the pipeline's
stages to the models. Each module of newsletter/ sits in a layer; it may import any module of
a lower layer, and a module of its own layer only inside its own subpackage. The graph is
read from the source with `ast`, so nothing is imported to check it.

A new module must be given a layer in LAYERS before this test passes: placing it is a
decision, not an accident."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from helpers import REPO

PACKAGE = REPO / "newsletter"

# Lowest first. A name is a module ("newsletter" is the package's __init__.py); "pkg.*" is
# every module of the subpackage pkg, its __init__.py included ("newsletter.config.*" is the
# module config.py, or every module of a config/ package).
LAYERS: list[list[str]] = [
    ["newsletter.lazy_re"],
    ["newsletter.version", "newsletter.errors", "newsletter.models", "newsletter.languages", "newsletter.words",
     "newsletter.processes", "newsletter.logs"],
    # newsletter/schedule/__init__.py sits with its lowest module: importing
    # newsletter.schedule.crontab runs it.
    ["newsletter.text.*", "newsletter.schedule.crontab", "newsletter.schedule"],
    ["newsletter.config.*", "newsletter.summarize.*"],
    ["newsletter.sources.*", "newsletter.state.*", "newsletter.entries", "newsletter.regroup", "newsletter.history"],
    ["newsletter.publish.*"],
    ["newsletter.mail.*", "newsletter.deliver.*"],
    ["newsletter.web.*"],
    ["newsletter.archive", "newsletter.pipeline", "newsletter.oneoff"],
    ["newsletter.schedule.scheduler"],
    ["newsletter.schedule.worker"],
    ["newsletter.cli.*", "newsletter"],
    ["newsletter.__main__"],
]

# Imports that run against the layering today, (importer, imported) -> why it is tolerated.
# Each entry is debt: remove it when the import goes.
ALLOWED: dict[tuple[str, str], str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of newsletter/, by dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def matches(module: str, pattern: str) -> bool:
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return module == pattern


def layer_of(module: str) -> int | None:
    return next((number for number, patterns in enumerate(LAYERS)
                 if any(matches(module, pattern) for pattern in patterns)), None)


def package_of(module: str) -> str:
    """The package a module belongs to: newsletter.text for newsletter.text.parse and for
    newsletter.text itself, newsletter for a top-level module such as newsletter.config."""
    return module if modules()[module].name == "__init__.py" else module.rsplit(".", 1)[0]


def imports_of(module: str) -> set[str]:
    """The newsletter modules `module` imports, absolutely or relatively, anywhere in its code
    (an import inside a function or under TYPE_CHECKING is still a dependency). `from
    newsletter.pkg import name` imports the module newsletter.pkg.name when there is one, else
    the package newsletter.pkg."""
    path = modules()[module]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.split(".")[0] == "newsletter")
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from . import x, from ..models import y
                base = package_of(module).rsplit(".", node.level - 1)[0]
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.split(".")[0] == "newsletter":
                found.update(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules() else target
                             for alias in node.names)
    return found - {module}


def test_every_module_has_a_layer():
    unplaced = [module for module in modules() if layer_of(module) is None]
    assert not unplaced, f"give these modules a layer in LAYERS (tests/test_layers.py): {unplaced}"


def test_every_name_in_the_layers_is_a_module():
    stale = [pattern for patterns in LAYERS for pattern in patterns
             if not any(matches(module, pattern) for module in modules())]
    assert not stale, f"LAYERS names modules that do not exist: {stale}"


def test_no_import_runs_upward_or_across_subpackages_of_one_layer():
    wrong = []
    for module in modules():
        for imported in sorted(imports_of(module)):
            assert imported in modules(), f"{module} imports {imported}, which is not a module of newsletter/"
            mine, theirs = layer_of(module), layer_of(imported)
            if mine is None or theirs is None or (module, imported) in ALLOWED:
                continue  # an unplaced module fails test_every_module_has_a_layer
            if theirs > mine:
                wrong.append(f"{module} (layer {mine}) imports {imported} (layer {theirs}): upward")
            elif theirs == mine and package_of(module) != package_of(imported):
                wrong.append(f"{module} (layer {mine}) imports {imported} (layer {theirs}): "
                             f"same layer, outside {package_of(module)}")
    assert not wrong, "imports against the layering (see LAYERS in tests/test_layers.py):\n" + "\n".join(wrong)


def test_every_allowed_import_is_still_made():
    gone = [edge for edge in ALLOWED if edge[1] not in imports_of(edge[0])]
    assert not gone, f"these imports are gone: remove them from ALLOWED: {gone}"
