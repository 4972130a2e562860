"""`newsletter posts`: what the state database knows of each post."""

from __future__ import annotations

import json

import click

from newsletter.cli.base import LISTING_SECTIONS, Context, cli, config_option, print_table, when


@cli.command()
@config_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array, an object per post.")
@click.pass_obj
def posts(ctx: Context, as_json: bool) -> None:
    """List every post with its title, date, source, entry, the digests that carried it, and
    why its source's filter skips it (include, exclude, prereleases), if it does.

    On a terminal this is a table; otherwise one tab-separated line per post after a header
    line, "-" for what it does not have (a date the post does not give, a digest not made
    yet, a post no filter skips). --json prints title, published, first_seen, source,
    location, url, entry, digests and skipped (the reason, or null) for each post.

    Example: newsletter posts --json
    """
    from newsletter.state.post_list import listed_posts
    from newsletter.state.store import Store

    config = ctx.load_config(LISTING_SECTIONS)
    listed = []
    if Store.exists(config.state):
        with Store.open(config.state) as store:
            listed = listed_posts(store)
    if as_json:
        click.echo(json.dumps([item.to_json() for item in listed], ensure_ascii=False, indent=2))
        return
    print_table(
        ("title", "published", "source", "location", "entry", "digests", "skipped"),
        [(item.post.summary.title or "-", when(item.post.summary.published), item.post.source,
          item.post.location, item.entry or "-", " ".join(item.digests) or "-", item.skipped or "-")
         for item in listed],
    )
