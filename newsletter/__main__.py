"""The program: `newsletter` and `python -m newsletter`.

`newsletter build` forks its worker here, before anything else is imported: the worker loads
the summarizer while this process imports the command line
(click and the commands' modules, ~0.07 s) and the pipeline, and collects. A build of one
new post waits for the worker's loading, so the sooner it starts the sooner the build ends.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    # NumPy (for language identification, a vector by a small matrix a post) starts OpenBLAS
    # with a thread per core, whose threads spin on the other core as NumPy loads: ~0.1 s of
    # CPU taken from the build in a build of one post, and in a pool of one worker per core
    # they would only contend. Set before anything imports NumPy here or in a forked worker.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    command, verbose = _command_line(sys.argv[1:])
    if command != "build":
        from newsletter.cli import main as run

        run()
        return
    from newsletter import logs
    from newsletter.processes import EarlyWorker

    # The worker logs as the build does (the language model's cache, with --verbose): set
    # up before the fork, which comes first to start the worker's loading as soon as can be.
    logs.configure(verbose)
    with EarlyWorker.started((_load_summarizer,), meanwhile=(_load_publishers,)) as early:
        from newsletter.cli import main as run

        run(early)


def _command_line(arguments: list[str]) -> tuple[str | None, bool]:
    """The command the arguments name, and whether they ask for verbose output, read from
    the program's own options before it as click reads them (--config PATH, -v/--verbose,
    -h/--help, --version); no command when they ask for help or the version, which run none."""
    if "--help" in arguments or "-h" in arguments:
        return None, False
    verbose = False
    words = iter(arguments)
    for word in words:
        short_flags = word[1:] if word.startswith("-") and not word.startswith("--") else ""
        if word == "--version" or "h" in short_flags:
            return None, verbose
        if word == "--config":
            next(words, None)
        elif word == "--verbose" or "v" in short_flags:
            verbose = True
        elif not word.startswith("-"):
            return word, verbose
    return None, verbose


def _load_summarizer() -> None:
    from newsletter.summarize.batch import load_summarizer

    load_summarizer()


def _load_publishers() -> None:
    # What the pipeline publishes with: the build imports them while the worker summarizes its
    # first posts, having nothing else to do then.
    import newsletter.archive  # noqa: F401


if __name__ == "__main__":
    main()
