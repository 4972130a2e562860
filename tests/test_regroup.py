"""Regrouping only what changed gives the entries that grouping every post gives.

Posts are saved to a real state database a few at a time, new or changed (their links,
headings, addresses, language), and after each batch the incremental regrouping's entries,
their order and their stamps are compared with entries.group_forms over every post. Keys
are drawn from small pools, and the holder limits are made small, so that posts join, part,
and keys cross the limits often.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from datetime import timedelta

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS, BOTH_BACKENDS_SLOW_ON_POSTGRESQL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from newsletter import entries, regroup
from newsletter.config.filters import TitleFilter, pattern
from newsletter.entries import group_forms
from newsletter.models import Entry, Feature, StoredPost, Summary
from newsletter.state import skipped
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store

SITE = "https://news.example.org/"
URLS = [f"https://blog.example/{name}" for name in ("a", "b", "c", "d")]
LINKS = [f"https://docs.example/{n}" for n in range(8)]
HEADINGS = [f"Feature {n}" for n in range(8)]
DATES = [NOW - timedelta(days=n) for n in range(3)]

summaries = st.builds(
    lambda canonical, links, headings, bullets, language, fmt, published: Summary(
        title="T", author=None, language=language, canonical_url=canonical,
        summary_bullets=tuple(bullets), features=tuple(Feature(h, None, None) for h in headings),
        format=fmt, published=published, links=tuple(links),
    ),
    canonical=st.none() | st.sampled_from(URLS),
    links=st.lists(st.sampled_from(LINKS), max_size=6, unique=True),
    headings=st.lists(st.sampled_from(HEADINGS), max_size=6, unique=True),
    bullets=st.lists(st.sampled_from(["One", "Two", "Three"]), max_size=2, unique=True),
    language=st.sampled_from(["en", "de"]),
    fmt=st.sampled_from(["markdown", "text"]),
    published=st.none() | st.sampled_from(DATES),
)
# A save: of post `location` of a source (a new one or one saved before), with its address
# and summary.
saves = st.tuples(st.sampled_from(["s", "t"]), st.integers(0, 11), st.none() | st.sampled_from(URLS), summaries)
# Batches of saves; a batch's posts are seen at the same moment, or an hour after the last.
batches = st.lists(st.tuples(st.booleans(), st.lists(saves, min_size=1, max_size=3)), min_size=1, max_size=8)


def text_hash(summary: Summary) -> str:
    return hashlib.sha256(json.dumps(summary.to_json(), sort_keys=True).encode()).hexdigest()


def described(entry: Entry) -> tuple:
    return entry.id, entry.primary.id, tuple(form.id for form in entry.alternates), entry.updated


def summary_of(canonical: str, language: str) -> Summary:
    return Summary(title="T", author=None, language=language, canonical_url=canonical,
                   summary_bullets=(), features=(), format="markdown")


def assert_same_as_grouping_everything(
    store: Store, index: EntryIndex, site_language: str | None, posts: list[StoredPost] | None = None,
) -> None:
    """The entries kept are those of grouping `posts` (every post, as saved, by default)."""
    posts = posts or store.posts()
    expected = group_forms(posts, site_url=SITE, site_language=site_language)
    history = index.history(0, index.entry_count())
    # Newest first, as a digest carries them, read without their summaries.
    found = index.carrying([post.id for post in posts])
    assert [(s.id, s.forms[0], s.forms[1:], s.updated) for s in found] == [described(e) for e in expected]
    # The feed's history: by first sighting, then publication, as feed pages always kept it.
    arrival = sorted(expected, key=lambda e: (min(f.first_seen for f in e.forms), e.published, e.id))
    assert [(s.id, s.updated, s.forms) for s in history] == [
        (e.id, e.updated, tuple(f.id for f in e.forms)) for e in arrival]


def small_holder_limits(monkeypatch) -> None:
    """Holder limits small enough that keys cross them often."""
    monkeypatch.setitem(entries.HOLDERS_LIMIT, "same", 2)
    monkeypatch.setitem(entries.HOLDERS_LIMIT, "link", 3)
    monkeypatch.setitem(entries.HOLDERS_LIMIT, "content", 3)


@BOTH_BACKENDS_SLOW_ON_POSTGRESQL
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=batches, site_language=st.sampled_from([None, "en", "de"]))
def test_regrouping_what_changed_gives_the_entries_of_grouping_everything(
    new_state, monkeypatch, batches, site_language,
):
    small_holder_limits(monkeypatch)
    now = NOW
    with Store.open(new_state()) as store:
        index = EntryIndex(store)
        history = []
        for later, batch in batches:
            now += timedelta(hours=1) if later else timedelta(0)
            for source, location, url, summary in batch:
                # Posts of like summaries have the same text: that too joins forms.
                store.save_post(source=source, location=f"p{location}", url=url, content_hash=text_hash(summary),
                                summary=summary, now=now)
            change = regroup.regroup(index, site_url=SITE, site_language=site_language)
            assert change is not None
            index.save(change)
            assert_same_as_grouping_everything(store, index, site_language)
            # The feed pages are checked from the mark on: every entry before it is as it was.
            before, history = history, index.history(0, index.entry_count())
            changed = index.history_changed_from()
            assert changed is not None and before[:changed] == history[:changed]
            store.set_archive_marks({"history changed from": None})


@BOTH_BACKENDS
def test_posts_waiting_are_grouped_a_turn_at_a_time(state, monkeypatch):
    """A first build's thousands are regrouped a turn at a time, so that only a turn's
    summaries are held; every turn leaves the grouping of the posts as last grouped."""
    monkeypatch.setattr(regroup, "TURN", 3)
    with Store.open(state) as store:
        for n in range(7):
            store.save_post(source="s", location=f"p{n}", url=None, content_hash=f"h{n}",
                            summary=summary_of(URLS[n % 2], "en"), now=NOW)
        index = EntryIndex(store)
        turns = []
        while (change := regroup.regroup(index, site_url=SITE, site_language=None)) is not None:
            turns.append(sorted(change.keys))
            index.save(change)
            # The posts of later turns are not grouped yet.
            assert_same_as_grouping_everything(store, index, None, index.posts(range(1, turns[-1][-1] + 1)))
        assert turns == [[1, 2, 3], [4, 5, 6], [7]]
        assert_same_as_grouping_everything(store, index, None)


@BOTH_BACKENDS
def test_a_post_waiting_for_a_later_turn_is_met_as_last_grouped(state, monkeypatch):
    """Post 2, changed, waits for the second turn; the first meets it through the address it
    was grouped with, and must read it as it was then (in English, naming that address), or
    the entries it leaves match no grouping of any posts."""
    monkeypatch.setattr(regroup, "TURN", 1)
    with Store.open(state) as store:
        store.save_post(source="s", location="a", url=None, content_hash="a1", summary=summary_of(URLS[0], "en"), now=NOW)
        store.save_post(source="s", location="b", url=None, content_hash="b1", summary=summary_of(URLS[1], "en"), now=NOW)
        index = EntryIndex(store)
        while (change := regroup.regroup(index, site_url=SITE, site_language="en")) is not None:
            index.save(change)
        later = NOW + timedelta(hours=1)
        store.save_post(source="s", location="a", url=None, content_hash="a2", summary=summary_of(URLS[1], "de"), now=later)
        store.save_post(source="s", location="b", url=None, content_hash="b2", summary=summary_of(URLS[0], "de"), now=later)
        index.save(regroup.regroup(index, site_url=SITE, site_language="en"))
        # Post 1 now names post 2's old address: one entry, led by post 2 as it was, in English.
        assert_same_as_grouping_everything(store, index, "en", index.posts([1, 2]))
        assert [stamp.forms for stamp in index.history(0, index.entry_count())] == [(2, 1)]
        index.save(regroup.regroup(index, site_url=SITE, site_language="en"))
        assert regroup.regroup(index, site_url=SITE, site_language="en") is None
        assert_same_as_grouping_everything(store, index, "en")


@BOTH_BACKENDS
def test_a_new_post_regroups_its_own_entry_only(state):
    def summary(n: int) -> Summary:
        return Summary(title="T", author=None, language="en", canonical_url=None, summary_bullets=(),
                       features=tuple(Feature(f"Feature {n} {k}", None, None) for k in range(4)), format="markdown",
                       links=tuple(f"https://docs.example/{n}/{k}" for k in range(4)) + ("https://home.example/",))

    with Store.open(state) as store:
        index = EntryIndex(store)
        for n in range(60):
            store.save_post(source="s", location=f"p{n}", url=None, content_hash=f"h{n}", summary=summary(n), now=NOW)
        index.save(regroup.regroup(index, site_url=SITE, site_language=None))
        # The translation of post 7 joins it; nothing else is read or written.
        store.save_post(source="s", location="p7-de", url=None, content_hash="h7-de",
                        summary=summary(7), now=NOW + timedelta(days=1))
        change = regroup.regroup(index, site_url=SITE, site_language=None)
        assert change is not None
        assert [sorted(form.location for form in entry.forms) for entry in change.entries] == [["p7", "p7-de"]]
        assert change.replaced == {8}


@BOTH_BACKENDS
@pytest.mark.parametrize("holders", [20, 21])
def test_a_key_crossing_the_holder_limit_parts_or_joins_every_holder(state, holders: int):
    """Twenty posts naming one canonical address are one post; the twenty-first makes it a
    front page, and all part (and join again when one leaves)."""
    def summary(canonical: str) -> Summary:
        return Summary(title="T", author=None, language="en", canonical_url=canonical,
                       summary_bullets=(), features=(), format="markdown")

    with Store.open(state) as store:
        index = EntryIndex(store)
        for n in range(holders - 1):
            store.save_post(source="s", location=f"p{n}", url=None, content_hash=f"h{n}",
                            summary=summary(URLS[0]), now=NOW)
        index.save(regroup.regroup(index, site_url=SITE, site_language=None))
        for step, canonical in enumerate([URLS[0], URLS[1], URLS[0]], start=1):
            store.save_post(source="s", location="last", url=None, content_hash=str(step),
                            summary=summary(canonical), now=NOW + timedelta(hours=step))
            index.save(regroup.regroup(index, site_url=SITE, site_language=None))
            assert_same_as_grouping_everything(store, index, None)
        assert index.entry_count() == (1 if holders == 20 else holders)


@BOTH_BACKENDS_SLOW_ON_POSTGRESQL
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batches=batches, skips=st.lists(st.sets(st.integers(0, 11), max_size=6), min_size=8, max_size=8))
def test_posts_a_filter_skips_leave_the_grouping_as_if_never_saved(new_state, monkeypatch, batches, skips):
    """After each batch the filter of source "s" skips another set of its posts (letting
    others back in); the entries kept are those of grouping the posts it does not skip."""
    small_holder_limits(monkeypatch)
    now = NOW
    with Store.open(new_state()) as store:
        index = EntryIndex(store)
        for (later, batch), skip in zip(batches, skips, strict=False):
            now += timedelta(hours=1) if later else timedelta(0)
            for source, location, url, summary in batch:
                titled = replace(summary, title=f"post {location}")
                store.save_post(source=source, location=f"p{location}", url=url, content_hash=text_hash(titled),
                                summary=titled, now=now)
            exclude = (pattern(rf"^post ({'|'.join(map(str, skip))})$"),) if skip else ()
            skipped.refilter(store, {"s": TitleFilter(exclude=exclude)})
            while (change := regroup.regroup(index, site_url=SITE, site_language="en")) is not None:
                index.save(change)
            kept = [post for post in store.posts()
                    if not (post.source == "s" and int(post.location[1:]) in skip)]
            assert set(skipped.reasons(store)) == {post.id for post in store.posts()} - {post.id for post in kept}
            if kept:
                assert_same_as_grouping_everything(store, index, "en", kept)
            else:
                assert index.entry_count() == 0
