"""Synthetic release posts, shaped and sized like real announcements, deterministic by seed.

A post is a YAML front matter block, an introduction with links, a highlight list, then
sections of feature headings labeled in the bracket styles real projects use ("(Beta) X",
"[Stable] X", "X (Prototype)", ...), each with paragraphs, lists and code blocks whose lines
are mostly `#` comments. Post `i` of seed `s` depends on nothing else, so a corpus of 1,000
posts is the first 1,000 posts of the corpus of 10,000.

The same post is written in three forms: newsletter's Markdown (YAML front matter), Pelican's
Markdown (its `Key: value` metadata header, the very same body) and HTML (for feed entries).

    python3 bench/corpus.py OUT_DIR --posts 1000 [--seed 7] [--form newsletter|pelican]
"""

from __future__ import annotations

import argparse
import html
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

FIRST_DATE = datetime(2020, 1, 6, 9, 0, tzinfo=UTC)
POST_SIZES = (10_000, 37_000)

_SYLLABLES = "lu men tern ka ro vi sa no qua zel bri ta mo fen dra pi or ux cal ith".split()
_WORDS = """
query planner join index cache storage engine stream window schema table column row batch
driver client server cluster node shard replica leader follower log snapshot compaction
parser compiler runtime kernel tensor graph module plugin extension backend frontend api
config option flag default timeout retry buffer queue worker thread process memory disk
latency throughput request response session token secret policy rule filter metric trace
span event alert dashboard export import format codec encoder decoder parquet arrow json
yaml toml protocol transport socket stream upgrade migration release version patch build
test coverage benchmark profile debug warning error crash fix regression support platform
arm64 windows macos linux container image registry network proxy gateway router handler
is are now can will faster smaller safer simpler new improved better fully optional stable
the a an of to in for with on by from into over under when while after before without
users developers operators contributors maintainers teams projects applications services
reads writes runs starts stops checks builds sends receives returns accepts rejects keeps
""".split()
_AREAS = """Query engine|Storage|Networking|Developer tools|Language bindings|Observability
|Security|Performance|Packaging|Documentation|Distributed training|Frontend APIs|Runtime
|Command line|Deprecations|Compiler|Ecosystem""".replace("\n", "").split("|")
_CODE_LANGS = ("python", "bash", "sql", "toml")
_COMMENT = {"python": "#", "bash": "#", "sql": "--", "toml": "#"}
_STABILITIES = ("Stable", "Beta", "Prototype", "Beta", "Stable", "Alpha", "Experimental")
# How a heading carries its label; None leaves the heading unlabeled.
_LABEL_STYLES = ("({} {})", "[{} {}]", "{1} ({0})", "{1} [{0}]", "{} {}", None)


@dataclass(frozen=True)
class Post:
    slug: str
    title: str
    author: str
    date: datetime
    # Markdown body, shared by every form; inline markup is links and `code` only.
    body: str


def make_post(seed: int, index: int, sizes: tuple[int, int] = POST_SIZES) -> Post:
    rng = random.Random(seed * 1_000_003 + index)
    project = "".join(rng.choice(_SYLLABLES) for _ in range(2)).capitalize() + f"-{index}"
    version = f"{rng.randint(0, 9)}.{rng.randint(0, 30)}"
    features = [_phrase(rng, 3, 6) for _ in range(3)]
    title = f"{project} {version}: {features[0]}, {features[1]} and {features[2]}"
    target = rng.randint(*sizes)
    blocks = [
        _paragraph(rng, project, sentences=4),
        "Highlights:\n" + "\n".join(f"- {_sentence(rng, project)}" for _ in range(rng.randint(4, 8))),
    ]
    size, left_in_section = sum(map(len, blocks)), 0
    while size < target:
        if not left_in_section:
            blocks.append(f"## {rng.choice(_AREAS)}")
            left_in_section = rng.randint(2, 4)
        feature = _feature(rng, project)
        blocks.extend(feature)
        size += sum(len(b) + 2 for b in feature)
        left_in_section -= 1
    blocks.append(f"Thanks to every contributor to {project} {version}.")
    return Post(
        slug=f"{project.lower()}-{version}",
        title=title,
        author=f"The {project.split('-')[0]} team",
        date=FIRST_DATE + timedelta(hours=6 * index),
        body="\n\n".join(blocks) + "\n",
    )


def _words(rng: random.Random, low: int, high: int) -> list[str]:
    return rng.choices(_WORDS, k=rng.randint(low, high))


def _phrase(rng: random.Random, low: int, high: int) -> str:
    return " ".join(_words(rng, low, high)).capitalize()


def _sentence(rng: random.Random, project: str) -> str:
    words = _words(rng, 8, 22)
    spot = rng.randrange(len(words))
    kind = rng.random()
    if kind < 0.2:
        words[spot] = f"[{words[spot]}](https://{project.lower()}.example.org/docs/{words[spot]})"
    elif kind < 0.4:
        words[spot] = f"`{words[spot]}()`"
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, project: str, sentences: int) -> str:
    return " ".join(_sentence(rng, project) for _ in range(sentences))


def _heading(rng: random.Random) -> str:
    name = _phrase(rng, 2, 5)
    style = rng.choice(_LABEL_STYLES)
    return name if style is None else style.format(rng.choice(_STABILITIES), name)


