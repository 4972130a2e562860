"""Deliveries ([[deliveries]]): each new digest posted once to Slack, Discord, Matrix and a
webhook, all stood in for by one web server on 127.0.0.1 that checks each service's request
shape and answers as the test asks (429s, 5xx, refusals, a lost answer)."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from click.testing import CliRunner
from helpers import NOW
from helpers.chat import PATHS, ROOM, TOKEN, deliveries_section
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section

from newsletter import pipeline
from newsletter.cli import cli
from newsletter.config import Config, load
from newsletter.deliver import outbox
from newsletter.deliver.http import RETRY_AFTER_CAP, RETRY_DELAYS
from newsletter.errors import ConfigError
from newsletter.schedule import scheduler
from newsletter.state import deliveries as delivery_rows
from newsletter.state.store import Store

DIGEST = "2026-11-02-1"


def with_deliveries(config: Config, kinds: tuple[str, ...] = ("slack", "discord", "matrix", "webhook"),
                    extra: str = "") -> Config:
    """The test config with a delivery of each kind (and `extra` TOML), one digest built."""
    config.path.write_text(config.path.read_text(encoding="utf-8") + extra + deliveries_section(kinds),
                           encoding="utf-8")
    config = load(config.path)
    pipeline.build(config, now=NOW)
    return config


class Sleeps(list):
    """A sleep that records how long it was asked to wait, and does not."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def deliver(config: Config, sleeps: Sleeps | None = None) -> outbox.DeliveryReport:
    return outbox.deliver(config, sleep=sleeps if sleeps is not None else Sleeps())


def state_of(config: Config, delivery: str) -> str:
    with Store.open(config.state) as store:
        (head,) = store.digest_heads()
        row = delivery_rows.row(store, head.id, delivery)
    assert row is not None
    return row.state


# -- each service's request ------------------------------------------------------------


@BOTH_BACKENDS
def test_each_delivery_gets_the_digest_once_in_its_own_format(config, chat):
    config = with_deliveries(config)
    report = deliver(config)
    assert [(p.delivery, p.sent) for p in report.deliveries] == [
        (kind, (DIGEST,)) for kind in ("slack", "discord", "matrix", "webhook")]

    (slack,) = chat.of("slack")
    assert (slack.method, slack.headers["Content-Type"]) == ("POST", "application/json")
    blocks = slack.json["blocks"]
    assert blocks[0] == {"type": "header", "text": {"type": "plain_text", "text": "Test digest: Tern 0.9 and Lumen 2.0"}}
    assert f"<https://digest.example.org/digests/{DIGEST}.html|Full digest>" in blocks[1]["elements"][0]["text"]
    assert [b["type"] for b in blocks[2:]] == ["section", "section"]
    assert blocks[3]["text"]["text"].startswith("*<https://lumen.example.org/blog/lumen-2.0/|Lumen 2.0: streaming")
    assert "_Query engine_: Streaming queries (Beta), Cost-based planner (Stable)" in blocks[3]["text"]["text"]
    assert slack.json["text"].startswith("Test digest: Tern 0.9 and Lumen 2.0: https://")

    (discord,) = chat.of("discord")
    assert discord.path == PATHS["discord"] + "?wait=true"
    assert discord.json["allowed_mentions"] == {"parse": []}
    assert [e["title"] for e in discord.json["embeds"]] == [
        "Tern 0.9: offline mode and a settled plugin interface",
        "Lumen 2.0: streaming queries, a new planner and faster joins"]
    assert discord.json["embeds"][1]["url"] == "https://lumen.example.org/blog/lumen-2.0/"
    assert f"<https://digest.example.org/digests/{DIGEST}.html>" in discord.json["content"]

    (matrix,) = chat.of("matrix")
    room = "%21room%3Aexample.org"
    assert matrix.method == "PUT"
    assert matrix.path.startswith(f"/_matrix/client/v3/rooms/{room}/send/m.room.message/{DIGEST}.")
    assert matrix.headers["Authorization"] == f"Bearer {TOKEN}"
    content = matrix.json
    assert (content["msgtype"], content["format"]) == ("m.notice", "org.matrix.custom.html")
    assert "Lumen 2.0: streaming queries" in content["body"] and "<" not in content["body"]
    assert '<li>Offline mode that queues writes until the network returns</li>' in content["formatted_body"]

    (hook,) = chat.of("webhook")
    assert hook.headers["Idempotency-Key"].startswith(f"{DIGEST}.")
    assert "Authorization" not in hook.headers
    payload = hook.json
    assert payload["version"] == 1
    assert payload["digest"] == {"name": DIGEST, "title": "Test digest: Tern 0.9 and Lumen 2.0",
                                 "url": f"https://digest.example.org/digests/{DIGEST}.html",
                                 "created": NOW.isoformat()}
    lumen = payload["entries"][1]
    assert (lumen["name"], lumen["project"], lumen["published"]) == ("Lumen 2.0", "Lumen", "2026-10-14T00:00:00+00:00")
    assert {"heading": "Cost-based planner", "stability": "Stable"} in lumen["sections"][0]["features"]
    assert lumen["also_in"] == [{"url": "https://lumen.example.org/de/blog/lumen-2.0/", "language": "de"}]

    # Posted once: a second run owes nothing.
    again = deliver(config)
    assert all(not p.sent for p in again.deliveries)
    assert len(chat.taken) == 4


