"""The program: `newsletter` and `python -m newsletter`.

`newsletter build` forks its worker here, before anything else is imported: the worker loads
the summarizer, then the renderer of post pages, while this process imports the command line
(click and the commands' modules, ~0.07 s) and the pipeline, and collects. A build of one
new post waits for the worker's loading, so the sooner it starts the sooner the build ends.
"""

from __future__ import annotations

import sys


def main() -> None:
    if _command(sys.argv[1:]) != "build":
        from newsletter.cli import main as run

        run()
        return
    # Before the command line's import, which starts no thread: a fork beside one is unsafe.
    from newsletter.processes import EarlyWorker

    with EarlyWorker.started((_load_summarizer, _load_page_renderer), meanwhile=(_load_publishers,)) as early:
        from newsletter.cli import main as run

        run(early)


def _command(arguments: list[str]) -> str | None:
    """The command the arguments name: the first that is neither an option of the program
    (--config PATH, --verbose, --version) nor the value of --config; None when they ask for
    help, which runs no command."""
    if "--help" in arguments or "-h" in arguments:
        return None
    words = iter(arguments)
    for word in words:
        if word == "--config":
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def _load_summarizer() -> None:
    from newsletter.summarize.batch import load_summarizer

    load_summarizer()


def _load_page_renderer() -> None:
    from newsletter.publish.page_texts import load_renderer

    load_renderer()


def _load_publishers() -> None:
    # What the pipeline publishes with: the build imports them while the worker summarizes its
    # first posts, having nothing else to do then.
    import newsletter.archive  # noqa: F401


if __name__ == "__main__":
    main()