def _code_block(rng: random.Random) -> str:
    lang = rng.choice(_CODE_LANGS)
    lines = []
    for _ in range(rng.randint(6, 24)):
        if rng.random() < 0.5:
            # Comments that look like headings: they must never be taken for one.
            lines.append(f"{_COMMENT[lang]} {_phrase(rng, 3, 10)}")
        else:
            lines.append(f"{rng.choice(_WORDS)}_{rng.choice(_WORDS)} = {rng.randint(0, 999)}")
    return f"```{lang}\n" + "\n".join(lines) + "\n```"


def _feature(rng: random.Random, project: str) -> list[str]:
    blocks = [f"### {_heading(rng)}"]
    for _ in range(rng.randint(1, 3)):
        blocks.append(_paragraph(rng, project, sentences=rng.randint(3, 7)))
    if rng.random() < 0.4:
        blocks.append("\n".join(f"- {_sentence(rng, project)}" for _ in range(rng.randint(2, 5))))
    if rng.random() < 0.6:
        blocks.append(_code_block(rng))
    if rng.random() < 0.25:
        blocks.append(f"#### {_heading(rng)}")
        blocks.append(_paragraph(rng, project, sentences=3))
    return blocks


# -- forms ---------------------------------------------------------------------------------


def to_newsletter(post: Post) -> str:
    return (
        f"---\ntitle: \"{post.title}\"\nauthor: {post.author}\n"
        f"date: {post.date.date().isoformat()}\n---\n\n{post.body}"
    )


def to_pelican(post: Post) -> str:
    return (
        f"Title: {post.title}\nDate: {post.date:%Y-%m-%d %H:%M}\nAuthor: {post.author}\n"
        f"Slug: {post.slug}\n\n{post.body}"
    )


_INLINE = re.compile(r"\[([^\]]+)\]\(([^)]+)\)|`([^`]+)`")


def _inline_html(text: str) -> str:
    def replace(match: re.Match) -> str:
        if match[3] is not None:
            return f"<code>{match[3]}</code>"
        return f'<a href="{match[2]}">{match[1]}</a>'

    return _INLINE.sub(replace, html.escape(text, quote=False))


def to_html(post: Post) -> str:
    """The body as HTML, as a feed entry would carry it (the body's Markdown is simple
    enough that each block maps to one element)."""
    parts = []
    for block in post.body.split("\n\n"):
        if block.startswith("```"):
            code = block.split("\n", 1)[1].rsplit("\n```", 1)[0]
            parts.append(f"<pre><code>{html.escape(code)}</code></pre>")
        elif block.startswith("#"):
            level, text = block.split(" ", 1)
            parts.append(f"<h{len(level)}>{_inline_html(text)}</h{len(level)}>")
        elif block.startswith("- ") or "\n- " in block:
            lead, *items = block.split("\n- ")
            if lead.startswith("- "):
                items.insert(0, lead[2:])
            else:
                parts.append(f"<p>{_inline_html(lead)}</p>")
            parts.append("<ul>" + "".join(f"<li>{_inline_html(i)}</li>" for i in items) + "</ul>")
        else:
            parts.append(f"<p>{_inline_html(block)}</p>")
    return "\n".join(parts)


FORMS = {"newsletter": to_newsletter, "pelican": to_pelican}

# Feed entries are shorter than posts: feeds often carry an excerpt, and a feed has several.
FEED_ENTRY_SIZES = (3_000, 8_000)


def atom_feed(seed: int, number: int, *, url: str, entries: int = 2) -> bytes:
    """Feed `number`: an Atom document whose entries carry their post as HTML content."""
    posts = [make_post(seed, number * entries + i, FEED_ENTRY_SIZES) for i in range(entries)]
    # Entry links stay on the feed's own (loopback) server: a reader that follows them
    # never leaves the machine.
    site = url.rsplit("/", 1)[0]
    items = "".join(
        f"<entry><id>{site}/{number}/{post.slug}</id>"
        f"<title>{html.escape(post.title)}</title>"
        f"<link href=\"{site}/{number}/{post.slug}\"/>"
        f"<updated>{post.date.isoformat()}</updated>"
        f"<author><name>{html.escape(post.author)}</name></author>"
        f"<content type=\"html\">{html.escape(to_html(post))}</content></entry>"
        for post in posts
    )
    updated = max(post.date for post in posts).isoformat()
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">'
        f"<id>{url}</id><title>Releases {number}</title><updated>{updated}</updated>"
        f'<link rel="self" href="{url}"/>{items}</feed>\n'
    ).encode()


def write_corpus(folder: Path, posts: int, *, seed: int, form: str, start: int = 0) -> int:
    """Write posts start..start+posts-1 into `folder` as `post-NNNNN.md`; returns bytes written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for index in range(start, start + posts):
        data = FORMS[form](make_post(seed, index)).encode("utf-8")
        (folder / f"post-{index:05d}.md").write_bytes(data)
        written += len(data)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--posts", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--form", choices=sorted(FORMS), default="newsletter")
    args = parser.parse_args()
    written = write_corpus(args.out, args.posts, seed=args.seed, form=args.form)
    print(f"{args.posts} posts, {written / 1e6:.1f} MB in {args.out}")


if __name__ == "__main__":
    main()
