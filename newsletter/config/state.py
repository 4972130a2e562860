"""`[state]`: where the state database is. A SQLite file (`path`, the default) for one
machine, or a PostgreSQL database (`url`) that several processes and hosts share.

A PostgreSQL password never lives in the config: `password_env` names the environment
variable holding it, as `email.password_env` does for SMTP, and a URL carrying one (before
the host or in its query) is refused. A URL is still shown with any password masked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from newsletter.config.rules import check, password_env_problem, private_state_problem

KEYS = {"path", "url", "password_env"}
# Keys that are known so as to be refused, rather than ignored with a warning.
REFUSED_KEYS = {"password"}
SCHEMES = ("postgresql", "postgres")
# The query parameters of a libpq URL that hold a secret.
SECRET_PARAMETERS = ("password", "sslpassword")
_SECRETS_ELSEWHERE = ("secrets never live in the config: remove it, and name the environment variable"
                      " holding the password in state.password_env")


@dataclass(frozen=True)
class StateLocation:
    """A SQLite file (`path`) or a PostgreSQL database (`url`, with the NAME of the variable
    holding its password, if it needs one): exactly one of the two."""

    path: Path | None = None
    url: str | None = None
    password_env: str | None = None

    def __post_init__(self) -> None:
        check([
            ("state", None if (self.path is None) != (self.url is None) else BOTH),
            *(postgres_problems(self.url, self.password_env) if self.url else []),
        ])

    @property
    def on_postgres(self) -> bool:
        return self.url is not None

    def __str__(self) -> str:
        """What messages name the database by: its file, or its URL (with any password masked,
        though the config refuses one)."""
        return masked(self.url) if self.url else str(self.path)


BOTH = "set path (a SQLite file) or url (a PostgreSQL database), not both"


def postgres_problems(url: str, password_env: str | None) -> list[tuple[str, str | None]]:
    """The rules a PostgreSQL location keeps, by key."""
    return [("state.url", url_problem(url)), ("state.password_env", password_env_problem(password_env))]


def url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        return f"must be a postgresql:// URL (got {parts.scheme or 'no'} scheme)"
    secrets = [key for key, _ in parse_qsl(parts.query) if key in SECRET_PARAMETERS]
    if parts.password is not None or secrets:
        where = f" in its {' and '.join(secrets)} parameter" if secrets else ""
        return f"holds a password{where}, and {_SECRETS_ELSEWHERE}"
    return None


def masked(url: str) -> str:
    """`url` with the password before its host and any secret query parameter as ***."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:***@{host}"
    query = parts.query
    if any(key in SECRET_PARAMETERS for key, _ in parse_qsl(query)):
        query = urlencode([(key, "***" if key in SECRET_PARAMETERS else value) for key, value in parse_qsl(query)],
                          safe="*/")
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def read_state(table: dict, base: Path, archive_dir: Path) -> tuple[StateLocation, list[tuple[str, str]]]:
    """The location `[state]` names (a relative path from the config's folder), with what is
    wrong in it, by key; when something is, the default file stands in, for a command that
    does not use the state. A URL is never repeated in a problem: it might hold a password."""
    default = StateLocation(path=base / "state.sqlite")
    path, url, password_env = (table.get(key) for key in ("path", "url", "password_env"))
    wrong = [(f"state.{key}", "must be a string") for key in sorted(KEYS)
             if key in table and not isinstance(table[key], str)]
    if "password" in table:
        wrong.append(("state.password", _SECRETS_ELSEWHERE))
    if not wrong and path is not None and url is not None:
        wrong = [("state", BOTH)]
    if wrong:
        return default, wrong
    if url is None:
        file = base / (path or "state.sqlite")
        wrong = [(key, problem) for key, problem in [
            ("state.path", private_state_problem(file, archive_dir)),
            ("state.password_env", "goes with state.url (a PostgreSQL database)" if password_env else None),
        ] if problem]
        return (default, wrong) if wrong else (StateLocation(path=file), [])
    wrong = [(key, problem) for key, problem in postgres_problems(url, password_env) if problem]
    return (default, wrong) if wrong else (StateLocation(url=url, password_env=password_env or None), [])
