"""config.toml -> Config, with every problem in the file reported at once."""

from __future__ import annotations

import logging
import tomllib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from newsletter.languages import language_tag

log = logging.getLogger(__name__)

SOURCE_KINDS = ("folder", "page", "feed")


class ConfigError(Exception):
    """The configuration cannot be used; the message lists every problem, one per line."""


@dataclass(frozen=True)
class SiteConfig:
    title: str
    url: str
    author: str
    # The language of the site's own words (titles, template text): feeds' xml:lang, <html lang>.
    language: str = "en"


@dataclass(frozen=True)
class SourceConfig:
    name: str
    kind: str
    # A folder source's directory; page and feed sources have a URL instead.
    path: Path | None = None
    url: str | None = None
    glob: str = "**/*"


@dataclass(frozen=True)
class HttpConfig:
    """How the collector talks to web servers; the defaults suit any public site."""

    # Seconds one request may take in all (connect, answer and body), redirects included.
    timeout: float = 30.0
    # Bodies larger than this, after decompression, are not read.
    max_bytes: int = 5 * 1024 * 1024
    # Further attempts after a connection error, a 429 or a 5xx answer.
    retries: int = 3
    # Requests in flight at once to one host.
    per_host: int = 2


@dataclass(frozen=True)
class Config:
    path: Path
    site: SiteConfig
    sources: tuple[SourceConfig, ...]
    archive_dir: Path
    state_path: Path
    # Entries kept in posts.atom; older ones move to archive pages.
    feed_size: int
    # A folder whose templates replace the bundled ones of the same name.
    templates_dir: Path | None
    # Digests kept in digests.atom (each carries a whole digest, so fewer than posts).
    digest_feed_size: int = 10
    http: HttpConfig = HttpConfig()


_KNOWN_KEYS = {
    "": {"site", "sources", "archive", "state", "templates", "http"},
    "site": {"title", "url", "author", "language"},
    "sources": {"name", "kind", "path", "url", "glob"},
    "archive": {"dir", "feed_size", "digest_feed_size"},
    "state": {"path"},
    "templates": {"dir"},
    "http": {"timeout", "max_bytes", "retries", "per_host"},
}


class _Problems:
    """Collects problems while the config is walked, so the user sees all of them at once."""

    def __init__(self, path: Path):
        self.path = path
        self.items: list[str] = []

    def add(self, key: str, problem: str) -> None:
        self.items.append(f"{self.path}: {key}: {problem}")


def load(path: Path) -> Config:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None

    problems = _Problems(path)
    _warn_unknown_keys(path, data)
    base = path.parent.resolve()

    site = _table(data, "site", problems)
    site_config = SiteConfig(
        title=_string(site, "site.title", problems, default="Release notes"),
        url=_url(site, "site.url", problems, default="http://localhost/"),
        author=_string(site, "site.author", problems, default="newsletter"),
        language=_language(site, "site.language", problems),
    )

    sources = data.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, dict) for s in sources):
        problems.add("sources", "must be an array of tables ([[sources]])")
        sources = []
    source_configs = []
    seen_names: set[str] = set()
    for index, source in enumerate(sources):
        parsed = _source(source, f"sources[{index}]", base, problems)
        if parsed is None:
            continue
        if parsed.name in seen_names:
            problems.add(f"sources[{index}].name", f"{parsed.name!r} is used by another source")
        seen_names.add(parsed.name)
        source_configs.append(parsed)

    archive = _table(data, "archive", problems)
    state = _table(data, "state", problems)
    templates = _table(data, "templates", problems)
    feed_size = _positive_int(archive, "archive.feed_size", problems, default=50)
    digest_feed_size = _positive_int(archive, "archive.digest_feed_size", problems, default=10)
    templates_dir = _string(templates, "templates.dir", problems, default="")
    http = _http(_table(data, "http", problems), problems)

    config = Config(
        path=path,
        site=site_config,
        sources=tuple(source_configs),
        archive_dir=base / _string(archive, "archive.dir", problems, default="archive"),
        state_path=base / _string(state, "state.path", problems, default="state.sqlite"),
        feed_size=feed_size,
        templates_dir=base / templates_dir if templates_dir else None,
        digest_feed_size=digest_feed_size,
        http=http,
    )
    if problems.items:
        raise ConfigError("\n".join(problems.items))
    return config


def _source(source: dict, key: str, base: Path, problems: _Problems) -> SourceConfig | None:
    name = _string(source, f"{key}.name", problems, default="")
    kind = _string(source, f"{key}.kind", problems, default="")
    if not name:
        problems.add(f"{key}.name", "is required")
    if kind not in SOURCE_KINDS:
        problems.add(f"{key}.kind", f"must be one of {', '.join(SOURCE_KINDS)} (got {kind!r})")
        return None
    if kind == "folder":
        folder = _string(source, f"{key}.path", problems, default="")
        if not folder:
            problems.add(f"{key}.path", "is required for a folder source")
            return None
        glob = _string(source, f"{key}.glob", problems, default="**/*")
        return SourceConfig(name=name, kind=kind, path=base / folder, glob=glob)
    url = _url(source, f"{key}.url", problems, default="")
    if not url:
        return None
    return SourceConfig(name=name, kind=kind, url=url)


def _http(table: dict, problems: _Problems) -> HttpConfig:
    default = HttpConfig()
    timeout = table.get("timeout", default.timeout)
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        problems.add("http.timeout", "must be a positive number of seconds")
        timeout = default.timeout
    return HttpConfig(
        timeout=float(timeout),
        max_bytes=_integer(table, "http.max_bytes", problems, default=default.max_bytes, least=1),
        retries=_integer(table, "http.retries", problems, default=default.retries, least=0),
        per_host=_integer(table, "http.per_host", problems, default=default.per_host, least=1),
    )


def _integer(table: dict, key: str, problems: _Problems, *, default: int, least: int) -> int:
    value = table.get(key.rsplit(".", 1)[-1], default)
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        problems.add(key, f"must be an integer of at least {least} (got {value!r})")
        return default
    return value


def _table(data: dict, key: str, problems: _Problems) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        problems.add(key, "must be a table")
        return {}
    return value


def _string(table: dict, key: str, problems: _Problems, *, default: str) -> str:
    value = table.get(key.rsplit(".", 1)[-1], default)
    if not isinstance(value, str):
        problems.add(key, f"must be a string (got {type(value).__name__})")
        return default
    return value


def _positive_int(table: dict, key: str, problems: _Problems, *, default: int) -> int:
    value = table.get(key.rsplit(".", 1)[-1], default)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        problems.add(key, "must be a positive integer")
        return default
    return value


def _language(table: dict, key: str, problems: _Problems) -> str:
    value = _string(table, key, problems, default="en")
    if language_tag(value) is None:
        problems.add(key, f"must be a language tag like \"en\" or \"pt-BR\" (got {value!r})")
        return "en"
    return value


def _url(table: dict, key: str, problems: _Problems, *, default: str) -> str:
    value = _string(table, key, problems, default=default)
    if value and value != default:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            problems.add(key, f"must be an http(s) URL (got {value!r})")
            return ""
    elif not value:
        problems.add(key, "is required")
    return value


def _warn_unknown_keys(path: Path, data: dict) -> None:
    def check(table: dict, section: str) -> None:
        for key in table:
            if key not in _KNOWN_KEYS.get(section, set()):
                where = f"{section}.{key}" if section else key
                log.warning("%s: %s: unknown key, ignored", path, where)

    check(data, "")
    for section in _KNOWN_KEYS:
        value = data.get(section) if section else None
        if isinstance(value, dict):
            check(value, section)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    check(item, section)