@BOTH_BACKENDS
def test_a_webhook_sends_its_bearer_token(config, chat, monkeypatch):
    monkeypatch.setenv("HOOK_TOKEN", "s3cret")
    config = with_deliveries(config, ("webhook",))
    config.path.write_text(config.path.read_text(encoding="utf-8") + 'token_env = "HOOK_TOKEN"\n', encoding="utf-8")
    deliver(load(config.path))
    (hook,) = chat.of("webhook")
    assert hook.headers["Authorization"] == "Bearer s3cret"


@BOTH_BACKENDS
def test_a_delivery_new_to_the_database_starts_with_the_newest_digest(config, chat, posts_dir):
    config = with_deliveries(config, ("webhook",))
    (posts_dir / "extra.md").write_text("# Tern 1.0: the first stable release\n\n- Stable at last\n", encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(days=1))
    assert [p.sent for p in deliver(config).deliveries] == [("2026-11-03-1",)]

    (posts_dir / "more.md").write_text("# Tern 1.1: smaller installs\n\n- Smaller installs\n", encoding="utf-8")
    pipeline.build(config, now=NOW + timedelta(days=2))
    assert [p.sent for p in deliver(config).deliveries] == [("2026-11-04-1",)]
    assert [request.json["digest"]["name"] for request in chat.of("webhook")] == ["2026-11-03-1", "2026-11-04-1"]


@BOTH_BACKENDS
def test_a_digest_without_posts_is_not_posted(config, chat):
    config = with_deliveries(config, ("slack",))
    deliver(config)
    with Store.open(config.state) as store:
        store.add_digest(store.digest_name(NOW + timedelta(hours=1)), [], NOW + timedelta(hours=1))
    assert deliver(config).deliveries[0].sent == ()
    assert len(chat.of("slack")) == 1
    with Store.open(config.state) as store:
        empty = store.digest_heads()[-1]
        assert delivery_rows.row(store, empty.id, "slack").state == "skipped"
        assert delivery_rows.digests_owed(store, "slack") == []


@BOTH_BACKENDS
def test_a_run_asked_to_stop_leaves_the_rest_for_the_next(config, chat):
    config = with_deliveries(config, ("slack", "webhook"))
    asked = iter([False, True])
    report = outbox.deliver(config, sleep=Sleeps(), should_stop=lambda: next(asked))
    assert report.interrupted and report.waiting
    assert [p.delivery for p in report.deliveries] == ["slack", "webhook"]
    assert len(chat.taken) == 1
    assert deliver(config).deliveries[1].sent == (DIGEST,)
    assert len(chat.of("slack")) == len(chat.of("webhook")) == 1


# -- answers: rate limits, server errors, refusals -----------------------------------------


@pytest.mark.parametrize(("headers", "body", "waited"), [
    ({"Retry-After": "7"}, "", 7.0),
    ({}, json.dumps({"message": "You are being rate limited.", "retry_after": 1.5, "global": False}), 1.5),
    ({}, json.dumps({"errcode": "M_LIMIT_EXCEEDED", "retry_after_ms": 2500}), 2.5),
])
@BOTH_BACKENDS
def test_a_429_is_waited_out_as_long_as_it_asks(config, chat, headers, body, waited):
    config = with_deliveries(config, ("slack",))
    chat.answers.append((429, headers, body))
    sleeps = Sleeps()
    report = deliver(config, sleeps)
    assert sleeps == [waited]
    assert report.deliveries[0].sent == (DIGEST,)
    first, second = chat.of("slack")
    assert first.body == second.body


