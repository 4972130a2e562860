"""A post's outline: the typed blocks every shape of post is read into."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from newsletter.models import PostFormat


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    urls: tuple[str, ...] = ()
    # Inferred from a plain-text scrape's layout rather than marked up by the author.
    guessed: bool = False
    # A guessed heading a dump sets at the margin over its indented paragraph (lynx indents
    # a page's body): a caption or a button stands at the body's indent, so it is none.
    at_margin: bool = False
    # A short inline element at the heading's edge (a badge, a code span, a superscript):
    # it may hold a maturity label no bracket marks ("Faster sync <Badge text='beta'/>").
    badge: str | None = None


@dataclass(frozen=True)
class Paragraph:
    text: str
    # Bold text opening the paragraph ("**(Beta) X** - ..."); equal to `text` when the
    # paragraph is nothing but bold text.
    lead: str | None = None
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListItem:
    # The item's own text, without its nested lists.
    text: str
    lead: str | None = None
    children: tuple[ListItem, ...] = ()
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class ListBlock:
    items: tuple[ListItem, ...]
    ordered: bool = False
    # Inside a quote or a call-out box: an aside to the post, not its own statement.
    quoted: bool = False


@dataclass(frozen=True)
class Code:
    text: str


Block = Heading | Paragraph | ListBlock | Code


@dataclass(frozen=True)
class Document:
    """A post's outline plus what its wrapper (front matter, HTML head) says about it."""

    format: PostFormat
    blocks: tuple[Block, ...]
    # Metadata as declared: title, author, date, language, canonical_url (strings).
    meta: dict[str, str] = field(default_factory=dict)
    # Why a block that looks like front matter was read as text instead, in one line.
    front_matter_problem: str | None = None

    @property
    def links(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for block in self.blocks:
            for url in _block_urls(block):
                seen.setdefault(url, None)
        return tuple(seen)


def block_text(block: Block) -> str:
    return block.text if isinstance(block, (Heading, Paragraph)) else ""


def list_text(block: Block) -> str:
    return " ".join(item.text for item in block.items) if isinstance(block, ListBlock) else ""


def _block_urls(block: Block) -> Iterator[str]:
    if isinstance(block, ListBlock):
        stack = list(reversed(block.items))
        while stack:
            item = stack.pop()
            yield from item.urls
            stack.extend(reversed(item.children))
    elif not isinstance(block, Code):
        yield from block.urls
