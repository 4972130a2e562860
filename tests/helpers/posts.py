"""Posts, entries and digests as the store would hand them to the publishers, built
without running the pipeline; and posts added to a folder source."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

from helpers import NOW
from newsletter.models import Digest, Entry, Feature, StoredPost, Summary


def stored_post(
    post_id: int, title: str, *, language: str = "en", url: str | None = None,
    bullets: tuple[str, ...] = (), features: tuple[Feature, ...] = (),
    first_seen: datetime = NOW, changed: datetime | None = None, published: datetime | None = None,
    canonical_url: str | None = None, author: str | None = None,
) -> StoredPost:
    """A post as the store would hand it to the publishers, without running the pipeline."""
    return StoredPost(
        id=post_id, source="posts", location=f"post-{post_id}.md", url=url,
        content_hash=f"hash-{post_id}", first_seen=first_seen, last_seen=first_seen,
        changed=changed or first_seen,
        summary=Summary(
            title=title, author=author, language=language, canonical_url=canonical_url,
            summary_bullets=bullets, features=features, format="markdown", published=published,
        ),
    )


def large_entry(number: int, *, published: datetime = NOW) -> Entry:
    """A post with long bullets, many features in several sections, and a translation."""
    features = tuple(
        Feature(f"Feature {i} of post {number}: " + "a considerably long heading " * 3,
                ("stable", "beta", "prototype", None)[i % 4], f"Section {i // 10}")
        for i in range(60)
    )
    bullets = tuple(f"Highlight {i} of post {number}: " + "lots of detail " * 30 for i in range(12))
    primary = stored_post(
        number * 2, f"Project {number} release {number}.0 with a long title " + "x" * 40,
        url=f"https://blog.example.com/{number}", bullets=bullets, features=features,
        published=published,
    )
    translation = stored_post(
        number * 2 + 1, f"Projekt {number}", language="de", url=f"https://blog.example.com/de/{number}",
        published=published,
    )
    return Entry(id=f"https://blog.example.com/{number}", primary=primary, alternates=(translation,))


def lumen(**changes) -> Entry:
    """A post with bullets, features in two sections, a translation and a scrape of it."""
    primary = stored_post(
        1, "Lumen 2.0 is out", url="https://lumen.example.org/blog/2.0", author="Ada",
        canonical_url="../blog/2.0#top",
        bullets=("Rendering is twice as fast.", "A <script>alert(1)</script> plugin API."),
        features=(
            Feature("GPU path tracer", "beta", "Rendering"),
            Feature("Denoiser", "stable", "Rendering"),
            Feature("Scene graph", "prototype", "Core"),
            Feature("Old hooks removed", None, "Core"),
        ),
        published=NOW - timedelta(days=1),
    )
    german = stored_post(2, "Lumen 2.0 ist da", language="de", url="https://lumen.example.org/de/2.0")
    scrape = stored_post(3, "Lumen 2.0", url="https://mirror.example.net/lumen-2.0")
    entry = Entry(id="https://lumen.example.org/blog/2.0", primary=primary, alternates=(german, scrape))
    return replace(entry, **changes)


def numbered(n: int, first_seen=NOW) -> Entry:
    """Post `n`: a title, a link and a date, nothing more."""
    return Entry(
        id=f"tag:example.org,2026:post-{n}",
        primary=stored_post(n, f"Post {n}", url=f"https://example.org/{n}", first_seen=first_seen,
                            published=NOW - timedelta(days=100 - n)),
    )


def small_digest() -> Digest:
    """Lumen and one plain post: everything fits."""
    return Digest(1, "2026-11-02-1", NOW, (lumen(), numbered(5)))


def big_digest() -> Digest:
    """Twenty large posts: more than a mail client shows before clipping."""
    return Digest(1, "2026-11-02-1", NOW, tuple(large_entry(n, published=NOW - timedelta(days=n)) for n in range(20)))


def add_post(posts_dir: Path, number: int) -> None:
    """A new post in the folder `posts_dir`, which the next build reads."""
    (posts_dir / f"post-{number}.md").write_text(
        f"# Post {number}\n\nPost {number} is out, with much to tell.\n\n## Feature {number}\n", encoding="utf-8")
