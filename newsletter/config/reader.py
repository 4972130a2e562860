"""config.toml -> Config, with every problem in the file reported at once."""

from __future__ import annotations

import logging
import re
import tomllib
from collections.abc import Callable, Collection, Iterator, Mapping
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from newsletter import lazy_re
from newsletter.config.deliveries import KEYS as DELIVERY_KEYS
from newsletter.config.deliveries import read_deliveries
from newsletter.config.filters import TitleFilter, pattern
from newsletter.config.model import (
    BACKLOGS,
    SMTP_PORTS,
    SOURCE_KINDS,
    Backlog,
    Config,
    EmailConfig,
    FeedSource,
    FolderSource,
    HttpConfig,
    PageSource,
    ScheduleConfig,
    SiteConfig,
    SourceConfig,
    WebConfig,
)
from newsletter.config.rules import (
    NO_WEB_EMAIL,
    boolean_problem,
    credentials_problem,
    grace_problem,
    http_url_problem,
    integer_problem,
    language_problem,
    no_unsubscribe_problem,
    password_env_problem,
    plain_password_problem,
    port_problem,
    positive_problem,
    project_problem,
    secret_env_problem,
    timeout_problem,
    unsubscribe_url_problem,
    web_url_problem,
)
from newsletter.config.state import KEYS as STATE_KEYS
from newsletter.config.state import REFUSED_KEYS as STATE_REFUSED_KEYS
from newsletter.config.state import read_state
from newsletter.errors import ConfigError
from newsletter.schedule.crontab import cron_trigger

if TYPE_CHECKING:
    from email.headerregistry import Address

log = logging.getLogger(__name__)

Choice = TypeVar("Choice", bound=str)


_KNOWN_KEYS = {
    "": {"site", "sources", "archive", "state", "templates", "http", "email", "schedule", "web", "deliveries"},
    "site": {"title", "url", "author", "language"},
    "sources": {
        "name", "kind", "path", "url", "glob", "allow_private", "max_posts", "backlog", "project", "include",
        "exclude", "prereleases",
    },
    "archive": {"dir", "feed_size", "digest_feed_size"},
    "state": STATE_KEYS | STATE_REFUSED_KEYS,
    "templates": {"dir"},
    "http": {"timeout", "max_bytes", "retries", "per_host", "source_budget", "build_budget"},
    "email": {
        "host", "port", "security", "username", "password_env", "from", "subscribers",
        "subscribers_file", "unsubscribe_mailto", "unsubscribe_url", "send_empty", "bounce_limit",
        "connections",
    },
    "web": {"secret_env", "previous_secret_envs", "confirm_days"},
    "deliveries": DELIVERY_KEYS,
    "schedule": {"collect", "digest", "timezone", "misfire_grace_minutes"},
}


class _Problems:
    """Collects problems while the config is walked, so the user sees all of them at once."""

    def __init__(self, path: Path):
        self.path = path
        self.items: list[str] = []
        # The top-level section of each item's key: "sources" for "sources[0].url".
        self.sections: list[str] = []

    def add(self, key: str, problem: str) -> None:
        self.items.append(f"{self.path}: {key}: {problem}")
        self.sections.append(re.split(r"[.\[]", key, maxsplit=1)[0])

    def raise_any(self, sections: Collection[str] | None) -> None:
        """ConfigError with every problem in `sections` (all of them if None); problems
        elsewhere are logged, for a command that does not use those sections."""
        blocking = []
        for item, section in zip(self.items, self.sections, strict=True):
            if sections is None or section in sections:
                blocking.append(item)
            else:
                log.warning("%s (not used by this command)", item)
        if blocking:
            raise ConfigError("\n".join(blocking))


