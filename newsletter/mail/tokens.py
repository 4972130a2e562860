"""Signed links for one subscriber: unsubscribe and preferences (in every message) and confirm
(a sign-up).

A token is `<subscriber id>.<HMAC-SHA256>`, the HMAC taken over the link's purpose, the id
and the address, with the key from the environment variable `web.secret_env` names. Binding
the address too means a database made afresh, which hands the same ids to other people,
never turns an old link into someone else's. A confirmation link is also bound to the time of
its sign-up, so it works once and a new sign-up makes the older link void. Unsubscribe and
preferences links never expire: a message read a year late must still work. Keys named by
`web.previous_secret_envs` are tried after the current one, so links signed before a key
rotation keep working.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from typing import Literal

from newsletter import lazy_re
from newsletter.config import Config, WebConfig
from newsletter.errors import WebError
from newsletter.publish.paths import site_url

Purpose = Literal["unsubscribe", "confirm", "preferences"]
# Shorter keys are guessable offline from a single link.
MIN_KEY_LENGTH = 32
_TOKEN = lazy_re.compile(r"([1-9][0-9]{0,17})\.([A-Za-z0-9_-]{43})")


class Signer:
    def __init__(self, keys: list[bytes]):
        # The first key signs; all of them verify.
        self.keys = keys

    def sign(self, purpose: Purpose, subscriber_id: int, *bound_to: str) -> str:
        return f"{subscriber_id}.{_mac(self.keys[0], purpose, subscriber_id, bound_to)}"

    def verify(self, purpose: Purpose, token: str, subscriber_id: int, *bound_to: str) -> bool:
        """Whether `token` is this subscriber's link for `purpose`, signed with any of the keys."""
        if subscriber_id_of(token) != subscriber_id:
            return False
        mac = token.partition(".")[2]
        return any(hmac.compare_digest(mac, _mac(key, purpose, subscriber_id, bound_to)) for key in self.keys)


def subscriber_id_of(token: str) -> int | None:
    """The id a well-formed token claims, before any check of its signature."""
    match = _TOKEN.fullmatch(token)
    return int(match.group(1)) if match else None


def signer(web: WebConfig) -> Signer:
    """The Signer for the keys `web` names; WebError, naming the key, if one is unset or short."""
    keys = []
    for key, name in [("web.secret_env", web.secret_env),
                      *((f"web.previous_secret_envs[{i}]", n) for i, n in enumerate(web.previous_secret_envs))]:
        value = os.environ.get(name)
        # The variable's name is not printed: a key put in secret_env by mistake would be.
        if value is None:
            raise WebError(f"the environment variable that {key} names, which holds a signing key, is not set")
        if len(value) < MIN_KEY_LENGTH:
            raise WebError(f"the key in the environment variable that {key} names is shorter than {MIN_KEY_LENGTH}"
                           " characters; make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'")
        keys.append(value.encode("utf-8"))
    return Signer(keys)


def link(config: Config, purpose: Purpose, token: str) -> str:
    """The public URL of a signed link: the service answers at site.url."""
    return site_url(config, f"{purpose}/{token}")


def _mac(key: bytes, purpose: str, subscriber_id: int, bound_to: tuple[str, ...]) -> str:
    message = "\0".join([purpose, str(subscriber_id), *bound_to]).encode("utf-8")
    return base64.urlsafe_b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode("ascii").rstrip("=")