@BOTH_BACKENDS
def test_a_retry_after_date_is_waited_for_until_then(config, chat):
    config = with_deliveries(config, ("discord",))
    then = datetime.now(UTC) + timedelta(seconds=30)
    chat.answers.append((429, {"Retry-After": format_datetime(then, usegmt=True)}, ""))
    sleeps = Sleeps()
    assert deliver(config, sleeps).deliveries[0].sent == (DIGEST,)
    (waited,) = sleeps
    assert 0 < waited <= 30


@BOTH_BACKENDS
def test_a_429_asking_for_longer_than_the_cap_leaves_the_post_for_the_next_run(config, chat):
    config = with_deliveries(config, ("matrix",))
    chat.answers.append((429, {"Retry-After": str(int(RETRY_AFTER_CAP) + 1)}, ""))
    sleeps = Sleeps()
    report = deliver(config, sleeps)
    assert sleeps == [] and report.waiting
    assert report.deliveries[0].deferred[0][1].startswith("rate limited by 127.0.0.1: 429")
    assert state_of(config, "matrix") == "deferred"

    assert deliver(config).deliveries[0].sent == (DIGEST,)
    first, second = chat.of("matrix")
    assert (first.path, first.body) == (second.path, second.body)  # the same transaction


@BOTH_BACKENDS
def test_server_errors_are_tried_again_after_growing_waits_then_left_for_the_next_run(config, chat):
    config = with_deliveries(config, ("webhook",))
    chat.answers.extend([(500, {}, "oops")] * (len(RETRY_DELAYS) + 1))
    sleeps = Sleeps()
    report = deliver(config, sleeps)
    assert sleeps == list(RETRY_DELAYS)
    assert report.waiting and not report.broken
    assert report.deliveries[0].deferred == ((DIGEST, "500 oops"),)

    assert deliver(config).deliveries[0].sent == (DIGEST,)
    requests = chat.of("webhook")
    assert len(requests) == len(RETRY_DELAYS) + 2
    assert len({(r.body, r.headers["Idempotency-Key"]) for r in requests}) == 1


@BOTH_BACKENDS
def test_a_refusal_is_reported_in_one_line_and_not_tried_again(config, chat, caplog):
    config = with_deliveries(config, ("slack", "webhook"))
    chat.answers.append((404, {}, "no_service"))
    with caplog.at_level(logging.ERROR):
        report = deliver(config)
    assert f"delivery slack: digest {DIGEST}: refused: 404 no_service" in caplog.messages
    assert report.broken and not report.waiting
    assert [p.sent for p in report.deliveries] == [(), (DIGEST,)]

    deliver(config)
    assert len(chat.of("slack")) == 1


@BOTH_BACKENDS
def test_a_redirect_is_not_followed(config, chat):
    config = with_deliveries(config, ("webhook",))
    chat.answers.append((302, {"Location": chat.url + "/elsewhere"}, ""))
    (posted,) = deliver(config).deliveries
    assert "none is followed" in posted.failed[0][1]
    assert [r.path for r in chat.taken] == [PATHS["webhook"]]


@BOTH_BACKENDS
def test_a_post_whose_answer_is_lost_is_posted_again_by_the_next_run_under_the_same_key(config, chat, caplog):
    config = with_deliveries(config, ("webhook",))
    chat.lose_answers = 1
    report = deliver(config)
    assert report.waiting and "lost after the post was sent" in report.deliveries[0].deferred[0][1]
    assert state_of(config, "webhook") == "pending"
    assert len(chat.of("webhook")) == 1  # not again in the same run

    with caplog.at_level(logging.WARNING):
        assert deliver(config).deliveries[0].possible_repeats == (DIGEST,)
    assert any("posting it again under the same key" in m for m in caplog.messages)
    first, second = chat.of("webhook")
    assert first.headers["Idempotency-Key"] == second.headers["Idempotency-Key"]


