"""Subscriber slices: what a slice keeps of a digest (publish/slices.py), and each subscriber
mailed their slice over a real SMTP server, rendered once per distinct slice."""

from datetime import timedelta
from pathlib import Path

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from helpers.posts import lumen, numbered, stored_post
from helpers.servers import email_section
from helpers.slices import STABLE_ONLY, bodies, give_slices

from newsletter import pipeline
from newsletter.config import Config, load
from newsletter.mail import copies
from newsletter.mail import send as mailer
from newsletter.models import Entry, Feature, Graduation, Slice
from newsletter.publish.slices import slice_text, sliced
from newsletter.state.digest_copies import DigestSnapshot
from newsletter.state.store import Store

# -- what a slice keeps -------------------------------------------------------------


def kite(**features: str | None) -> Entry:
    """A Kite release with one feature per keyword (heading: label), sections by label."""
    post = stored_post(10, "Kite 1.2 is out", bullets=("Faster sync.",),
                       features=tuple(Feature(h, s, f"{s or 'plain'} things") for h, s in features.items()))
    return Entry("tag:kite-1.2", post)


def kept(snapshot: DigestSnapshot, chosen: Slice) -> dict[str, list[str]]:
    """Each post kept, by title, with its features' headings."""
    return {e.primary.summary.title: [f.heading for f in e.primary.summary.features]
            for e in sliced(snapshot, chosen, {}).entries}


def test_stable_only_keeps_stable_deprecated_and_unlabeled_features_and_drops_the_rest():
    post = kite(Sync="stable", Hooks="deprecated", Plain=None, Stream="beta", Preview="preview",
                Scene="prototype", Lab="experimental", Early="alpha")
    snapshot = DigestSnapshot((post,), ())
    assert kept(snapshot, STABLE_ONLY) == {"Kite 1.2 is out": ["Sync", "Hooks", "Plain"]}
    assert kept(snapshot, Slice(min_stability="beta")) == {
        "Kite 1.2 is out": ["Sync", "Hooks", "Plain", "Stream", "Preview"]}
    assert kept(snapshot, Slice()) == {"Kite 1.2 is out": list(features_of(post))}


def features_of(entry: Entry) -> list[str]:
    return [f.heading for f in entry.primary.summary.features]


def test_a_post_whose_features_all_fall_outside_the_slice_goes_with_its_highlights():
    only_beta = kite(Stream="beta")
    highlights_only = Entry("tag:notes", stored_post(11, "Notes 3.1", bullets=("Bug fixes.",)))
    bare = numbered(5)  # neither a feature nor a highlight
    snapshot = DigestSnapshot((only_beta, highlights_only, bare), ())
    assert kept(snapshot, STABLE_ONLY) == {"Notes 3.1": []}
    # A section slice asks for features under a heading: a post without features has none.
    assert kept(snapshot, Slice(sections=frozenset({"beta things"}))) == {"Kite 1.2 is out": ["Stream"]}
    assert sliced(snapshot, Slice(), {}) == snapshot


def test_a_highlight_that_names_a_feature_left_out_goes_with_it():
    post = stored_post(12, "Kite 1.3", bullets=("Streaming queries, now early.", "Sync is faster.", "Docs."),
                       features=(Feature("(Beta) Streaming queries", "beta", None), Feature("Sync", "stable", None)))
    (entry,) = sliced(DigestSnapshot((Entry("tag:kite-1.3", post),), ()), STABLE_ONLY, {}).entries
    assert entry.primary.summary.summary_bullets == ("Sync is faster.", "Docs.")


def test_project_and_section_slices_ignore_case_and_the_graduated_block_follows_the_slice():
    snapshot = DigestSnapshot((lumen(), kite(Sync="stable", Stream="beta")), (
        Graduation("Kite", 10, "Sync", "Sync: Beta → Stable"),
        Graduation("Kite", 10, "Stream", "Stream: Prototype → Beta"),
        Graduation("Lumen", 1, "Denoiser", "Denoiser: Beta → Stable"),
    ))
    by_project = sliced(snapshot, Slice(projects=frozenset({"kite"})), {})
    assert [e.primary.summary.title for e in by_project.entries] == ["Kite 1.2 is out"]
    assert [g.heading for g in by_project.graduations] == ["Sync", "Stream"]
    stable = sliced(snapshot, STABLE_ONLY, {})
    assert [g.heading for g in stable.graduations] == ["Sync", "Denoiser"]
    by_section = sliced(snapshot, Slice(sections=frozenset({"RENDERING"})), {})
    assert kept(snapshot, Slice(sections=frozenset({"RENDERING"}))) == {
        "Lumen 2.0 is out": ["GPU path tracer", "Denoiser"]}
    assert [g.heading for g in by_section.graduations] == ["Denoiser"]
    # A source's configured project outranks the title's.
    renderers = Slice(projects=frozenset({"Renderers"}))
    assert kept(snapshot, renderers) == {}
    assert len(sliced(snapshot, renderers, {"posts": "Renderers"}).entries) == 2


