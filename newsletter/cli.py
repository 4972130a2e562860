"""The command line: thin commands over the library. Only here do errors become one line
and an exit code."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import click
import rich.console
import rich.progress
import rich.table
import rich.text

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.errors import MailServerUnreachable, NewsletterError, PostError
from newsletter.mail import send as mailer
from newsletter.models import SourceResult, SourceStatus
from newsletter.schedule import scheduler
from newsletter.state import subscribers as subscriber_list
from newsletter.state.store import Store
from newsletter.summarize import explain, summarize
from newsletter.text import decode, looks_binary
from newsletter.version import __version__

# Exit status of `send` when some messages are left to retry (sysexits' EX_TEMPFAIL).
EXIT_TRY_AGAIN = 75


class _Context:
    def __init__(self, config_path: Path, verbose: bool):
        self.config_path = config_path
        self.verbose = verbose

    def load_config(self) -> config_module.Config:
        return config_module.load(self.config_path)


class _Commands(click.Group):
    """Reports an error a user can cause as its one-line message, unless --verbose asks for
    the traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except NewsletterError as exc:
            if isinstance(ctx.obj, _Context) and ctx.obj.verbose:
                raise
            raise _UserError(str(exc)) from None


class _UserError(click.ClickException):
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
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(levelname)s: %(message)s" if verbose else "%(message)s",
        stream=sys.stderr,
    )
    ctx.obj = _Context(config_path, verbose)


