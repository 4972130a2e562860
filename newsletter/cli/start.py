"""`newsletter init`: a commented config.toml and sample posts to start from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from newsletter.cli.base import UserError, cli

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def _starter_files() -> dict[Path, Traversable]:
    """Each file `init` writes, by its path in the new folder."""
    # Imported here: every other command would pay for it (~6 ms) as the program starts.
    from importlib import resources

    examples = resources.files("newsletter.examples")
    files = {Path("config.toml"): examples / "config.toml"}
    files.update({Path("posts", post.name): post for post in (examples / "posts").iterdir() if post.is_file()})
    return files


@cli.command()
@click.argument("folder", metavar="[DIR]", default=".", type=click.Path(file_okay=False, path_type=Path))
def init(folder: Path) -> None:
    """Write a commented config.toml and a folder of sample posts into DIR (here by default).

    Then `newsletter build` in DIR builds the samples into DIR/archive; edit config.toml
    to read your own sources. Nothing is overwritten: if one of the files exists, nothing
    is written.

    Example: newsletter init my-digest
    """
    from newsletter.publish.output import write_atomic

    files = _starter_files()
    existing = [str(folder / name) for name in files if (folder / name).exists()]
    if existing:
        raise UserError(f"{', '.join(existing)}: already there; init overwrites nothing (choose another DIR)")
    for name, source in sorted(files.items()):
        write_atomic(folder / name, source.read_bytes())
    click.echo(f"wrote {folder / 'config.toml'} and {len(files) - 1} sample posts in {folder / 'posts'};"
               f" next: cd {folder} && newsletter build", err=True)
