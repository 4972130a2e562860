"""The command group, its context, and what every command shares: one-line errors and
tables that suit a terminal and a pipe alike."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from newsletter import lazy_re, logs
from newsletter.errors import NewsletterError
from newsletter.version import __version__

if TYPE_CHECKING:
    from newsletter.config import Config
    from newsletter.processes import EarlyWorker

# Exit status of `send` when some messages are left to retry (sysexits' EX_TEMPFAIL).
EXIT_TRY_AGAIN = 75
# What the commands that list sources and posts read of the config: a problem with mail, the
# schedule or the service does not keep them from listing.
LISTING_SECTIONS = frozenset({"sources", "state", "archive"})


class Context:
    def __init__(self, config_path: Path, verbose: bool, early: EarlyWorker | None = None):
        self.config_path = config_path
        self.verbose = verbose
        # The worker `newsletter build` forked as the program started, if it could.
        self.early = early

    def load_config(self, sections: Collection[str] | None = None) -> Config:
        """The configuration; with `sections`, only a problem in those stops the command."""
        # Imported when needed, as the commands import theirs: --version, --help and
        # summarize never read the configuration.
        from newsletter import config

        return config.load(self.config_path, sections)


def _config_after_the_command(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    context = ctx.find_object(Context)
    if value is not None and context is not None:
        context.config_path = value


# `newsletter build --config site.toml` as well as `newsletter --config site.toml build`.
config_option = click.option(
    "--config", type=click.Path(path_type=Path), expose_value=False, callback=_config_after_the_command,
    help="The configuration file, as given before the command.",
)


class _Commands(click.Group):
    """Reports an error a user can cause as its one-line message, unless --verbose asks for
    the traceback."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its first sentence whole, wrapped rather than cut at the line's end."""
        commands = [(name, self.get_command(ctx, name)) for name in self.list_commands(ctx)]
        rows = [(name, command.get_short_help_str(limit=sys.maxsize))
                for name, command in commands if command and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except NewsletterError as exc:
            if isinstance(ctx.obj, Context) and ctx.obj.verbose:
                raise
            raise UserError(str(exc)) from None


class UserError(click.ClickException):
    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"error: {self.message}", err=True)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
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
    logs.configure(verbose)
    # What main() was given to pass on: the build's early worker, or None.
    ctx.obj = Context(config_path, verbose, early=ctx.obj)


def parse_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date like 2026-11-01") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# "7d", "12h", "2w": that long ago.
_AGO = lazy_re.compile(r"(\d+)([hdw])")
_AGO_UNITS = {"h": "hours", "d": "days", "w": "weeks"}


def parse_span(value: str, now: datetime) -> tuple[datetime, datetime]:
    """The span of time a DATE names, in UTC: a year (2022), a month (2022-06), a day
    (2022-06-01, today, yesterday), or a moment (2022-06-01T12:00, or 7d, 12h, 2w ago) as a
    span of no length. ValueError if it names none."""
    word = value.strip().lower()
    if word in ("today", "yesterday"):
        day = datetime.combine(now.astimezone(UTC).date(), time(), UTC)
        day -= timedelta(days=1 if word == "yesterday" else 0)
        return day, day + timedelta(days=1)
    if ago := _AGO.fullmatch(word):
        moment = now - timedelta(**{_AGO_UNITS[ago[2]]: int(ago[1])})
        return moment, moment
    if re.fullmatch(r"\d{4}", word):
        year = int(word)
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    if month := re.fullmatch(r"(\d{4})-(\d{2})", word):
        start = datetime(int(month[1]), int(month[2]), 1, tzinfo=UTC)
        return start, (start + timedelta(days=31)).replace(day=1)
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", word):
        start = datetime.fromisoformat(word).replace(tzinfo=UTC)
        return start, start + timedelta(days=1)
    moment = datetime.fromisoformat(value)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment, moment


def span_option(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[datetime, datetime] | None:
    if value is None:
        return None
    try:
        return parse_span(value, datetime.now(UTC))
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date like 2022-06-01, 2022-06, 2022, yesterday, 7d or 2022-06-01T12:00"
        ) from None


def print_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    """A table on a terminal; otherwise the header line and one tab-separated line per row."""
    if sys.stdout.isatty():
        import rich.console
        import rich.table
        import rich.text

        table = rich.table.Table()
        for name in header:
            # Folded over lines on a narrow terminal, never cut: a location must be read whole.
            table.add_column(name, overflow="fold")
        for row in rows:
            table.add_row(*(rich.text.Text(cell) for cell in row))
        rich.console.Console().print(table)
        return
    for row in (header, *rows):
        click.echo("\t".join(" ".join(cell.split()) for cell in row))


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "-"