def _parse_date(_ctx: click.Context, _param: click.Parameter, value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date like 2026-11-01") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@cli.command()
@click.option(
    "--since", callback=_parse_date, metavar="DATE",
    help="Make the digest of every post changed since DATE, even if a digest carried it already.",
)
@click.option("--refetch", is_flag=True,
              help="Read every source in full, even what its server or file says is unchanged.")
@click.pass_obj
def build(ctx: _Context, since: datetime | None, refetch: bool) -> None:
    """Collect every source, summarize what is new, write feeds, digest and index.

    Example: newsletter build --since 2026-11-01
    """
    config = ctx.load_config()
    with _collect_progress(len(config.sources)) as on_collected:
        report = pipeline.build(
            config, now=datetime.now(UTC), since=since, on_collected=on_collected, refetch=refetch,
        )
    digest = f"new digest {report.new_digest}" if report.new_digest else "no new digest"
    click.echo(
        f"{_count(report.posts_seen, 'post')} seen, {report.posts_summarized} summarized, {digest},"
        f" {_count(len(report.problems), 'problem')}; archive: {config.archive_dir}",
        err=True,
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


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
        with Store.open(config.state_path) as store:
            statuses = store.source_statuses()
    header = ("source", "kind", "location", "last success", "last error at", "last error", "posts")
    rows: list[tuple[str, ...]] = []
    for source in config.sources:
        status = statuses.get(source.name)
        rows.append((
            source.name, source.kind, source.location,
            _when(status.last_success if status else None),
            _when(status.last_error_at if status else None),
            (status.last_error if status else None) or "-",
            str(status.posts if status else 0),
        ))
    _print_table(header, rows)


def _print_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    """A table on a terminal; otherwise the header line and one tab-separated line per row."""
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
    try:
        report = mailer.send(config)
    except MailServerUnreachable as exc:
        click.echo(f"error: {exc}; what is not sent is left for the next send", err=True)
        return EXIT_TRY_AGAIN
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
        return 0 if scheduler.run_once(config, now=datetime.now(UTC)) else 1
    scheduler.serve(config)
    return 0


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="The port to listen on.")
@click.pass_obj
def serve(ctx: _Context, host: str, port: int) -> None:
    """Serve the archive, the sign-up form and the unsubscribe links ([web] in the config).

    This runs a small threaded server, fine behind a reverse proxy for a modest list; see
    the README for gunicorn or waitress.

    Example: newsletter serve --port 8080
    """
    # Imported here: only this command needs Flask.
    import werkzeug.serving

    from newsletter import web

    app = web.create_app(ctx.config_path)
    click.echo(f"serving on http://{host}:{port}/ (Ctrl-C stops)", err=True)
    werkzeug.serving.run_simple(host, port, app, threaded=True)


@cli.group(invoke_without_command=True)
@click.pass_context
def subscribers(ctx: click.Context) -> None:
    """List the subscribers with their status; add, remove, import or export them.

    Without a subcommand: list. Addresses in the config (email.subscribers,
    subscribers_file) are listed too; removing one of them keeps it in the file but
    unsubscribed, for good.

    Example: newsletter subscribers remove ada@example.org
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_subscribers)


@contextmanager
def _subscriber_store(config: config_module.Config) -> Iterator[Store]:
    """The state database, where each address the config lists has its row."""
    with Store.open(config.state_path) as store:
        subscriber_list.ensure_listed(store, _listed(config), datetime.now(UTC))
        yield store


def _listed(config: config_module.Config) -> list[str]:
    return [address.addr_spec for address in config.email.subscribers] if config.email else []


@subscribers.command("list")
@click.pass_obj
def list_subscribers(ctx: _Context) -> None:
    """Every address with its status and since when: a table on a terminal, otherwise a
    header line and tab-separated lines. "unlisted" is an address only the config had
    subscribed, which it lists no more."""
    config = ctx.load_config()
    with _subscriber_store(config) as store:
        mailed = subscriber_list.recipients(store, _listed(config))
        rows = [(s.address, s.status if s.status != "active" or s.address in mailed else "unlisted", _when(s.since))
                for s in subscriber_list.every(store)]
    _print_table(("address", "status", "since"), rows)


@subscribers.command("add")
@click.argument("address")
@click.pass_obj
def add_subscriber(ctx: _Context, address: str) -> None:
    """Subscribe ADDRESS without asking them to confirm."""
    key = _parse_address(address)
    with _subscriber_store(ctx.load_config()) as store:
        subscriber, changed = subscriber_list.add(store, key, "added by the operator", datetime.now(UTC))
    if subscriber.status != "active":
        raise _UserError(f"{key} {subscriber.status} on {_when(subscriber.since)} ({subscriber.how});"
                                   " only they can subscribe again, through the sign-up form")
    click.echo(f"{key}: active, without confirmation (added by you)" if changed else f"{key}: active already",
               err=True)


@subscribers.command("remove")
@click.argument("address")
@click.pass_obj
def remove_subscriber(ctx: _Context, address: str) -> None:
    """Unsubscribe ADDRESS for good (the record stays, so no re-import brings it back)."""
    key = _parse_address(address)
    with _subscriber_store(ctx.load_config()) as store:
        subscriber = subscriber_list.get(store, key)
        if subscriber is None:
            raise _UserError(f"{key} is not a subscriber")
        changed = subscriber_list.set_status(store, subscriber.id, "unsubscribed", "removed by the operator",
                                             datetime.now(UTC))
    click.echo(f"{key}: unsubscribed" if changed else f"{key}: unsubscribed already", err=True)


@subscribers.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def import_subscribers(ctx: _Context, file: Path) -> None:
    """Subscribe each new address of FILE (one a line, # comments), without confirmation.
    An address already known keeps its status: an import never resubscribes anyone."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _UserError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    keys = {_parse_address(line, f"{file}:{number}") for number, line in config_module.address_lines(text)}
    with _subscriber_store(ctx.load_config()) as store:
        added = subscriber_list.import_addresses(store, sorted(keys), f"imported from {file.name}", datetime.now(UTC))
        known = [subscriber_list.get(store, key) for key in keys - set(added)]
    active = sum(1 for subscriber in known if subscriber and subscriber.status == "active")
    click.echo(f"{len(added)} added without confirmation, {active} subscribed already,"
               f" {len(known) - active} known and kept as they stand (unsubscribed, bounced, unconfirmed)", err=True)


@subscribers.command("export")
@click.pass_obj
def export_subscribers(ctx: _Context) -> None:
    """Print every address the next digest goes to, one a line: the format of
    subscribers_file and import."""
    config = ctx.load_config()
    with _subscriber_store(config) as store:
        for address in subscriber_list.recipients(store, _listed(config)):
            click.echo(address)


def _parse_address(text: str, where: str = "") -> str:
    address = config_module.parse_address(text)
    if address is None:
        raise _UserError(f"{where + ': ' if where else ''}{text!r} is not an email address")
    return address.addr_spec.lower()


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
    if looks_binary(text):
        raise PostError(f"{file}: binary data, not a text post")
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
    if isinstance(status, int):
        sys.exit(status)
