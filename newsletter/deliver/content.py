"""A digest as the deliveries show it: its title, its page in the archive, and the same view
of each entry the email and feeds read (newsletter/publish/views.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote

from newsletter.config import Config
from newsletter.models import DigestHead
from newsletter.publish.atom import digest_title
from newsletter.publish.paths import digest_path, site_url
from newsletter.publish.views import EntryView, entry_view
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store

# How much of each post a chat message shows: a channel is read at a glance, and the full
# digest is a link away.
CHAT_BULLETS = 3
CHAT_FEATURES = 8
CHAT_BULLET_LENGTH = 300


@dataclass(frozen=True)
class DigestView:
    name: str
    created: datetime
    # The subject the digest was mailed under ("Release notes: Lumen 2.0 and 2 more").
    title: str
    # The digest's page in the archive: where a message cut short sends its reader.
    url: str
    entries: tuple[EntryView, ...]

    def for_chat(self) -> tuple[EntryView, ...]:
        return tuple(entry.shortened(CHAT_BULLETS, CHAT_FEATURES, CHAT_BULLET_LENGTH) for entry in self.entries)


def digest_view(config: Config, store: Store, head: DigestHead) -> DigestView:
    """The digest as it is now; the outbox keeps the request made from it, so every post of
    it to one delivery says the same."""
    copy = store.digest_copy(head.id)
    entries = EntryIndex(store).digest_entries(head.id)
    return DigestView(
        name=head.name,
        created=head.created,
        title=copy.subject if copy else digest_title(config, head.created, len(entries)),
        url=site_url(config, digest_path(head.name)),
        entries=tuple(entry_view(entry, site_url(config, "")) for entry in entries),
    )


def feature_lines(entry: EntryView) -> list[tuple[str, str]]:
    """(section heading, "Feature (Beta), Other feature") for each section of the entry."""
    return [(section.heading, ", ".join(
        f"{feature.heading} ({feature.stability})" if feature.stability else feature.heading
        for feature in section.features)) for section in entry.sections]


def more_text(entry: EntryView) -> str | None:
    """"3 more highlights and 5 more features" when the entry was shortened, else None."""
    parts = [f"{number} more {noun if number == 1 else noun + 's'}"
             for number, noun in ((entry.more_bullets, "highlight"), (entry.more_features, "feature")) if number]
    return " and ".join(parts) or None


def encoded_url(url: str) -> str:
    """`url` with every character a URL may not hold as it is percent-encoded (spaces,
    quotes, "<", ">", "|", non-ASCII): a post's address is taken as its page wrote it, and
    Discord refuses a whole message over one embed URL it finds malformed."""
    return quote(url, safe="/:?#[]@!$&'()*+,;=%~")


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: cut with an ellipsis if longer."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def fit_lines(lines: list[str], limit: int) -> str:
    """The lines joined, as many as fit in `limit` characters, whole, with "…" for any left
    out (a line cut short could break the link markup it holds); the first line always, cut
    if it must be."""
    text = cut(lines[0], limit) if lines else ""
    for index, line in enumerate(lines[1:], 1):
        # Room is kept for the "…" that would follow, unless this is the last line.
        room = limit - (0 if index == len(lines) - 1 else 2)
        if len(text) + 1 + len(line) > room:
            return text + "\n…" if len(text) + 2 <= limit else text
        text += "\n" + line
    return text