@BOTH_BACKENDS
def test_a_delivery_goes_through_the_proxy_the_environment_names(config, chat, monkeypatch):
    for name in ("no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("http_proxy", chat.url)
    monkeypatch.setenv("CHAT_WEBHOOK_URL", "http://hooks.example.invalid/digest")
    config = with_deliveries(config, ("webhook",))
    assert deliver(config).deliveries[0].sent == (DIGEST,)
    (request,) = chat.taken
    assert request.path == "http://hooks.example.invalid/digest"  # the absolute form a proxy is sent


# -- the command line -----------------------------------------------------------------------


@BOTH_BACKENDS
def test_send_posts_without_an_email_section(config, chat):
    config = with_deliveries(config, ("slack",))
    result = CliRunner().invoke(cli, ["--config", str(config.path), "send"], standalone_mode=False)
    assert result.return_value == 0, result.output
    assert "delivery slack: 1 digest posted" in result.output
    assert len(chat.of("slack")) == 1


@BOTH_BACKENDS
def test_the_digest_job_posts_the_digest_it_makes(config, chat):
    config.path.write_text(config.path.read_text(encoding="utf-8") + deliveries_section(("slack",))
                           + '[schedule]\ndigest = "0 8 * * *"\n', encoding="utf-8")
    said = scheduler.run_due(load(config.path), "digest", now=NOW)
    assert said == f"new digest {DIGEST}; delivery slack: 1 digest posted; not mailed: no [email] section"
    assert len(chat.of("slack")) == 1


@BOTH_BACKENDS
def test_a_missing_variable_stops_its_delivery_alone(config, chat, smtp_server, monkeypatch, caplog):
    monkeypatch.delenv("CHAT_DISCORD_URL")
    config = with_deliveries(config, extra=email_section(smtp_server.port, ["ada@example.org"]))
    with caplog.at_level(logging.ERROR):
        result = CliRunner().invoke(cli, ["--config", str(config.path), "send"], standalone_mode=False)
    assert result.return_value == 1, result.output
    assert ("delivery discord: the environment variable CHAT_DISCORD_URL (url_env), which holds its URL,"
            " is not set") in caplog.messages
    assert "delivery discord: not posted (not set up)" in result.output
    assert [len(chat.of(kind)) for kind in ("slack", "discord", "matrix", "webhook")] == [1, 0, 1, 1]
    assert [item.recipient for item in smtp_server.sink.received] == ["ada@example.org"]


@BOTH_BACKENDS
def test_a_url_that_is_not_http_is_refused_without_being_shown(config, chat, monkeypatch, caplog):
    monkeypatch.setenv("CHAT_SLACK_URL", "file:///etc/secret-hook")
    config = with_deliveries(config, ("slack",))
    with caplog.at_level(logging.ERROR):
        report = deliver(config)
    assert report.broken
    assert caplog.messages == ["delivery slack: the environment variable CHAT_SLACK_URL (url_env) does not hold"
                               " an http(s) URL"]


# -- the config -----------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "problem"), [
    ('kind = "teams"\nurl_env = "X"', "deliveries[0].kind: must be one of slack, discord, matrix, webhook"),
    ('kind = "slack"\nurl_env = "https://hooks.slack.com/x"', "deliveries[0].url_env: must be: the NAME of an"),
    ('kind = "slack"', "deliveries[0].url_env: is required"),
    ('kind = "slack"\nurl_env = "X"\ntoken_env = "T"', "deliveries[0].token_env: is for matrix and webhook"),
    ('kind = "matrix"\nurl_env = "X"\ntoken_env = "T"\nroom = "#alias:example.org"', "deliveries[0].room: is required"),
    ('kind = "matrix"\nurl_env = "X"\nroom = "!a:example.org"', "deliveries[0].token_env: is required for Matrix"),
    ('kind = "webhook"\nurl_env = "X"\nroom = "!a:example.org"', "deliveries[0].room: is for matrix"),
    ('kind = "slack"\nurl_env = "X"\n[[deliveries]]\nkind = "slack"\nurl_env = "Y"',
     "deliveries: 'slack' names 2 deliveries: give each its own name"),
])
@BOTH_BACKENDS
def test_delivery_tables_are_checked(config, table, problem):
    config.path.write_text(config.path.read_text(encoding="utf-8") + f"[[deliveries]]\n{table}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=problem.replace("[", r"\[").replace("(", r"\(")):
        load(config.path)


@BOTH_BACKENDS
def test_two_deliveries_of_a_kind_have_names_of_their_own(config):
    config.path.write_text(config.path.read_text(encoding="utf-8") + f"""
[[deliveries]]
name = "team-room"
kind = "matrix"
url_env = "HS"
token_env = "TOKEN"
room = "{ROOM}"

[[deliveries]]
name = "ops-room"
kind = "matrix"
url_env = "HS"
token_env = "TOKEN"
room = "!ops:example.org"
""", encoding="utf-8")
    assert [(d.name, d.room) for d in load(config.path).deliveries] == [
        ("team-room", ROOM), ("ops-room", "!ops:example.org")]