def load(path: Path, sections: Collection[str] | None = None) -> Config:
    """The config at `path`. With `sections` (like {"sources", "state"}), a problem in
    another section is only logged, and [email], [web] and [schedule] are left out if not
    named: a command that needs none of them runs whatever state they are in."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None

    problems = _Problems(path)
    # A misspelt section ("[[sorces]]") would leave out all it holds without a word.
    for section in data.keys() - _KNOWN_KEYS[""]:
        problems.add(section, f"unknown section; the sections are {', '.join(sorted(_KNOWN_KEYS[''] ))}")
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
    feed_size = _integer(archive, "archive.feed_size", problems, default=50, rule=positive_problem)
    digest_feed_size = _integer(archive, "archive.digest_feed_size", problems, default=10, rule=positive_problem)
    templates_dir = _string(templates, "templates.dir", problems, default="")
    http = _http(_table(data, "http", problems), problems)
    email = _email(data, base, problems, web="web" in data) if "email" in data else None
    schedule = _schedule(data, problems) if "schedule" in data else None
    web = _web(_table(data, "web", problems), problems) if "web" in data else None
    if web and "email" not in data:
        problems.add("web", NO_WEB_EMAIL)
    site_problem = web_url_problem(site_config.url) if web else None
    if site_problem:
        problems.add("site.url", site_problem)
    archive_dir = base / _string(archive, "archive.dir", problems, default="archive")
    state_location, wrong = read_state(state, base, archive_dir)
    for key, problem in wrong:
        problems.add(key, problem)

    deliveries, wrong = read_deliveries(data.get("deliveries", []))
    for key, problem in wrong:
        problems.add(key, problem)

    problems.raise_any(sections)
    if sections is not None:
        deliveries = deliveries if "deliveries" in sections else ()
        email = email if "email" in sections else None
        schedule = schedule if "schedule" in sections else None
        web = web if "web" in sections else None
    return Config(
        path=path,
        site=site_config,
        sources=tuple(source_configs),
        archive_dir=archive_dir,
        state=state_location,
        feed_size=feed_size,
        templates_dir=base / templates_dir if templates_dir else None,
        digest_feed_size=digest_feed_size,
        http=http,
        email=email,
        schedule=schedule,
        web=web,
        deliveries=deliveries,
    )


def _source(source: dict, key: str, base: Path, problems: _Problems) -> SourceConfig | None:
    name = _string(source, f"{key}.name", problems, default="")
    kind = _string(source, f"{key}.kind", problems, default="")
    if not name:
        problems.add(f"{key}.name", "is required")
    project = source.get("project")
    problem = None if project is None else project_problem(project)
    if problem:
        problems.add(f"{key}.project", problem)
        project = None
    if kind not in SOURCE_KINDS:
        problems.add(f"{key}.kind", f"must be one of {', '.join(SOURCE_KINDS)} (got {kind!r})")
        return None
    title_filter = _title_filter(source, key, problems)
    if kind == "folder":
        folder = _string(source, f"{key}.path", problems, default="")
        if not folder:
            problems.add(f"{key}.path", "is required for a folder source")
            return None
        glob = _string(source, f"{key}.glob", problems, default="**/*")
        if "allow_private" in source:
            problems.add(f"{key}.allow_private", "is for page and feed sources: a folder fetches nothing")
        if "max_posts" in source:
            problems.add(f"{key}.max_posts", "is for feed sources")
        return FolderSource(name=name, path=base / folder, glob=glob, project=project, title_filter=title_filter,
                            backlog=_backlog(source, key, problems, FolderSource.backlog))
    url = _url(source, f"{key}.url", problems, default="")
    allow_private = source.get("allow_private", False)
    problem = boolean_problem(allow_private)
    if problem:
        problems.add(f"{key}.allow_private", problem)
        allow_private = False
    if not url:
        return None
    if kind == "page":
        if "max_posts" in source:
            problems.add(f"{key}.max_posts", "is for feed sources: a page is one post")
        return PageSource(name=name, url=url, allow_private=allow_private, project=project,
                          title_filter=title_filter, backlog=_backlog(source, key, problems, PageSource.backlog))
    max_posts = _integer(source, f"{key}.max_posts", problems, default=FeedSource.max_posts, least=1)
    return FeedSource(name=name, url=url, allow_private=allow_private, max_posts=max_posts, project=project,
                      title_filter=title_filter, backlog=_backlog(source, key, problems, FeedSource.backlog))


def _title_filter(source: dict, key: str, problems: _Problems) -> TitleFilter:
    prereleases = source.get("prereleases", True)
    problem = boolean_problem(prereleases)
    if problem:
        problems.add(f"{key}.prereleases", problem)
        prereleases = True
    return TitleFilter(include=_patterns(source, f"{key}.include", problems),
                       exclude=_patterns(source, f"{key}.exclude", problems), prereleases=prereleases)


def _patterns(source: dict, key: str, problems: _Problems) -> tuple[re.Pattern[str], ...]:
    """A regular expression or a list of them, each compiled; a bad one is a problem named
    by its place in the list."""
    value = source.get(key.rsplit(".", 1)[-1], [])
    texts = [value] if isinstance(value, str) else value
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        problems.add(key, f"must be a regular expression or a list of them (got {value!r})")
        return ()
    compiled = []
    for index, text in enumerate(texts):
        where = key if isinstance(value, str) else f"{key}[{index}]"
        try:
            compiled.append(pattern(text))
        except re.error as exc:
            problems.add(where, f"is not a regular expression ({exc}): {text!r}")
    return tuple(compiled)


def _backlog(source: dict, key: str, problems: _Problems, default: Backlog) -> Backlog:
    value = _string(source, f"{key}.backlog", problems, default=default)
    if value not in BACKLOGS:
        problems.add(f"{key}.backlog", f"must be one of {', '.join(BACKLOGS)} (got {value!r})")
        return default
    return value


def _http(table: dict, problems: _Problems) -> HttpConfig:
    default = HttpConfig()
    seconds = {}
    for name in ("timeout", "source_budget", "build_budget"):
        value = table.get(name, getattr(default, name))
        problem = timeout_problem(value)
        if problem:
            problems.add(f"http.{name}", problem)
            value = getattr(default, name)
        seconds[name] = float(value)
    return HttpConfig(
        **seconds,
        max_bytes=_integer(table, "http.max_bytes", problems, default=default.max_bytes, least=1),
        retries=_integer(table, "http.retries", problems, default=default.retries, least=0),
        per_host=_integer(table, "http.per_host", problems, default=default.per_host, least=1),
    )


def _integer(table: dict, key: str, problems: _Problems, *, default: int, least: int = 1,
             rule: Callable[[object, int], str | None] = integer_problem) -> int:
    value = table.get(key.rsplit(".", 1)[-1], default)
    problem = rule(value, least)
    if problem or not isinstance(value, int):
        problems.add(key, problem or "must be an integer")
        return default
    return value


def _email(data: dict, base: Path, problems: _Problems, *, web: bool) -> EmailConfig | None:
    email = _table(data, "email", problems)
    problems_before = len(problems.items)
    host = _string(email, "email.host", problems, default="")
    if not host:
        problems.add("email.host", "is required")
    security = _choice(email, "email.security", problems, SMTP_PORTS, default="starttls")
    port = email.get("port", SMTP_PORTS[security])
    username = _string(email, "email.username", problems, default="") or None
    password_env = _string(email, "email.password_env", problems, default="") or None
    for key, problem in [
        ("email.port", port_problem(port)),
        ("email.password_env", password_env_problem(password_env)),
        ("email", credentials_problem(username, password_env)),
        ("email.security", plain_password_problem(username, security, host)),
    ]:
        if problem:
            problems.add(key, problem)

    sender = _address_key(email, "email.from", problems)
    if "from" not in email:
        problems.add("email.from", "is required")
    mailto = _address_key(email, "email.unsubscribe_mailto", problems)
    unsubscribe_url = _string(email, "email.unsubscribe_url", problems, default="") or None
    problem = unsubscribe_url_problem(unsubscribe_url)
    if problem:
        problems.add("email.unsubscribe_url", problem)
    problem = no_unsubscribe_problem(unsubscribe_url, email.get("unsubscribe_mailto"), web)
    if problem:
        problems.add("email", problem)
    send_empty = email.get("send_empty", False)
    if not isinstance(send_empty, bool):
        problems.add("email.send_empty", "must be true or false")
    bounce_limit = _integer(email, "email.bounce_limit", problems, default=3)
    connections = _integer(email, "email.connections", problems, default=1)

    subscribers = _subscribers(email, base, problems)
    if sender is None or len(problems.items) > problems_before:
        return None
    return EmailConfig(
        host=host, port=port, security=security, username=username, password_env=password_env,
        sender=sender, subscribers=subscribers,
        unsubscribe_mailto=mailto.addr_spec if mailto else None,
        unsubscribe_url=unsubscribe_url, send_empty=send_empty, bounce_limit=bounce_limit,
        connections=connections,
    )


def _web(web: dict, problems: _Problems) -> WebConfig | None:
    problems_before = len(problems.items)
    secret_env = _string(web, "web.secret_env", problems, default="")
    problem = secret_env_problem(secret_env) if secret_env else "is required"
    if problem:
        problems.add("web.secret_env", problem)
    previous = web.get("previous_secret_envs", [])
    if not isinstance(previous, list) or not all(isinstance(name, str) for name in previous):
        problems.add("web.previous_secret_envs", "must be a list of environment variable names")
        previous = []
    for index, name in enumerate(previous):
        problem = secret_env_problem(name)
        if problem:
            problems.add(f"web.previous_secret_envs[{index}]", problem)
    confirm_days = _integer(web, "web.confirm_days", problems, default=3)
    if len(problems.items) > problems_before:
        return None
    return WebConfig(secret_env=secret_env, previous_secret_envs=tuple(previous), confirm_days=confirm_days)


def _subscribers(email: dict, base: Path, problems: _Problems) -> tuple[Address, ...]:
    """Every listed address, then every address of the subscribers file, once each."""
    found: list[Address] = []
    listed = email.get("subscribers", [])
    if not isinstance(listed, list):
        problems.add("email.subscribers", "must be a list of addresses")
        listed = []
    for index, text in enumerate(listed):
        address = parse_address(text) if isinstance(text, str) else None
        if address is None:
            problems.add(f"email.subscribers[{index}]", f"{text!r} is not a valid address")
        else:
            found.append(address)
    file_name = _string(email, "email.subscribers_file", problems, default="")
    if file_name:
        path = base / file_name
        try:
            contents = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.add("email.subscribers_file", f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}")
            contents = ""
        for number, text in address_lines(contents):
            address = parse_address(text)
            if address is None:
                problems.add("email.subscribers_file", f"{path}:{number}: {text!r} is not a valid address")
            else:
                found.append(address)
    elif "subscribers" not in email:
        problems.add("email", "needs subscribers (a list of addresses) or subscribers_file")
    unique: dict[str, Address] = {}
    for address in found:
        unique.setdefault(address.addr_spec.lower(), address)
    return tuple(unique.values())


# A comment: "#" at the start of a line, or after a space.
_COMMENT = lazy_re.compile(r"(^|\s)#.*$")


def address_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a subscribers file that is not blank or a comment."""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = _COMMENT.sub("", line).strip()
        if stripped:
            yield number, stripped
