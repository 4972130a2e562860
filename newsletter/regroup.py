"""Regrouping what changed: the posts saved since the last grouping are matched against the
state database's index of keys, and only the entries they touch are grouped again.

A post's joins (entries.partners) change only when its own keys change, or when a key it
holds crosses the number of holders past which a key joins no one (a footer link reaching
its 51st post, or leaving it). So the posts to regroup are the saved ones and every holder
of a key that crossed; with them go their entries as they were (whose other forms may now
part ways) and, whole, the entries of the posts they now join, which no change reached. The
result is what entries.group_forms gives over every post (tests/test_regroup.py checks).
A post a filter skips waits like a changed one whose keys are none, and joins no entry.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Protocol

from newsletter.entries import HOLDERS_LIMIT, Groups, form_keys, make_entry, partners
from newsletter.models import KEY_KINDS, FormKeys, KeyKind, Regrouping, StoredPost, Waiting

# Posts regrouped at a time. A first build's thousands come in turns, each a regrouping of
# its own, so that only a turn's summaries and keys are held at once: a first build of
# 10,000 posts held them all (about 400 MB) when it grouped every post in memory.
TURN = 1000


class FormIndex(Protocol):
    """The state database's grouping, as the last regrouping left it."""

    def holders_of(self, kind: KeyKind, keys: Collection[str], limit: int) -> Mapping[str, Collection[int] | None]:
        """The posts holding each of `keys`, None for a key more than `limit` posts hold."""

    def ungrouped(self, limit: int) -> list[Waiting]:
        """The first `limit` posts saved since their last grouping, each with the version
        of it last grouped, and whether it leaves the grouping."""

    def posts(self, ids: Collection[int]) -> list[StoredPost]:
        """The posts with these ids, each as it was last grouped: a post waiting for a
        later turn is what the index's keys say it is."""

    def entry_forms(self, post_ids: Collection[int]) -> dict[int, list[int]]:
        """The forms of each entry that has one of `post_ids` among them, by entry."""


def regroup(index: FormIndex, *, site_url: str, site_language: str | None) -> Regrouping | None:
    """The regrouping that the next turn of posts saved since the last one calls for; None
    if none wait. Saved, it ends their wait: call again until None."""
    waiting = index.ungrouped(TURN)
    if not waiting:
        return None
    after = _After(index, waiting)
    moved = set(after.new)
    for kind, changed in after.changed_keys().items():
        limit = HOLDERS_LIMIT[kind]
        for key, before in after.before(kind, changed).items():
            if before is not None:
                held = after.adjust(kind, key, before)
                if (len(before) <= limit) != (len(held) <= limit):
                    moved.update(held)
    old = index.entry_forms(moved)
    regrouped = moved.union(*old.values())
    regrouped_keys = after.keys_of(regrouped)
    for kind in KEY_KINDS:
        after.before(kind, set().union(*(keys.of(kind) for keys in regrouped_keys.values())))
    groups = Groups()
    for post_id, keys in sorted(regrouped_keys.items()):
        if post_id in after.leaving:
            continue
        groups.add(post_id)
        for partner in partners(post_id, keys, after):
            groups.join(post_id, partner)
    # A partner from outside brings its entry whole: no key of its forms changed.
    joined = index.entry_forms(set(groups.parent) - regrouped)
    for forms in joined.values():
        for form in forms:
            groups.join(forms[0], form)
    posts = after.posts(set(groups.parent))
    entries = tuple(make_entry([posts[i] for i in members], site_url, site_language) for members in groups.members())
    return Regrouping(entries, replaced=frozenset(old) | frozenset(joined), keys=after.new, old_keys=after.old)


class _After:
    """The index as it will be once the saved posts' keys replace those they were last
    grouped with. Keys of other posts are computed from their summaries, unchanged since
    their last grouping. A post leaving the grouping (a filter skips it) holds no key after."""

    def __init__(self, index: FormIndex, waiting: list[Waiting]) -> None:
        self.index = index
        self.loaded = {w.post.id: w.post for w in waiting}
        self.leaving = {w.post.id for w in waiting if w.leaving}
        self.new = {w.post.id: FormKeys() if w.leaving else form_keys(w.post) for w in waiting}
        self.old = {w.post.id: form_keys(w.last_grouped) for w in waiting if w.last_grouped is not None}
        self.computed = dict(self.new)
        self.held_before: dict[tuple[KeyKind, str], Collection[int] | None] = {}
        self.new_holders: dict[tuple[KeyKind, str], set[int]] = {}
        for post_id, keys in self.new.items():
            for kind in KEY_KINDS:
                for key in keys.of(kind):
                    self.new_holders.setdefault((kind, key), set()).add(post_id)

    def changed_keys(self) -> dict[KeyKind, set[str]]:
        """The keys some saved post gained or lost, by kind."""
        changed: dict[KeyKind, set[str]] = {kind: set() for kind in KEY_KINDS}
        for post_id, keys in self.new.items():
            old = self.old.get(post_id, FormKeys())
            for kind in KEY_KINDS:
                changed[kind].update(keys.of(kind) ^ old.of(kind))
        return changed

    def before(self, kind: KeyKind, keys: Collection[str]) -> dict[str, Collection[int] | None]:
        """The holders of each key before, None for a key held by more than the kind's limit
        plus the number of saved posts (more than the limit after). Asked once per key."""
        missing = [key for key in keys if (kind, key) not in self.held_before]
        if missing:
            found = self.index.holders_of(kind, missing, HOLDERS_LIMIT[kind] + len(self.new))
            self.held_before.update(((kind, key), held) for key, held in found.items())
        return {key: self.held_before[kind, key] for key in keys}

    def adjust(self, kind: KeyKind, key: str, held: Collection[int]) -> set[int]:
        """Holders of `key` before -> after."""
        return {post_id for post_id in held if post_id not in self.new} | self.new_holders.get((kind, key), set())

    def holders(self, kind: KeyKind, key: str, limit: int) -> set[int] | None:
        if (kind, key) not in self.held_before:
            self.before(kind, [key])
        before = self.held_before[kind, key]
        held = self.adjust(kind, key, before) if before is not None else None
        return held if held is not None and len(held) <= limit else None

    def keys_of(self, post_ids: Collection[int]) -> dict[int, FormKeys]:
        for post in self.posts(post_ids).values():
            if post.id not in self.computed:
                self.computed[post.id] = form_keys(post)
        return {post_id: self.computed[post_id] for post_id in post_ids}

    def posts(self, post_ids: Collection[int]) -> dict[int, StoredPost]:
        missing = [post_id for post_id in post_ids if post_id not in self.loaded]
        self.loaded.update((post.id, post) for post in self.index.posts(missing))
        return {post_id: self.loaded[post_id] for post_id in post_ids}
