"""`newsletter worker`: one of the processes that run the schedule and the mailings of a state
on PostgreSQL, together (newsletter/schedule/worker.py)."""

from __future__ import annotations

import click

from newsletter.cli.base import Context, cli, config_option


@cli.command()
@config_option
@click.pass_obj
def worker(ctx: Context) -> None:
    """Run one worker in the foreground until SIGINT or SIGTERM: [schedule]'s jobs and the mailings.

    Any number of workers, on any number of hosts, share the work through the job queue in
    the state's PostgreSQL database ([state] url); a SQLite state has `newsletter run`.

    Example: newsletter worker --config /etc/newsletter/config.toml
    """
    from newsletter.schedule import worker as workers

    workers.run(ctx.load_config())