def test_slices_that_keep_the_same_things_share_a_key_and_read_back():
    a = Slice("beta", frozenset({"PyTorch", "Kite"}), frozenset({"Distributed"}))
    b = Slice("beta", frozenset({"kite", "pytorch"}), frozenset({"distributed"}))
    assert a.key() == b.key() != Slice("stable", a.projects, a.sections).key()
    assert Slice.from_json(a.to_json()) == a and Slice.from_json(None) == Slice()
    assert slice_text(a) == "beta and stable features; projects: Kite, PyTorch; sections: Distributed"
    assert slice_text(Slice()) == "everything"


# -- mailed over SMTP ---------------------------------------------------------------

EVERYONE = ["ada@example.org", "bea@example.org", "cy@example.org", "dee@example.org", "eve@example.org"]
SLICES = {
    "bea@example.org": STABLE_ONLY,
    "cy@example.org": Slice(min_stability="stable", projects=frozenset()),  # bea's slice, built apart
    "dee@example.org": Slice(projects=frozenset({"tern"})),
    "eve@example.org": Slice(sections=frozenset({"Storage"})),
}
# Features of the example posts (examples/posts) and their labels.
BETA_OR_PROTOTYPE = ["Streaming queries", "Faster hash joins", "Parquet export", "Offline mode", "Conflict reports"]


def no_sleep(_seconds: float) -> None:
    pass


@pytest.fixture
def sliced_config(config: Config, smtp_server) -> Config:
    """The example posts built into a digest; five subscribers, four with slices."""
    config.path.write_text(config.path.read_text(encoding="utf-8") + email_section(smtp_server.port, EVERYONE),
                           encoding="utf-8")
    config = load(config.path)
    pipeline.build(config, now=NOW)
    give_slices(config, SLICES)
    return config


def received(smtp_server, address: str) -> list[tuple[str, str]]:
    return [bodies(item.message) for item in smtp_server.sink.by_recipient().get(address, [])]


@BOTH_BACKENDS
def test_each_subscriber_gets_their_slice_rendered_once_per_distinct_slice(sliced_config, smtp_server, monkeypatch):
    rendered = []
    render = copies.render_slice
    monkeypatch.setattr(copies, "render_slice", lambda *args: rendered.append(args[3]) or render(*args))
    report = mailer.send(sliced_config, sleep=no_sleep)

    assert sorted(report.mailings[0].sent) == EVERYONE
    assert sorted(s.key() for s in rendered) == sorted({s.key() for s in SLICES.values()})  # three, not four
    (whole_text, _), = received(smtp_server, "ada@example.org")
    assert all(heading in whole_text for heading in BETA_OR_PROTOTYPE)
    for address in ("bea@example.org", "cy@example.org"):
        (text, html), = received(smtp_server, address)
        assert "Cost-based planner [Stable]" in text and "Versioned plugin hooks [Stable]" in text
        for shown in (text, html):
            assert not any(heading in shown for heading in BETA_OR_PROTOTYPE)
            assert "Beta" not in shown and "Prototype" not in shown
    (text, html), = received(smtp_server, "dee@example.org")
    assert "Offline mode [Beta]" in text and "Lumen" not in text and "Lumen" not in html
    (text, _), = received(smtp_server, "eve@example.org")
    assert "Parquet export [Beta]" in text and "Streaming queries" not in text and "Tern" not in text


