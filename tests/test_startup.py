"""Start-up: `newsletter --version` and `--help` import the command line and nothing of the
pipeline, while the library's names stay reachable from the package."""

import gc
import multiprocessing
import os
import subprocess
import sys
from contextlib import contextmanager

import pytest
from helpers import REPO, write_config

import newsletter
import newsletter.__main__ as program
from newsletter import config, errors, models, pipeline, processes
from newsletter.mail import send
from newsletter.summarize import summarize

# What the commands work with; each takes tens of milliseconds to import.
HEAVY = {"apscheduler", "feedgen", "feedparser", "flask", "jinja2", "lxml", "mjml", "numpy",
         "procrastinate", "psycopg", "py3langid", "requests", "rich", "sqlite3", "yaml"}
# The modules of newsletter itself that the command line needs to answer --version or --help.
# (newsletter.summarize is the summarizer package alone, whose modules load on first use.)
CLI_MODULES = {"newsletter", "newsletter.__main__", "newsletter.cli", "newsletter.cli.base",
               "newsletter.cli.commands", "newsletter.cli.subscribers", "newsletter.cli.opml",
               "newsletter.cli.posts", "newsletter.cli.start", "newsletter.cli.worker", "newsletter.errors",
               "newsletter.lazy_re", "newsletter.logs",
               "newsletter.summarize",
               "newsletter.version", "newsletter.words"}


def imported_by(*args: str) -> set[str]:
    """Every module `python -m newsletter ARGS` imports, from -X importtime's report."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "newsletter", *args], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("import time:")]
    return {line.rsplit("|", 1)[1].strip() for line in lines[1:]}


@pytest.mark.slow
@pytest.mark.parametrize("args", [("--version",), ("--help",), ("build", "--help")])
def test_version_and_help_import_only_the_command_line(args):
    modules = imported_by(*args)
    assert {m for m in modules if m.split(".")[0] in HEAVY} == set()
    assert {m for m in modules if m.split(".")[0] == "newsletter"} <= CLI_MODULES


def test_the_library_names_are_reachable_from_the_package():
    # Imported above, the summarizer package does not take the name of its function.
    assert newsletter.build is pipeline.build
    assert newsletter.load_config is config.load
    assert newsletter.send is send.send
    assert newsletter.summarize is summarize
    assert (newsletter.Config, newsletter.NewsletterError) == (config.Config, errors.NewsletterError)
    assert (newsletter.Entry, newsletter.Feature, newsletter.Post, newsletter.Summary) == (
        models.Entry, models.Feature, models.Post, models.Summary)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = newsletter.nothing


def test_a_build_of_folders_only_loads_no_web_client(tmp_path):
    (tmp_path / "posts").mkdir()
    (tmp_path / "posts" / "kite-1.0.md").write_text("# Kite 1.0\n\nKite 1.0 reads faster.\n", encoding="utf-8")
    config = write_config(tmp_path, '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n')
    modules = imported_by("--config", str(config), "build")
    assert "newsletter.sources.folder" in modules and "newsletter.summarize.batch" in modules
    assert {m for m in modules if m.split(".")[0] in {"urllib3", "requests", "certifi"}} == set()
    assert "newsletter.sources.http" not in modules


def test_a_command_leaves_what_it_loaded_to_the_exit_uncollected(monkeypatch):
    from newsletter.cli import main

    monkeypatch.setattr(sys, "argv", ["newsletter", "--version"])
    try:
        with pytest.raises(SystemExit) as exited:
            main()
        assert exited.value.code == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


@pytest.mark.parametrize(("set_by_user", "expected"), [(None, "1"), ("4", "4")])
def test_numpys_blas_runs_one_thread_in_the_programs_processes_unless_the_user_says(
        monkeypatch, set_by_user, expected):
    # Set first, so that the test's end restores the variable as it was, set or not.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", set_by_user or "unset by the test")
    if set_by_user is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.setattr(sys, "argv", ["newsletter", "--version"])
    try:
        with pytest.raises(SystemExit):
            program.main()
        assert os.environ["OPENBLAS_NUM_THREADS"] == expected
    finally:
        gc.unfreeze()


@pytest.mark.parametrize(("arguments", "command", "verbose"), [
    (["build"], "build", False),
    (["--config", "site.toml", "-v", "build", "--refetch"], "build", True),
    (["--config=site.toml", "--verbose", "build"], "build", True),
    (["--config", "build", "digest"], "digest", False),  # a config file named "build"
    (["-vh", "build"], None, False),
    (["--version", "build"], None, False),
    (["build", "--help"], None, False),
    ([], None, False),
])
def test_the_program_reads_its_command_before_loading_the_command_line(arguments, command, verbose):
    assert program._command_line(arguments) == (command, verbose)


@pytest.fixture
def forks(monkeypatch):
    """The early workers the program starts, as a build by hand would (where no other thread
    runs: the test session's servers do); stopped as the program ends."""
    monkeypatch.setattr(processes, "start_method", lambda: multiprocessing.get_context("fork"))
    monkeypatch.setattr(processes, "cores", lambda: 2)
    started: list[processes.EarlyWorker | None] = []
    real = processes.EarlyWorker.started.__func__  # type: ignore[attr-defined]

    def recorded(cls, *args, **kwargs):
        with real(cls, *args, **kwargs) as early:
            started.append(early)
            yield early

    monkeypatch.setattr(processes.EarlyWorker, "started", classmethod(contextmanager(recorded)))
    return started


def test_a_build_gets_the_worker_forked_as_the_program_started(monkeypatch, tmp_path, forks):
    given: list[processes.EarlyWorker | None] = []

    def build(*_args: object, early: processes.EarlyWorker | None = None, **_kwargs: object) -> object:
        given.append(early)
        assert early is not None and early.run(abs, [-4]) == [4]
        raise SystemExit(0)

    monkeypatch.setattr(pipeline, "build", build)
    config = write_config(tmp_path, '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n')
    monkeypatch.setattr(sys, "argv", ["newsletter", "--config", str(config), "build"])
    with pytest.raises(SystemExit):
        program.main()
    assert given == forks and given[0] is not None
    assert given[0].process.exitcode is not None  # stopped as the program ended


@pytest.mark.parametrize("arguments", [["build", "--help"], ["-vh", "build"], ["--version"], ["sources"]])
def test_only_a_build_forks_a_worker(monkeypatch, tmp_path, forks, arguments):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["newsletter", *arguments])
    with pytest.raises(SystemExit):
        program.main()
    assert forks == []


@pytest.mark.slow
def test_the_worker_logs_as_the_build_does(tmp_path):
    (tmp_path / "posts").mkdir()
    (tmp_path / "posts" / "kite-1.0.md").write_text("# Kite 1.0\n\nKite 1.0 reads faster.\n", encoding="utf-8")
    config = write_config(tmp_path, '[[sources]]\nname = "posts"\nkind = "folder"\npath = "posts"\n')
    # An empty cache: the worker says, in debug, that it unpacks the language model.
    result = subprocess.run(
        [sys.executable, "-m", "newsletter", "-v", "--config", str(config), "build"], capture_output=True,
        text=True, env={**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache")},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "DEBUG: language model cache" in result.stderr
