"""The rules a config must follow. Each returns what is wrong with a value, or None; the
TOML reader and the config types' own checks (a Config built in Python) apply the same ones."""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from newsletter import lazy_re
from newsletter.errors import ConfigError
from newsletter.languages import language_tag

# How late a missed scheduled run may still start.
MAX_GRACE_MINUTES = 7 * 24 * 60
NO_UNSUBSCRIBE = ("needs unsubscribe_url or unsubscribe_mailto (or a [web] section), so every message can say"
                  " how to unsubscribe")
NO_WEB_EMAIL = "needs an [email] section: sign-ups are confirmed by mail"
LOOPBACK = ("localhost", "127.0.0.1", "::1")
ENV_NAME = lazy_re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def http_url_problem(value: str) -> str | None:
    parts = urlsplit(value)
    return None if parts.scheme in ("http", "https") and parts.netloc else f"must be an http(s) URL (got {value!r})"


def project_problem(value: object) -> str | None:
    """A project's name: shown as a heading of the feature pages, so one short line."""
    if isinstance(value, str) and value.strip() == value and value and len(value) <= 100 and value.isprintable():
        return None
    return f"must be a project's name on one line of at most 100 characters (got {value!r})"


def boolean_problem(value: object) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false (got {value!r})"


def language_problem(value: str) -> str | None:
    return None if language_tag(value) else f"must be a language tag like \"en\" or \"pt-BR\" (got {value!r})"


def integer_problem(value: object, least: int) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= least:
        return None
    return f"must be an integer of at least {least} (got {value!r})"


def positive_problem(value: object, least: int = 1) -> str | None:
    return None if integer_problem(value, least) is None else "must be a positive integer"


def timeout_problem(value: object) -> str | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value < math.inf:
        return None
    return "must be a positive number of seconds"


def grace_problem(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_GRACE_MINUTES:
        return None
    return f"must be a whole number of minutes from 1 to {MAX_GRACE_MINUTES} (a week)"


def private_state_problem(state_path: Path, archive_dir: Path) -> str | None:
    """The state database holds every subscriber's address: never where the archive is
    published."""
    if state_path.resolve().is_relative_to(archive_dir.resolve()):
        return (f"{state_path} is inside archive.dir ({archive_dir}), which is published:"
                " every subscriber's address would be public")
    return None


def port_problem(value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536:
        return None
    return f"must be a port number, 1 to 65535 (got {value!r})"


def password_env_problem(name: str | None) -> str | None:
    if not name or ENV_NAME.fullmatch(name):
        return None
    return ("must be the NAME of an environment variable holding the password"
            " (like NEWSLETTER_SMTP_PASSWORD), not the password")


def secret_env_problem(name: str) -> str | None:
    if ENV_NAME.fullmatch(name):
        return None
    return "must be the NAME of an environment variable holding the key (like NEWSLETTER_SECRET), not the key"


def no_unsubscribe_problem(url: str | None, mailto: str | None, web: bool) -> str | None:
    """Every message says how to unsubscribe: by a page, a mailbox, or the service's own link."""
    return None if url or mailto or web else NO_UNSUBSCRIBE


def web_url_problem(url: str) -> str | None:
    """The service's links go out in every message, and mail providers honour one-click
    unsubscribes only over https; plain http is for trying it out on this machine."""
    parts = urlsplit(url)
    if parts.scheme == "https" or parts.hostname in LOOPBACK:
        return None
    return f"must be an https URL when [web] is set: it is where the unsubscribe links point (got {url!r})"


def credentials_problem(username: str | None, password_env: str | None) -> str | None:
    return None if bool(username) == bool(password_env) else "username and password_env go together (both, or neither)"


def plain_password_problem(username: str | None, security: str, host: str) -> str | None:
    if username and security == "none" and host not in LOOPBACK:
        return f'"none" would send the password to {host} unencrypted'
    return None


def unsubscribe_url_problem(url: str | None) -> str | None:
    parts = urlsplit(url or "")
    return f"must be an https URL (got {url!r})" if url and (parts.scheme != "https" or not parts.netloc) else None


def check(rules: Iterable[tuple[str, str | None]]) -> None:
    """Raise ConfigError naming each key whose rule failed, one line each."""
    found = [f"{key}: {problem}" for key, problem in rules if problem]
    if found:
        raise ConfigError("\n".join(found))