_BARE_ADDRESS = lazy_re.compile(r"([A-Za-z0-9_+-]+(?:\.[A-Za-z0-9_+-]+)*)@([A-Za-z0-9.-]+)")
_HOSTNAME = lazy_re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*")


def parse_address(text: str) -> Address | None:
    """One mail address, "user@example.org" or "Name <user@example.org>", or None if it is
    not one a strict server would take (the name may be any text; the address is ASCII)."""
    # The email package is imported by the parts of a config that need it only: a build of
    # folders alone would wait for it before it starts.
    from email.headerregistry import Address

    bare = _BARE_ADDRESS.fullmatch(text)
    if bare and _HOSTNAME.fullmatch(bare[2]):
        # What most lines of a long subscribers file are, read without the header parser
        # (a tenth of a millisecond each, seconds for a large list).
        return Address(username=bare[1], domain=bare[2])
    return parsed_by_header(text)


def parsed_by_header(text: str) -> Address | None:
    """`parse_address` by the email package's header parser alone."""
    from email.policy import default as default_policy

    try:
        header = default_policy.header_factory("To", text)
    except (IndexError, ValueError, AttributeError):  # the parser gives up on some inputs, e.g. "x@", ".:"
        return None
    if header.defects or len(header.addresses) != 1:
        return None
    address: Address = header.addresses[0]
    if not (address.username and address.addr_spec.isascii() and _HOSTNAME.fullmatch(address.domain)):
        return None
    return address


