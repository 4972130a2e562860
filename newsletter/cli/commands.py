"""The pipeline's commands: build, sources, features, send, run, serve and summarize.

Each command imports the modules it works with when it runs, so that `newsletter --version`,
`--help` and every other command start without loading them all.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from newsletter.cli.base import (
    EXIT_TRY_AGAIN,
    LISTING_SECTIONS,
    Context,
    UserError,
    cli,
    config_option,
    parse_date,
    print_table,
    span_option,
    when,
)
from newsletter.errors import MailError, MailServerUnreachable, PostError
from newsletter.words import count

if TYPE_CHECKING:
    from newsletter.config import Config
    from newsletter.models import SourceResult, SourceStatus


@cli.command()
@config_option
@click.option(
    "--since", callback=parse_date, metavar="DATE",
    help="Make a digest of every post changed (not published) since DATE, even if a digest carried it"
         " already. It is recorded like any digest, and the next send mails it to everyone: for a"
         " digest to look at or forward, use `newsletter digest --from DATE`.",
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
    with _build_progress(len(config.sources)) as (on_collected, on_posts_done):
        report = pipeline.build(
            config, now=datetime.now(UTC), since=since, on_collected=on_collected, refetch=refetch,
            on_posts_done=on_posts_done, early=ctx.early,
        )
    digest = f"new digest {report.new_digest}" if report.new_digest else "no new digest"
    click.echo(
        f"{count(report.posts_seen, 'post')} seen, {report.posts_summarized} summarized, {digest},"
        f" {count(len(report.problems), 'problem')}; archive: {config.archive_dir}",
        err=True,
    )


@contextmanager
def _build_progress(sources: int) -> Iterator[tuple[Callable[[SourceResult], None] | None,
                                                   Callable[[int], None] | None]]:
    """On a terminal only: a bar over the sources being collected, then a count of the posts
    read and summarized, which moves through a single folder of a thousand posts too."""
    if not sys.stderr.isatty():
        yield None, None
        return
    import rich.console
    import rich.progress

    console = rich.console.Console(stderr=True)
    columns = (*rich.progress.Progress.get_default_columns(), rich.progress.MofNCompleteColumn())
    with rich.progress.Progress(*columns, console=console, transient=True) as progress:
        collecting = progress.add_task("Collecting sources", total=sources)
        # How many posts there are is known only once every source is read through.
        posts = progress.add_task("Reading posts", total=None)

        def source_collected(_result: SourceResult) -> None:
            progress.advance(collecting)

        def posts_done(number: int) -> None:
            progress.advance(posts, number)

        # Log lines go through the display (it stands in for sys.stderr now), above the bars.
        handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
        streams = [handler.stream for handler in handlers]
        for handler in handlers:
            handler.setStream(sys.stderr)
        try:
            yield source_collected, posts_done
        finally:
            for handler, stream in zip(handlers, streams, strict=True):
                handler.setStream(stream)


@cli.command("digest")
@config_option
@click.option("--from", "start", required=True, callback=span_option, metavar="DATE",
              help="The first day (or month, year, moment) of the posts' publication.")
@click.option("--to", "end", callback=span_option, metavar="DATE",
              help="The last day (or month, year; a moment: up to it) [default: now].")
@click.option("--source", "source_names", multiple=True, metavar="NAME",
              help="Only the posts of this source; may be given more than once.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Where the digest is written"
              " [default: one-off/ beside the state file, or the config on PostgreSQL].")
@click.pass_obj
def one_off_digest(
    ctx: Context, start: tuple[datetime, datetime], end: tuple[datetime, datetime] | None,
    source_names: tuple[str, ...], out: Path | None,
) -> None:
    """Write a digest of the posts published in a span of time: HTML, text and .eml.

    It is made of the posts the builds collected, recorded nowhere and mailed to no one.
    DATE is a day (2022-06-01), a month (2022-06), a year (2022), today, yesterday, a time
    ago (7d, 12h, 2w) or a moment (2022-06-01T12:00), in UTC.

    Example: newsletter digest --from 2022-06 --to 2022-08 --out summer
    """
    from newsletter import oneoff

    config = ctx.load_config()
    unknown = sorted(set(source_names) - {source.name for source in config.sources})
    if unknown:
        raise click.BadParameter(f"no source is named {', '.join(map(repr, unknown))}", param_hint="--source")
    folder = out or config.output_dir / "one-off"
    written = oneoff.write_published(config, folder, datetime.now(UTC), start[0], end[1] if end else None,
                                     source_names)
    _report_written(written, "no post was published then")


@cli.command()
@config_option
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Where the preview is written"
              " [default: preview/ beside the state file, or the config on PostgreSQL].")
@click.pass_obj
def preview(ctx: Context, out: Path | None) -> None:
    """Collect every source, then write the digest the next build would make: HTML, text and .eml.

    The posts are collected and the feeds brought up to date, as the scheduled collect job
    does; the digest is written to DIR as preview.html, .txt and .eml, and not recorded.

    Example: newsletter preview --out /tmp/preview
    """
    from newsletter import oneoff, pipeline

    config = ctx.load_config()
    with _build_progress(len(config.sources)) as (on_collected, on_posts_done):
        pipeline.build(config, now=datetime.now(UTC), make_digest=False, on_collected=on_collected,
                       on_posts_done=on_posts_done)
    folder = out or config.output_dir / "preview"
    _report_written(oneoff.write_preview(config, folder, datetime.now(UTC)),
                    "nothing new: the next build makes no digest")


def _report_written(written: tuple[Path, int] | None, nothing: str) -> None:
    if written is None:
        click.echo(f"{nothing}; nothing written", err=True)
        return
    html, posts = written
    click.echo(f"{count(posts, 'post')}: {html} (and .txt, .eml beside it); nothing recorded or sent", err=True)


@cli.group(invoke_without_command=True)
@config_option
@click.option("--opml", "as_opml", is_flag=True, help="Print the feed and page sources as an OPML document.")
@click.pass_context
def sources(click_context: click.Context, as_opml: bool) -> None:
    """List each source with its kind, location, last success, last error and post count.

    On a terminal this is a table; otherwise one tab-separated line per source, after a
    header line, with "-" for what never happened. --opml prints the feed and page sources
    for a feed reader; `sources import FILE` adds the feeds of an OPML file.

    Example: newsletter sources --opml > subscriptions.opml
    """
    from newsletter.state.store import Store

    if click_context.invoked_subcommand is not None:
        return
    context: Context = click_context.obj
    config = context.load_config(LISTING_SECTIONS)
    if as_opml:
        from newsletter.sources.opml import write_opml

        click.echo(write_opml(config.site.title, config.sources).decode("utf-8"), nl=False)
        folders = sum(source.kind == "folder" for source in config.sources)
        if folders:
            click.echo(f"{count(folders, 'folder source')} left out: a folder has no address to share", err=True)
        return
    statuses: dict[str, SourceStatus] = {}
    if Store.exists(config.state):
        with Store.open(config.state) as store:
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
    if Store.exists(config.state):
        with Store.open(config.state) as store:
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
        click.echo(f"{shown.project} ({count(len(shown.releases), 'release')})")
        for feature in shown.features:
            labels = " → ".join(f"{s.stability or '-'} ({s.release.title})" for s in feature.sightings)
            click.echo(f"  {feature.heading}: {labels}")


@cli.command()
@config_option
@click.option("--dry-run", is_flag=True, help="Write the messages as .eml files; send and record nothing.")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
    help="Where --dry-run writes [default: dry-run/ beside the state file, or the config on PostgreSQL].",
)
@click.option("--test", "test_address", metavar="ADDR",
              help="Mail the newest digest to ADDR alone, outside the outbox: no subscriber's mailing changes.")
@click.pass_obj
def send(ctx: Context, dry_run: bool, out: Path | None, test_address: str | None) -> int:
    """Mail the newest digest to every subscriber it has not reached yet, and post it to every delivery.

    A batch cut short (killed, or a server that stays away) is finished by the next send;
    no subscriber gets a digest twice, nor a chat room or webhook (see the README for the
    one window). Exits with 75 whenever messages or posts are left for a later send:
    deferred by the server, the server away or refusing the session, a run stopped; with 1
    when a delivery is not set up or was refused.

    Example: newsletter send --dry-run
    """
    from newsletter.config import parse_address
    from newsletter.mail import send as mailer

    config = ctx.load_config()
    if test_address is not None:
        address = parse_address(test_address)
        if address is None:
            raise click.BadParameter(f"{test_address!r} is not a mail address", param_hint="--test")
        try:
            name = mailer.send_test(config, address)
        except MailServerUnreachable as exc:
            click.echo(f"error: {exc}", err=True)
            return EXIT_TRY_AGAIN
        click.echo(f"digest {name} sent to {address.addr_spec} as a test; no mailing recorded", err=True)
        return 0
    if dry_run:
        folder = out or config.output_dir / "dry-run"
        written = mailer.write_dry_run(config, folder)
        if config.email is None:
            click.echo(f"no [email] section: written as from {mailer.stand_in_email(config).sender.addr_spec}"
                       " to the subscribers of the state database", err=True)
        click.echo(f"{count(len(written), 'message')} written to {folder}; nothing sent", err=True)
        return 0
    delivered = _deliver(config) if config.deliveries else 0
    if config.email is None and config.deliveries:
        return delivered
    try:
        report = mailer.send(config)
    except MailError as exc:
        # A server that is away, or turns the session away, leaves the messages for later;
        # so does one that stops a mailing half-way for any other reason.
        if not isinstance(exc, MailServerUnreachable) and not mailer.messages_left(config):
            raise
        click.echo(f"error: {exc}; what is not sent is left for the next send", err=True)
        return EXIT_TRY_AGAIN
    click.echo(mailer.describe(report), err=True)
    left = report.interrupted or any(m.deferred for m in report.mailings)
    # Something left for later outranks a broken delivery: a later send is what finishes it.
    return max(delivered, EXIT_TRY_AGAIN if left else 0)


def _deliver(config: Config) -> int:
    """Post the digests each delivery is owed; the exit status it makes."""
    from newsletter.deliver import outbox

    report = outbox.deliver(config)
    click.echo(outbox.describe(report), err=True)
    return EXIT_TRY_AGAIN if report.waiting else 1 if report.broken else 0


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
    from newsletter.text.encoding import decode, looks_binary

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