@BOTH_BACKENDS
def test_a_digest_without_stable_features_mails_stable_only_subscribers_nothing_once(
        sliced_config, smtp_server, posts_dir: Path):
    mailer.send(sliced_config, sleep=no_sleep)
    assert slice_copies(sliced_config) == {1: 3}  # kept while the digest is the newest
    later = NOW + timedelta(hours=1)
    (posts_dir / "finch-0.3.md").write_text(
        "---\ntitle: Finch 0.3\ndate: 2026-11-02\n---\n\nFinch 0.3 is here.\n\n## Features\n\n"
        "### (Beta) Quick sync\n\nSyncs in the background.\n\n### (Prototype) Ghost mode\n\nHides you.\n",
        encoding="utf-8")
    pipeline.build(sliced_config, now=later)
    dry = mailer.write_dry_run(sliced_config, posts_dir.parent / "dry-run")
    assert [path.name for path in dry] == ["ada@example.org.eml"]  # the others' slices are empty

    report = mailer.send(sliced_config, sleep=no_sleep)
    (mailing,) = report.mailings
    assert sorted(mailing.empty) == ["bea@example.org", "cy@example.org", "dee@example.org", "eve@example.org"]
    assert mailing.sent == ("ada@example.org",)
    assert "1 sent, 0 refused, 0 deferred, 4 with nothing in their slice" in mailer.describe(report)
    assert [len(received(smtp_server, a)) for a in EVERYONE] == [2, 1, 1, 1, 1]
    with Store.open(sliced_config.state) as store:
        head = store.digest_heads()[-1]
        assert store.outbox(head.id)["bea@example.org"].state == "empty"
    assert slice_copies(sliced_config) == {}  # the first digest's are dropped; the second has none
    assert mailer.describe(mailer.send(sliced_config, sleep=no_sleep)).endswith("already mailed to every subscriber")


def slice_copies(config: Config) -> dict[int, int]:
    """How many slice copies each digest has kept, by digest id."""
    with Store.open(config.state) as store:
        return dict(store.db.execute("SELECT digest_id, count(*) FROM digest_slices GROUP BY digest_id"))


@BOTH_BACKENDS
def test_a_post_edited_mid_mailing_does_not_change_the_slices_still_to_be_sent(
        sliced_config, smtp_server, posts_dir: Path):
    report = mailer.send(sliced_config, sleep=no_sleep, should_stop=lambda: len(smtp_server.sink.received) == 1)
    assert report.interrupted and [r.recipient for r in smtp_server.sink.received] == ["ada@example.org"]
    post = posts_dir / "lumen-2.0.md"
    post.write_text(post.read_text(encoding="utf-8").replace("Cost-based planner", "Cost-based optimizer"),
                    encoding="utf-8")
    pipeline.build(sliced_config, now=NOW + timedelta(hours=1))
    with Store.open(sliced_config.state) as store:
        headings = [f.heading for p in store.posts() for f in p.summary.features]
    assert "Cost-based optimizer" in headings  # the posts' rows have the edit

    mailer.send(sliced_config, sleep=no_sleep)
    (text, html), = received(smtp_server, "bea@example.org")
    assert "Cost-based planner" in text and "optimizer" not in text + html


@BOTH_BACKENDS
def test_the_operator_sets_lists_and_clears_a_slice(sliced_config):
    from click.testing import CliRunner

    from newsletter.cli import cli

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, ["subscribers", *args, "--config", str(sliced_config.path)])
        assert result.exit_code == 0, result.output
        return result.output

    assert run("set", "ada@example.org", "--min-stability", "beta", "--project", "PyTorch", "--project", "Kite") \
        == "ada@example.org: gets beta and stable features; projects: Kite, PyTorch\n"
    assert run("set", "ada@example.org", "--section", "Distributed").endswith("sections: Distributed\n")
    listed = run("list")
    assert "ada@example.org\tactive\t" in listed
    assert "beta and stable features; projects: Kite, PyTorch; sections: Distributed" in listed
    assert run("set", "ada@example.org", "--clear", "--min-stability", "stable") \
        == "ada@example.org: gets stable features only\n"
    assert run("set", "ada@example.org", "--min-stability", "all") == "ada@example.org: gets everything\n"
    unknown = CliRunner().invoke(cli, ["subscribers", "set", "nobody@example.org", "--min-stability", "beta",
                                       "--config", str(sliced_config.path)])
    assert unknown.exit_code != 0 and unknown.output.strip().endswith("nobody@example.org is not a subscriber")


@BOTH_BACKENDS
def test_a_digest_built_before_snapshots_were_kept_goes_to_everyone_whole(sliced_config, smtp_server):
    with Store.open(sliced_config.state) as store, store.transaction() as db:
        db.execute("DELETE FROM digest_snapshot_entries")
        db.execute("DELETE FROM digest_snapshots")
    mailer.send(sliced_config, sleep=no_sleep)
    subjects = {item.message["Subject"] for item in smtp_server.sink.received}
    assert len(smtp_server.sink.received) == len(EVERYONE) and len(subjects) == 1
    for address in SLICES:
        (text, _), = received(smtp_server, address)
        assert all(f"{heading} [" in text for heading in BETA_OR_PROTOTYPE), address
