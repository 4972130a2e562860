"""The wheel as a user gets it: built from this checkout, installed with pip into a fresh
virtual environment outside the checkout, it carries its templates and type marker, reports
the checkout's version, builds the bundled examples with the bundled config, and `init` then
`build` works with nothing but the wheel.

pip fetches the dependencies from the package index (or its cache), as it would for a user."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import REPO

pytestmark = pytest.mark.slow

# Left out of the copy the wheel is built from: what a checkout accumulates and the build
# does not need. Building a copy keeps setuptools' build/ folder, and the stale files it
# may hold, out of the checkout.
NOT_SOURCE = {".git", ".venv", "build", "dist", "archive", "tests", "bench", "dry-run",
              ".pytest_cache", ".hypothesis", ".ruff_cache", ".mypy_cache"}
# Nothing from this checkout or this test run's environment may leak into the installed one.
LEAKY_VARIABLES = {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV"}


def checkout_version() -> str:
    """__version__ as newsletter/version.py writes it, read without importing the package."""
    tree = ast.parse((REPO / "newsletter" / "version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("newsletter/version.py sets no __version__")


def ignore_generated(folder: str, names: list[str]) -> set[str]:
    top = Path(folder) == REPO
    return {name for name in names
            if name == "__pycache__" or name.endswith(".egg-info")
            or (top and (name in NOT_SOURCE or name.startswith("state.sqlite")))}


def run(*command: str | Path, cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in LEAKY_VARIABLES}
    return subprocess.run([str(part) for part in command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


class Installed:
    def __init__(self, venv: Path):
        self.venv = venv
        self.python = venv / "bin" / "python"
        self.newsletter = venv / "bin" / "newsletter"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.getbasetemp().resolve()
    assert not base.is_relative_to(REPO), f"the temporary folder {base} is inside the checkout"

    source = tmp_path_factory.mktemp("source")
    shutil.copytree(REPO, source, ignore=ignore_generated, dirs_exist_ok=True)
    wheels = tmp_path_factory.mktemp("wheels")
    built = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", wheels, source, cwd=source)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("newsletter-*.whl")

    venv = tmp_path_factory.mktemp("venv")
    made = run(sys.executable, "-m", "venv", venv, cwd=venv)
    if made.returncode != 0 or not (venv / "bin" / "pip").exists():
        pytest.skip(f"cannot create a virtual environment with pip here: {(made.stderr or made.stdout).strip()}")
    result = run(venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel, cwd=venv)
    assert result.returncode == 0, result.stdout + result.stderr
    return Installed(venv)


def test_the_installed_package_carries_its_templates_and_type_marker(installed: Installed, tmp_path: Path):
    where = run(installed.python, "-c", "import newsletter, pathlib; print(pathlib.Path(newsletter.__file__).parent)",
                cwd=tmp_path)
    assert where.returncode == 0, where.stderr
    package = Path(where.stdout.strip())
    assert package.is_relative_to(installed.venv), f"imported {package}, not the installed copy"
    assert (package / "templates" / "digest.mjml.j2").is_file()
    assert (package / "py.typed").is_file()
    # Every module of the checkout, so a new subpackage missing from pyproject.toml shows here.
    source = REPO / "newsletter"
    shipped = {path.relative_to(package) for path in package.rglob("*.py")}
    assert {path.relative_to(source) for path in source.rglob("*.py")} <= shipped


def test_the_installed_command_reports_the_checkouts_version(installed: Installed, tmp_path: Path):
    result = run(installed.newsletter, "--version", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert checkout_version() in result.stdout.split(), result.stdout


def test_the_installed_command_builds_the_bundled_examples(installed: Installed, tmp_path: Path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    shutil.copy(REPO / "config.toml", tmp_path / "config.toml")
    result = run(installed.newsletter, "build", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    archive = tmp_path / "archive"
    for name in ("index.html", "posts.atom", "digests.atom"):
        assert (archive / name).is_file(), name
    assert list((archive / "digests").glob("*.html")), sorted(p.name for p in archive.rglob("*"))


def test_init_then_build_works_from_the_wheel_alone(installed: Installed, tmp_path: Path):
    """No checkout beside it: the config and the sample posts come from the package."""
    started = run(installed.newsletter, "init", "digest", cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    result = run(installed.newsletter, "build", cwd=tmp_path / "digest", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "3 posts seen" in result.stderr
    assert list((tmp_path / "digest" / "archive" / "digests").glob("*.html"))
