"""`newsletter sources import FILE`: the feeds of an OPML file, added to config.toml as
[[sources]] tables after what is there (its comments and order kept)."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import click

from newsletter.cli.base import LISTING_SECTIONS, Context, UserError, config_option
from newsletter.cli.commands import sources


@sources.command("import")
@config_option
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.pass_obj
def import_sources(ctx: Context, file: Path) -> None:
    """Add each feed of an OPML FILE (a feed reader's export) as a feed source.

    A feed whose URL a source has already is left out; each new one gets a name made from
    its title. The config file is rewritten whole or not at all.

    Example: newsletter sources import subscriptions.opml
    """
    from newsletter.publish.output import write_atomic
    from newsletter.sources.opml import read_opml
    from newsletter.words import count

    config = ctx.load_config(LISTING_SECTIONS)
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise UserError(f"{file}: cannot read: {exc.strerror or exc}") from None
    feeds, problems = read_opml(data, str(file))
    for problem in problems:
        click.echo(problem, err=True)
    known = {getattr(source, "url", None) for source in config.sources}
    names = {source.name for source in config.sources}
    tables = []
    for feed in feeds:
        if feed.url in known:
            continue
        known.add(feed.url)
        name = _unique(_name_of(feed.title, feed.url), names)
        names.add(name)
        tables.append(f'\n[[sources]]\nname = {_toml(name)}\nkind = "feed"\nurl = {_toml(feed.url)}\n')
    if tables:
        text = config.path.read_text(encoding="utf-8")
        updated = f"{text.rstrip()}\n\n# Imported from {file.name}.{''.join(tables)}"
        try:
            tomllib.loads(updated)
        except tomllib.TOMLDecodeError as exc:  # e.g. sources written as `sources = [...]`
            raise UserError(f"{config.path}: cannot add [[sources]] tables to it ({exc}); nothing changed") from None
        write_atomic(config.path, updated)
    click.echo(f"{count(len(tables), 'feed')} added to {config.path},"
               f" {len(feeds) - len(tables)} already there", err=True)


def _name_of(title: str, url: str) -> str:
    """A short name for `newsletter sources` and the logs: the title's words in lower case
    joined by "-", or the URL's host when the title has none."""
    words = re.findall(r"\w+", title.lower())
    return "-".join(words)[:60].strip("-") or url.split("/")[2]


def _unique(name: str, taken: set[str]) -> str:
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name}-{number}", number + 1
    return candidate


def _toml(value: str) -> str:
    """A TOML basic string: JSON's escapes, all ASCII (TOML refuses a raw DEL)."""
    return json.dumps(value)
