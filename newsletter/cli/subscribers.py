"""`newsletter subscribers`: the list as the state database keeps it.

As in commands.py, each command imports the state and configuration modules when it runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from newsletter.cli.base import Context, UserError, cli, config_option, print_table, when

if TYPE_CHECKING:
    from newsletter.config import Config
    from newsletter.state.store import Store


# What the subscriber commands read of the config: a problem with the schedule, the sources
# or the fetching does not keep them from managing the list.
_SECTIONS = frozenset({"email", "web", "state", "archive"})


@cli.group(invoke_without_command=True)
@config_option
@click.pass_context
def subscribers(ctx: click.Context) -> None:
    """List the subscribers with their status and slice; add, remove, import or export them,
    or set what of each digest one gets.

    Without a subcommand: list. Addresses in the config (email.subscribers,
    subscribers_file) are listed too; removing one of them keeps it in the file but
    unsubscribed, for good.

    Example: newsletter subscribers remove ada@example.org
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_subscribers)


@contextmanager
def _subscriber_store(config: Config) -> Iterator[Store]:
    """The state database, where each address the config lists has its row."""
    from newsletter.state import subscribers as subscriber_list
    from newsletter.state.store import Store

    with Store.open(config.state) as store:
        subscriber_list.ensure_listed(store, _listed(config), datetime.now(UTC))
        yield store


def _listed(config: Config) -> list[str]:
    return [address.addr_spec for address in config.email.subscribers] if config.email else []


@subscribers.command("list")
@config_option
@click.pass_obj
def list_subscribers(ctx: Context) -> None:
    """Every address with its status, since when and its slice: a table on a terminal,
    otherwise a header line and tab-separated lines. "unlisted" is an address only the
    config had subscribed, which it lists no more."""
    from newsletter.publish.slices import slice_text
    from newsletter.state import subscribers as subscriber_list

    config = ctx.load_config(_SECTIONS)
    with _subscriber_store(config) as store:
        mailed = subscriber_list.recipients(store, _listed(config))
        rows = [(s.address, s.status if s.status != "active" or s.address in mailed else "unlisted", when(s.since),
                 slice_text(s.slice)) for s in subscriber_list.every(store)]
    print_table(("address", "status", "since", "slice"), rows)


@subscribers.command("add")
@config_option
@click.argument("address")
@click.pass_obj
def add_subscriber(ctx: Context, address: str) -> None:
    """Subscribe ADDRESS without asking them to confirm."""
    from newsletter.state import subscribers as subscriber_list

    key = _parse_address(address)
    with _subscriber_store(ctx.load_config(_SECTIONS)) as store:
        subscriber, changed = subscriber_list.add(store, key, "added by the operator", datetime.now(UTC))
    if subscriber.status != "active":
        raise UserError(f"{key} {subscriber.status} on {when(subscriber.since)} ({subscriber.how});"
                                   " only they can subscribe again, through the sign-up form")
    click.echo(f"{key}: active, without confirmation (added by you)" if changed else f"{key}: active already",
               err=True)


@subscribers.command("set")
@config_option
@click.argument("address")
@click.option("--min-stability", type=click.Choice(["stable", "beta", "all"]),
              help="The least maturity of the features they get; all: prototypes and experiments too.")
@click.option("--project", "projects", multiple=True, metavar="NAME",
              help="Only posts of this project (as `newsletter features` names it); repeat for more.")
@click.option("--section", "sections", multiple=True, metavar="NAME",
              help="Only features under this section heading; repeat for more.")
@click.option("--clear", is_flag=True, help="Back to everything first; the other options then apply.")
@click.pass_obj
def set_slice(ctx: Context, address: str, min_stability: str | None, projects: tuple[str, ...],
              sections: tuple[str, ...], clear: bool) -> None:
    """Set what of each digest ADDRESS gets, from the next message on. An option not given
    keeps what was chosen; --project or --section given replaces that list.

    Example: newsletter subscribers set ada@example.org --min-stability beta --project Kite
    """
    from dataclasses import replace

    from newsletter.models import MinStability, Slice
    from newsletter.publish.slices import slice_text
    from newsletter.state import subscribers as subscriber_list

    key = _parse_address(address)
    with _subscriber_store(ctx.load_config(_SECTIONS)) as store:
        subscriber = subscriber_list.get(store, key)
        if subscriber is None:
            raise UserError(f"{key} is not a subscriber")
        chosen = Slice() if clear else subscriber.slice
        if min_stability:
            least: dict[str, MinStability | None] = {"stable": "stable", "beta": "beta", "all": None}
            chosen = replace(chosen, min_stability=least[min_stability])
        if projects:
            chosen = replace(chosen, projects=frozenset(p.strip() for p in projects if p.strip()))
        if sections:
            chosen = replace(chosen, sections=frozenset(s.strip() for s in sections if s.strip()))
        subscriber_list.set_slice(store, subscriber.id, chosen)
    click.echo(f"{key}: gets {slice_text(chosen)}", err=True)


@subscribers.command("remove")
@config_option
@click.argument("address")
@click.pass_obj
def remove_subscriber(ctx: Context, address: str) -> None:
    """Unsubscribe ADDRESS for good (the record stays, so no re-import brings it back)."""
    from newsletter.state import subscribers as subscriber_list

    key = _parse_address(address)
    with _subscriber_store(ctx.load_config(_SECTIONS)) as store:
        subscriber = subscriber_list.get(store, key)
        if subscriber is None:
            raise UserError(f"{key} is not a subscriber")
        changed = subscriber_list.set_status(store, subscriber.id, "unsubscribed", "removed by the operator",
                                             datetime.now(UTC))
    click.echo(f"{key}: unsubscribed" if changed else f"{key}: unsubscribed already", err=True)


@subscribers.command("import")
@config_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def import_subscribers(ctx: Context, file: Path) -> None:
    """Subscribe each new address of FILE (one a line, # comments), without confirmation.
    An address already known keeps its status: an import never resubscribes anyone."""
    from newsletter.config import address_lines
    from newsletter.state import subscribers as subscriber_list

    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    keys = {_parse_address(line, f"{file}:{number}") for number, line in address_lines(text)}
    with _subscriber_store(ctx.load_config(_SECTIONS)) as store:
        added = subscriber_list.import_addresses(store, sorted(keys), f"imported from {file.name}", datetime.now(UTC))
        known = [subscriber_list.get(store, key) for key in keys - set(added)]
    active = sum(1 for subscriber in known if subscriber and subscriber.status == "active")
    click.echo(f"{len(added)} added without confirmation, {active} subscribed already,"
               f" {len(known) - active} known and kept as they stand (unsubscribed, bounced, unconfirmed)", err=True)


@subscribers.command("export")
@config_option
@click.pass_obj
def export_subscribers(ctx: Context) -> None:
    """Print every address the next digest goes to, one a line: the format of
    subscribers_file and import."""
    from newsletter.state import subscribers as subscriber_list

    config = ctx.load_config(_SECTIONS)
    with _subscriber_store(config) as store:
        for address in subscriber_list.recipients(store, _listed(config)):
            click.echo(address)


def _parse_address(text: str, where: str = "") -> str:
    from newsletter.config import parse_address

    address = parse_address(text)
    if address is None:
        raise UserError(f"{where + ': ' if where else ''}{text!r} is not an email address")
    return address.addr_spec.lower()
