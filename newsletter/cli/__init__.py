"""The command line: thin commands over the library. Only here do errors become one line
and an exit code."""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING

import click

# Importing the command modules registers their commands on the group.
from newsletter.cli import commands, opml, posts, start, subscribers, worker
from newsletter.cli.base import cli

if TYPE_CHECKING:
    from newsletter.processes import EarlyWorker

__all__ = ["cli", "commands", "main", "opml", "posts", "start", "subscribers", "worker"]


def main(early: EarlyWorker | None = None) -> None:
    """Runs the command the arguments name; `build` gets the worker forked for it (see
    newsletter/__main__.py)."""
    try:
        status = cli(standalone_mode=False, obj=early)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    finally:
        # The interpreter's last collections, as it exits, walk every object the command
        # loaded: 0.04 s of a 0.6 s build of one new post. Nothing left needs them (the
        # command closed its files and database), so they are left to the exit itself.
        gc.freeze()
    if isinstance(status, int):
        sys.exit(status)