def _address_key(table: dict, key: str, problems: _Problems) -> Address | None:
    text = _string(table, key, problems, default="")
    if not text:
        return None
    address = parse_address(text)
    if address is None:
        problems.add(key, f"{text!r} is not a valid address")
    return address


def _schedule(data: dict, problems: _Problems) -> ScheduleConfig | None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    schedule = _table(data, "schedule", problems)
    zone_name = _string(schedule, "schedule.timezone", problems, default="UTC")
    try:
        timezone = ZoneInfo(zone_name)
    except (ZoneInfoNotFoundError, ValueError):
        problems.add("schedule.timezone", f"{zone_name!r} is not a time zone (like Europe/Berlin)")
        timezone = ZoneInfo("UTC")
    triggers = {}
    for job in ("collect", "digest"):
        expression = _string(schedule, f"schedule.{job}", problems, default="")
        try:
            triggers[job] = cron_trigger(expression, timezone) if expression else None
        except ValueError as exc:
            problems.add(f"schedule.{job}", str(exc))
            triggers[job] = None
    if not ({"collect", "digest"} & schedule.keys()):
        problems.add("schedule", "needs collect or digest (crontab strings like \"0 8 * * 1\")")
    grace = _integer(schedule, "schedule.misfire_grace_minutes", problems, default=360,
                     rule=lambda value, _least: grace_problem(value))
    return ScheduleConfig(
        collect=triggers["collect"], digest=triggers["digest"], timezone=timezone,
        misfire_grace=timedelta(minutes=grace),
    )


def _choice(table: dict, key: str, problems: _Problems, choices: Mapping[Choice, object], *, default: Choice) -> Choice:
    value = _string(table, key, problems, default=default)
    for choice in choices:
        if value == choice:
            return choice
    problems.add(key, f"must be one of {', '.join(choices)} (got {value!r})")
    return default


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


def _language(table: dict, key: str, problems: _Problems) -> str:
    value = _string(table, key, problems, default="en")
    problem = language_problem(value)
    if problem:
        problems.add(key, problem)
        return "en"
    return value


def _url(table: dict, key: str, problems: _Problems, *, default: str) -> str:
    value = _string(table, key, problems, default=default)
    problem = http_url_problem(value) if value and value != default else None
    if problem:
        problems.add(key, problem)
        return default
    if not value:
        problems.add(key, "is required")
    return value


def _warn_unknown_keys(path: Path, data: dict) -> None:
    def check(table: dict, section: str) -> None:
        for key in table:
            if key not in _KNOWN_KEYS.get(section, set()):
                log.warning("%s: %s.%s: unknown key, ignored", path, section, key)

    for section in _KNOWN_KEYS:
        value = data.get(section) if section else None
        if isinstance(value, dict):
            check(value, section)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, dict):
                    check(item, section)
