"""The command line: thin commands over the library. Only here do errors become one line
and an exit code."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import click
import rich.console
import rich.progress
import rich.table
import rich.text

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.config import ConfigError
from newsletter.mail import send as mailer
from newsletter.mail.send import MailError
from newsletter.models import SourceResult, SourceStatus
from newsletter.publish.digest import TemplateError
from newsletter.publish.output import PublishError
from newsletter.schedule import scheduler
from newsletter.schedule.scheduler import ScheduleError
from newsletter.state.lock import LockError
from newsletter.state.store import Store, StoreError
from newsletter.summarize import explain, summarize
from newsletter.text import decode
from newsletter.version import __version__

# Errors a user can cause that stop the whole run; each is reported as its message alone.
USER_ERRORS = (
    ConfigError, LockError, PublishError, StoreError, TemplateError, MailError, ScheduleError,
)
# Exit status of `send` when some messages are left to retry (sysexits' EX_TEMPFAIL).
EXIT_TRY_AGAIN = 75


class _Context:
    def __init__(self, config_path: Path, verbose: bool):
        self.config_path = config_path
        self.verbose = verbose

    def load_config(self) -> config_module.Config:
        return config_module.load(self.config_path)


@click.group()
@click.version_option(__version__, prog_name="newsletter")
@click.option(
    "--config", "config_path", type=click.Path(path_type=Path), default="config.toml",
    show_default=True, help="The configuration file.",
)
@click.option("-v", "--verbose", is_flag=True, help="Log more, and show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, config_path: Path, verbose: bool) -> None:
    """Turn release announcements into Atom feeds and email digests.

    Example: newsletter --config config.toml build
    """
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(levelname)s: %(message)s" if verbose else "%(message)s",
        stream=sys.stderr,
    )
    ctx.obj = _Context(config_path, verbose)


def _parse_date(_ctx, _param, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date like 2026-11-01") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@cli.command()
@click.option(
    "--since", callback=_parse_date, metavar="DATE",
    help="Make the digest of every post changed since DATE, even if a digest carried it already.",
)
@click.pass_obj
def build(ctx: _Context, since: datetime | None) -> None:
    """Collect every source, summarize what is new, write feeds, digest and index.

    Example: newsletter build --since 2026-11-01
    """
    config = ctx.load_config()
    with _collect_progress(len(config.sources)) as on_collected:
        report = pipeline.build(
            config, now=datetime.now(timezone.utc), since=since, on_collected=on_collected,
        )
    digest = f"new digest {report.new_digest}" if report.new_digest else "no new digest"
    click.echo(
        f"{report.posts_seen} posts seen, {report.posts_summarized} summarized, {digest},"
        f" {len(report.problems)} problems; archive: {config.archive_dir}",
        err=True,
    )


@contextmanager
def _collect_progress(total: int) -> Iterator[Callable[[SourceResult], None] | None]:
    """A progress bar over the sources being collected, on a terminal only."""
    if not sys.stderr.isatty():
        yield None
        return
    console = rich.console.Console(stderr=True)
    with rich.progress.Progress(console=console, transient=True) as progress:
        task = progress.add_task("Collecting sources", total=total)

        def advance(_result: SourceResult) -> None:
            progress.advance(task)
            if progress.finished:
                # Gone before the build logs what went wrong, so lines do not mix.
                progress.stop()

        yield advance


@cli.command()
@click.pass_obj
def sources(ctx: _Context) -> None:
    """List each source with its kind, location, last success, last error and post count.

    On a terminal this is a table; otherwise one tab-separated line per source, after a
    header line, with "-" for what never happened.

    Example: newsletter sources
    """
    config = ctx.load_config()
    statuses: dict[str, SourceStatus] = {}
    if config.state_path.exists():
        store = Store.open(config.state_path)
        try:
            statuses = store.source_statuses()
        finally:
            store.close()
    header = ("source", "kind", "location", "last success", "last error at", "last error", "posts")
    rows = []
    for source in config.sources:
        status = statuses.get(source.name)
        rows.append((
            source.name, source.kind, str(source.url or source.path),
            _when(status.last_success if status else None),
            _when(status.last_error_at if status else None),
            (status.last_error if status else None) or "-",
            str(status.posts if status else 0),
        ))
    if sys.stdout.isatty():
        table = rich.table.Table(*header)
        for row in rows:
            table.add_row(*(rich.text.Text(cell) for cell in row))
        rich.console.Console().print(table)
        return
    for row in (header, *rows):
        click.echo("\t".join(" ".join(cell.split()) for cell in row))


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "-"


@cli.command()
@click.option("--dry-run", is_flag=True, help="Write the messages as .eml files; send and record nothing.")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
    help="Where --dry-run writes [default: dry-run/ beside the state database].",
)
@click.pass_obj
def send(ctx: _Context, dry_run: bool, out: Path | None) -> int:
    """Mail the newest digest to every subscriber it has not reached yet.

    A batch cut short (killed, or a server that stays away) is finished by the next send;
    no subscriber gets a digest twice. Exits with 75 when some messages are left to retry.

    Example: newsletter send --dry-run
    """
    config = ctx.load_config()
    if dry_run:
        folder = out or config.state_path.parent / "dry-run"
        written = mailer.write_dry_run(config, folder)
        click.echo(f"{len(written)} messages written to {folder}; nothing sent", err=True)
        return 0
    report = mailer.send(config)
    click.echo(mailer.describe(report), err=True)
    left = report.interrupted or any(m.deferred for m in report.mailings)
    return EXIT_TRY_AGAIN if left else 0


@cli.command()
@click.option("--once", is_flag=True, help="Run each job that is due once, then exit (for cron).")
@click.pass_obj
def run(ctx: _Context, once: bool) -> int:
    """Run the [schedule] in the foreground until SIGINT or SIGTERM.

    A run whose time passed while nothing was running is made up at start (within
    schedule.misfire_grace_minutes), once.

    Example: newsletter run --once
    """
    config = ctx.load_config()
    if once:
        return 0 if scheduler.run_once(config, now=datetime.now(timezone.utc)) else 1
    scheduler.serve(config)
    return 0


@cli.command("summarize")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--explain", "explain_roles", is_flag=True,
              help="Print every heading with the role given to it and the rule that decided, one per line.")
def summarize_command(file: Path, as_json: bool, explain_roles: bool) -> None:
    """Summarize one post file: title, highlight bullets and features.

    Example: newsletter summarize examples/posts/lumen-2.0.md --json
    """
    text = decode(file.read_bytes())
    if explain_roles:
        for role in explain(text):
            label = f" [{role.stability}]" if role.stability else ""
            section = f" in {role.section!r}" if role.section and role.role.startswith("feature") else ""
            click.echo(f"{role.role:<19} {role.text}{label}{section}  ({role.reason})")
        return
    summary = summarize(text)
    if as_json:
        click.echo(json.dumps(summary.to_json(), ensure_ascii=False, indent=2))
        return
    click.echo(summary.title or file.name)
    for bullet in summary.summary_bullets:
        click.echo(f"  * {bullet}")
    for feature in summary.features:
        label = f" [{feature.stability}]" if feature.stability else ""
        section = f"{feature.section}: " if feature.section else ""
        click.echo(f"  - {section}{feature.heading}{label}")


def main() -> None:
    try:
        status = cli(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except USER_ERRORS as exc:
        if "-v" in sys.argv or "--verbose" in sys.argv:
            raise
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    if isinstance(status, int):
        sys.exit(status)
