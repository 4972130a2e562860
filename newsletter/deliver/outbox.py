"""Post each new digest to every delivery of the config ([[deliveries]]), each once.

Once rests on the deliveries table of the state database, as mail's rests on its outbox
(newsletter/mail/send.py). The first time a digest is owed to a delivery, its request body
is made and committed with a key derived from the digest and the delivery (`queued`);
before the request goes out the row is committed `pending`; once the service answers 2xx,
`sent`. A run that starts again skips what is sent and posts the rest, with the body and
key it was queued with.

One window cannot be closed where the service keeps no memory of keys: a post the service
took whose answer never reached the `sent` commit (the process killed while the request was
answered, or the connection lost before the answer) stays `pending`, and the next run posts
it again. Matrix drops that repeat itself: the key is its transaction id, and a homeserver
answers a transaction it has seen with the event it made then. A webhook gets the same
Idempotency-Key header both times, so its receiver can drop it. Slack and Discord webhooks
take no such key: there the repeat shows, and is logged as a possible one.

A delivery whose environment variables are not set is reported in one line and skipped;
the others, and mail, go on.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from newsletter.config import Config
from newsletter.config.deliveries import DeliveryConfig
from newsletter.config.rules import http_url_problem
from newsletter.deliver import discord, matrix, slack, webhook
from newsletter.deliver.content import DigestView, digest_view
from newsletter.deliver.http import Poster, Request, Target
from newsletter.models import DigestHead
from newsletter.state import deliveries as outbox
from newsletter.state import lock
from newsletter.state.store import Store
from newsletter.words import count

log = logging.getLogger(__name__)


class Service(NamedTuple):
    # The request body a digest makes, as JSON.
    body: Callable[[DigestView], dict[str, Any]]
    # The request that posts it, under the key.
    request: Callable[[DeliveryConfig, Target, str, bytes], Request]


SERVICES = {
    "slack": Service(slack.body, slack.request),
    "discord": Service(discord.body, discord.request),
    "matrix": Service(matrix.body, matrix.request),
    "webhook": Service(webhook.body, webhook.request),
}


@dataclass(frozen=True)
class Posted:
    """What one run did for one delivery, by digest name."""

    delivery: str
    sent: tuple[str, ...] = ()
    # Refused for good (a 4xx other than 429, a redirect): (digest, the answer).
    failed: tuple[tuple[str, str], ...] = ()
    # Left for the next run: (digest, why).
    deferred: tuple[tuple[str, str], ...] = ()
    # Posted again because a run stopped while posting them.
    possible_repeats: tuple[str, ...] = ()
    # Why the delivery posted nothing at all (its environment variable not set).
    problem: str | None = None


@dataclass(frozen=True)
class DeliveryReport:
    deliveries: tuple[Posted, ...]
    # The run was asked to stop and left the rest for the next one.
    interrupted: bool = False

    @property
    def waiting(self) -> bool:
        """Whether posts are left for a later run."""
        return self.interrupted or any(posted.deferred for posted in self.deliveries)

    @property
    def broken(self) -> bool:
        """Whether a delivery needs the operator: not set up, or refused."""
        return any(posted.problem or posted.failed for posted in self.deliveries)


@dataclass
class _Tally:
    sent: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    deferred: list[tuple[str, str]] = field(default_factory=list)
    possible_repeats: list[str] = field(default_factory=list)

    def posted(self, delivery: str) -> Posted:
        return Posted(delivery, tuple(self.sent), tuple(self.failed), tuple(self.deferred),
                      tuple(self.possible_repeats))


def deliver(
    config: Config, *, sleep: Callable[[float], object] = time.sleep,
    should_stop: Callable[[], bool] = lambda: False,
) -> DeliveryReport:
    """Post every digest each delivery is owed. `should_stop` is asked between posts.
    Raises LockedError at once if another run uses the same state database."""
    done: list[Posted] = []
    with lock.state(config.state, "deliver"), Store.open(config.state) as store:
        poster = Poster()
        try:
            for delivery in config.deliveries:
                target = _target(delivery)
                if isinstance(target, str):
                    log.error("delivery %s: %s", delivery.name, target)
                    done.append(Posted(delivery.name, problem=target))
                    continue
                posted, interrupted = _deliver(config, store, poster, delivery, target, sleep, should_stop)
                done.append(posted)
                if interrupted:
                    return DeliveryReport(tuple(done), interrupted=True)
        finally:
            poster.close()
    return DeliveryReport(tuple(done))


def describe(report: DeliveryReport) -> str:
    """What the run did, in one line."""
    parts = [
        f"delivery {p.delivery}: not posted (not set up)" if p.problem else
        f"delivery {p.delivery}: {count(len(p.sent), 'digest')} posted"
        + (f", {len(p.failed)} refused" if p.failed else "")
        + (f", {len(p.deferred)} left for the next send" if p.deferred else "")
        for p in report.deliveries
    ]
    stopped = "; stopped early, the rest goes out with the next send" if report.interrupted else ""
    return "; ".join(parts) + stopped


def post_key(secret: bytes, head: DigestHead, delivery: DeliveryConfig) -> str:
    """The same for the same digest and delivery in every run; made with the state
    database's own key, so a new database never repeats an old one's."""
    token = hmac.new(secret, f"{head.name}\n{delivery.name}".encode(), hashlib.sha256).hexdigest()[:24]
    return f"{head.name}.{token}"


def _deliver(
    config: Config, store: Store, poster: Poster, delivery: DeliveryConfig, target: Target,
    sleep: Callable[[float], object], should_stop: Callable[[], bool],
) -> tuple[Posted, bool]:
    service = SERVICES[delivery.kind]
    tally = _Tally()
    for head in outbox.digests_owed(store, delivery.name):
        if should_stop():
            log.info("delivery %s: stopping; the rest is left for the next run", delivery.name)
            return tally.posted(delivery.name), True
        row = outbox.row(store, head.id, delivery.name)
        if row is None:
            if head.entry_count == 0:
                outbox.queue(store, head.id, delivery.name, "", "", _utcnow(), state="skipped")
                continue
            body = json.dumps(service.body(digest_view(config, store, head)), ensure_ascii=False)
            row = outbox.DeliveryRow(post_key(store.message_key(), head, delivery), body, "queued")
            outbox.queue(store, head.id, delivery.name, row.key, row.body, _utcnow())
        if row.state == "pending":
            log.warning("delivery %s: the last run stopped while posting digest %s; posting it again"
                        " under the same key %s", delivery.name, head.name, row.key)
            tally.possible_repeats.append(head.name)
        request = service.request(delivery, target, row.key, row.body.encode("utf-8"))
        outbox.set_state(store, head.id, delivery.name, "pending", _utcnow())
        where = f"delivery {delivery.name}: digest {head.name}"
        outcome, answer = poster.post(request, where, sleep)
        if outcome == "unconfirmed":
            # Left pending: the next run posts it again under the same key; posting it again
            # now could make a copy for every retry.
            log.warning("%s: %s; it may have arrived: not posted again in this run", where, answer)
            tally.deferred.append((head.name, str(answer)))
            continue
        outbox.set_state(store, head.id, delivery.name, outcome, _utcnow(), answer)
        if outcome == "sent":
            tally.sent.append(head.name)
        elif outcome == "failed":
            log.error("%s: refused: %s", where, answer)
            tally.failed.append((head.name, str(answer)))
        else:
            log.warning("%s: %s; left for the next send", where, answer)
            tally.deferred.append((head.name, str(answer)))
    return tally.posted(delivery.name), False


def _target(delivery: DeliveryConfig) -> Target | str:
    """Where the delivery posts, or what is wrong with its environment variables (never
    their values: they are secrets)."""
    url = os.environ.get(delivery.url_env, "")
    if not url:
        return f"the environment variable {delivery.url_env} (url_env), which holds its URL, is not set"
    if http_url_problem(url):
        return f"the environment variable {delivery.url_env} (url_env) does not hold an http(s) URL"
    token = os.environ.get(delivery.token_env, "") if delivery.token_env else None
    if token is not None and not (token and token.isprintable()):
        return (f"the environment variable {delivery.token_env} (token_env), which holds its token,"
                f" is {'not set' if not token else 'not one line of text'}")
    return Target(url, token)


def _utcnow() -> datetime:
    return datetime.now(UTC)
