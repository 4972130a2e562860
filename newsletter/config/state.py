"""`[state]`: where the state database is. A SQLite file (`path`, the default) for one
machine, or a PostgreSQL database (`url`) that several processes and hosts share.

A PostgreSQL password never lives in the config: `password_env` names the environment
variable holding it, as `email.password_env` does for SMTP, and a URL carrying one is
refused. So a URL can be named in every message, errors included.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from newsletter.config.rules import check, password_env_problem, private_state_problem

KEYS = {"path", "url", "password_env"}
SCHEMES = ("postgresql", "postgres")


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
            ("state.url", url_problem(self.url) if self.url else None),
            ("state.password_env", password_env_problem(self.password_env)),
        ])

    @property
    def on_postgres(self) -> bool:
        return self.url is not None

    def __str__(self) -> str:
        """What messages name the database by: its file, or its URL (which holds no password)."""
        return self.url or str(self.path)


BOTH = "set path (a SQLite file) or url (a PostgreSQL database), not both"


def url_problem(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        return f"must be a postgresql:// URL (got {parts.scheme or 'no'} scheme)"
    if parts.password is not None:
        return ("holds a password, and secrets never live in the config: remove it, and name the"
                " environment variable holding it in state.password_env")
    return None


def read_state(table: dict, base: Path, archive_dir: Path) -> tuple[StateLocation, list[tuple[str, str]]]:
    """The location `[state]` names (a relative path from the config's folder), with what is
    wrong in it, by key; when something is, the default file stands in, for a command that
    does not use the state. A URL is never repeated in a problem: it might hold a password."""
    default = StateLocation(path=base / "state.sqlite")
    path, url, password_env = (table.get(key) for key in ("path", "url", "password_env"))
    wrong = [(f"state.{key}", "must be a string") for key in sorted(KEYS)
             if key in table and not isinstance(table[key], str)]
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
    wrong = [(key, problem) for key, problem in [
        ("state.url", url_problem(url)), ("state.password_env", password_env_problem(password_env))] if problem]
    return (default, wrong) if wrong else (StateLocation(url=url, password_env=password_env or None), [])
