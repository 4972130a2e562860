"""`[[deliveries]]`: where `newsletter send` posts each new digest besides mail, and the rules
each delivery's table follows.

The URL is a secret (a Slack or Discord webhook URL is all it takes to post to the
channel), so the config names the environment variable that holds it, as it does for the
Matrix access token.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, get_args

from newsletter import lazy_re
from newsletter.config.rules import ENV_NAME, check

DeliveryKind = Literal["slack", "discord", "matrix", "webhook"]
DELIVERY_KINDS: tuple[DeliveryKind, ...] = get_args(DeliveryKind)
KEYS = {"name", "kind", "url_env", "token_env", "room"}
# A Matrix room id: "!" then an opaque part, ":" and the server that made it. An alias
# ("#room:server") would need a lookup before every post.
_ROOM_ID = lazy_re.compile(r"![^:\s]+:\S+")
_NAME = lazy_re.compile(r"[\w.-]{1,64}")


@dataclass(frozen=True)
class DeliveryConfig:
    # How the outbox and every message name it; the kind, unless two share one.
    name: str
    kind: DeliveryKind
    # The NAME of the environment variable holding the URL: the webhook's, or the Matrix
    # homeserver's.
    url_env: str
    # The NAME of the variable holding the token: Matrix's access token, or a bearer token a
    # webhook sends.
    token_env: str | None = None
    # The Matrix room's id ("!abc:example.org").
    room: str | None = None

    def __post_init__(self) -> None:
        check((f"deliveries.{self.name}.{key}", problem) for key, problem in delivery_problems(
            self.name, self.kind, self.url_env, self.token_env, self.room))


def delivery_problems(
    name: object, kind: object, url_env: object, token_env: object, room: object,
) -> Iterator[tuple[str, str]]:
    """(key, problem) for each key of one delivery's table that is wrong."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        yield "name", f"must be letters, digits, '.', '_' or '-', at most 64 (got {name!r})"
    if kind not in DELIVERY_KINDS:
        yield "kind", f"must be one of {', '.join(DELIVERY_KINDS)} (got {kind!r})"
    if not isinstance(url_env, str) or not ENV_NAME.fullmatch(url_env):
        yield "url_env", (f"{'is required' if url_env is None else 'must be'}: the NAME of an environment"
                          " variable holding the URL (like NEWSLETTER_SLACK_URL), not the URL")
    if token_env is not None and (not isinstance(token_env, str) or not ENV_NAME.fullmatch(token_env)):
        yield "token_env", "must be the NAME of an environment variable holding the token, not the token"
    if kind == "matrix" and token_env is None:
        yield "token_env", "is required for Matrix: the NAME of the variable holding the access token"
    if kind in ("slack", "discord") and token_env is not None:
        yield "token_env", f"is for matrix and webhook deliveries: a {kind} webhook URL carries its own key"
    if kind == "matrix" and not (isinstance(room, str) and _ROOM_ID.fullmatch(room)):
        yield "room", f"is required for Matrix: the room's id, like \"!abc123:example.org\" (got {room!r})"
    if kind != "matrix" and room is not None:
        yield "room", "is for matrix deliveries"


def read_deliveries(value: object) -> tuple[tuple[DeliveryConfig, ...], list[tuple[str, str]]]:
    """The `deliveries` array of config.toml: the deliveries it makes, and (key, problem) for
    everything wrong in it."""
    if not isinstance(value, list) or not all(isinstance(table, dict) for table in value):
        return (), [("deliveries", "must be an array of tables ([[deliveries]])")]
    found, problems = [], []
    for index, table in enumerate(value):
        kind = table.get("kind")
        name = table.get("name", kind)
        wrong = [(f"deliveries[{index}].{key}", problem) for key, problem in delivery_problems(
            name, kind, table.get("url_env"), table.get("token_env"), table.get("room"))]
        problems.extend(wrong)
        if not wrong:
            found.append(DeliveryConfig(name, kind, table["url_env"], table.get("token_env"), table.get("room")))
    for name, uses in Counter(delivery.name for delivery in found).items():
        if uses > 1:
            problems.append(("deliveries", f"{name!r} names {uses} deliveries: give each its own name"))
    return tuple(found), problems
