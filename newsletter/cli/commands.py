"""The pipeline's commands: build, sources, features, send, run, serve and summarize.

Each command imports the modules it works with when it runs, so that `newsletter --version`,
`--help` and every other command start without loading them all.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from newsletter.cli.base import (
    EXIT_TRY_AGAIN,
    Context,
    UserError,
    cli,
    config_option,
    parse_date,
    print_table,
    when,
)
from newsletter.errors import MailServerUnreachable, PostError

if TYPE_CHECKING:
    from newsletter.models import SourceResult, SourceStatus


@cli.command()
@config_option
@click.option(
    "--since", callback=parse_date, metavar="DATE",
    help="Make the digest of every post changed since DATE, even if a digest carried it already.",
)
@click.option("--refetch", is_flag=True,
              help="Read every source in full, even what its server or file says is unchanged.")
@click.pass_obj
def build(ctx: Context, since: datetime | None, refetch: bool) -> None:
    """Collect every source, summarize what is new, write feeds, digest and index.

    Example: newsletter build --since 2026-11-01
    """
    from newsletter import pipeline

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
    import rich.console
    import rich.progress

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
@config_option
@click.pass_obj
def sources(ctx: Context) -> None:
    """List each source with its kind, location, last success, last error and post count.

    On a terminal this is a table; otherwise one tab-separated line per source, after a
    header line, with "-" for what never happened.

    Example: newsletter sources
    """
    from newsletter.state.store import Store

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
            when(status.last_success if status else None),
            when(status.last_error_at if status else None),
            (status.last_error if status else None) or "-",
            str(status.posts if status else 0),
        ))
    print_table(header, rows)


@cli.command()
@config_option
@click.option("--project", metavar="NAME", help="Only this project's features (any case).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list: one object per feature.")
@click.pass_obj
def features(ctx: Context, project: str | None, as_json: bool) -> None:
    """Show every feature's label in each release of its project, as of the last build.

    Each line is a feature, then its label in each post that announced it, oldest first
    ("-" for none); a change of label is a transition. With --json, each feature is
    {"project", "heading", "history": [...], "transitions": [...]}.

    Example: newsletter features --project Lumen
    """
    from newsletter import history
    from newsletter.state.entry_index import EntryIndex
    from newsletter.state.store import Store

    config = ctx.load_config()
    appearances = []
    if config.state_path.exists():
        with Store.open(config.state_path) as store:
            appearances = EntryIndex(store).appearances()
    projects = history.histories(appearances, config.source_projects)
    if project is not None:
        chosen = [p for p in projects if p.project.casefold() == project.casefold()]
        if not chosen:
            known = ", ".join(p.project for p in projects) or "none yet (run newsletter build)"
            raise UserError(f"no project named {project!r}; the projects are: {known}")
        projects = chosen
    if as_json:
        click.echo(json.dumps([f.to_json() for p in projects for f in p.features], ensure_ascii=False, indent=2))
        return
    for shown in projects:
        click.echo(f"{shown.project} ({_count(len(shown.releases), 'release')})")
        for feature in shown.features:
            labels = " → ".join(f"{s.stability or '-'} ({s.release.title})" for s in feature.sightings)
            click.echo(f"  {feature.heading}: {labels}")


@cli.command()
@config_option
@click.option("--dry-run", is_flag=True, help="Write the messages as .eml files; send and record nothing.")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
    help="Where --dry-run writes [default: dry-run/ beside the state database].",
)
@click.pass_obj
def send(ctx: Context, dry_run: bool, out: Path | None) -> int:
    """Mail the newest digest to every subscriber it has not reached yet.

    A batch cut short (killed, or a server that stays away) is finished by the next send;
    no subscriber gets a digest twice. Exits with 75 when some messages are left to retry.

    Example: newsletter send --dry-run
    """
    from newsletter.mail import send as mailer

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
@config_option
@click.option("--once", is_flag=True, help="Run each job that is due once, then exit (for cron).")
@click.pass_obj
def run(ctx: Context, once: bool) -> int:
    """Run the [schedule] in the foreground until SIGINT or SIGTERM.

    A run whose time passed while nothing was running is made up at start (within
    schedule.misfire_grace_minutes), once.

    Example: newsletter run --once
    """
    from newsletter.schedule import scheduler

    config = ctx.load_config()
    if once:
        return 0 if scheduler.run_once(config, now=datetime.now(UTC)) else 1
    scheduler.serve(config)
    return 0


@cli.command()
@config_option
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), help="The port to listen on.")
@click.pass_obj
def serve(ctx: Context, host: str, port: int) -> None:
    """Serve the archive, the sign-up form and the unsubscribe links ([web] in the config).

    This runs a small threaded server, fine behind a reverse proxy for a modest list; see
    the README for gunicorn or waitress.

    Example: newsletter serve --port 8080
    """
    import werkzeug.serving

    from newsletter import web

    app = web.create_app(ctx.config_path)
    click.echo(f"serving on http://{host}:{port}/ (Ctrl-C stops)", err=True)
    werkzeug.serving.run_simple(host, port, app, threaded=True)


@cli.command("summarize")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--explain", "explain_roles", is_flag=True,
              help="Print every heading with the role given to it and the rule that decided, one per line.")
def summarize_command(file: Path, as_json: bool, explain_roles: bool) -> None:
    """Summarize one post file: title, highlight bullets and features.

    Example: newsletter summarize examples/posts/lumen-2.0.md --json
    """
    from newsletter.summarize import explain, summarize
    from newsletter.text import decode, looks_binary

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
