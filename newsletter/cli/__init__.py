"""The command line: thin commands over the library. Only here do errors become one line
and an exit code."""

from __future__ import annotations

import sys

import click

# Importing the command modules registers their commands on the group.
from newsletter.cli import commands, opml, posts, start, subscribers, worker
from newsletter.cli.base import cli

__all__ = ["cli", "commands", "main", "opml", "posts", "start", "subscribers", "worker"]


def main() -> None:
    try:
        status = cli(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    if isinstance(status, int):
        sys.exit(status)
