"""The configuration as typed values: what config.toml says, or what a program builds."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from newsletter.config.deliveries import DeliveryConfig
from newsletter.config.filters import TitleFilter
from newsletter.config.rules import (
    NO_WEB_EMAIL,
    boolean_problem,
    check,
    credentials_problem,
    http_url_problem,
    integer_problem,
    language_problem,
    no_unsubscribe_problem,
    password_env_problem,
    plain_password_problem,
    port_problem,
    positive_problem,
    private_state_problem,
    project_problem,
    secret_env_problem,
    timeout_problem,
    unsubscribe_url_problem,
    web_url_problem,
)
from newsletter.config.state import StateLocation

if TYPE_CHECKING:
    # Only the reader makes addresses and time zones, for a config with [email] or
    # [schedule]: a build of folders alone need not import them (~25 ms before it can start).
    from email.headerregistry import Address
    from zoneinfo import ZoneInfo

    # Only a [schedule] makes triggers, and only crontab.py imports APScheduler to make them.
    from apscheduler.triggers.cron import CronTrigger

SourceKind = Literal["folder", "page", "feed"]
SOURCE_KINDS: tuple[SourceKind, ...] = get_args(SourceKind)
# What a source's first collection does with the posts it finds: "skip" marks them seen (in
# the feeds, in no digest), "digest" makes them the next digest's news.
Backlog = Literal["skip", "digest"]
BACKLOGS: tuple[Backlog, ...] = get_args(Backlog)
SmtpSecurity = Literal["starttls", "ssl", "none"]
SMTP_PORTS: dict[SmtpSecurity, int] = {"starttls": 587, "ssl": 465, "none": 25}  # each mode's usual port


@dataclass(frozen=True)
class SiteConfig:
    title: str
    url: str
    author: str
    # The language of the site's own words (titles, template text): feeds' xml:lang, <html lang>.
    language: str = "en"

    def __post_init__(self) -> None:
        check([("site.url", http_url_problem(self.url)), ("site.language", language_problem(self.language))])


@dataclass(frozen=True)
class FolderSource:
    """Post files in a folder."""

    name: str
    path: Path
    # Which files are posts.
    glob: str = "**/*"
    # A folder's posts are usually written for the digest, its first one included.
    backlog: Backlog = "digest"
    # The project its posts announce releases of; None: the product their titles name.
    project: str | None = None
    # Which of its posts are skipped: kept in the state, in no feed, digest or page.
    title_filter: TitleFilter = TitleFilter()
    kind: Literal["folder"] = field(default="folder", init=False)

    def __post_init__(self) -> None:
        check([(f"sources.{self.name}.project", None if self.project is None else project_problem(self.project))])

    @property
    def location(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class _WebSource:
    name: str
    url: str
    # Whether URLs found in what it serves (entry links, redirects) may lead to loopback,
    # private and link-local addresses, as the configured URL's own origin always may.
    allow_private: bool = False
    # The project its posts announce releases of; None: the product their titles name.
    project: str | None = None
    # Which of its posts are skipped: kept in the state, in no feed, digest or page.
    title_filter: TitleFilter = TitleFilter()

    def __post_init__(self) -> None:
        check([
            (f"sources.{self.name}.url", http_url_problem(self.url)),
            (f"sources.{self.name}.allow_private", boolean_problem(self.allow_private)),
            (f"sources.{self.name}.project", None if self.project is None else project_problem(self.project)),
        ])

    @property
    def location(self) -> str:
        return self.url


@dataclass(frozen=True)
class PageSource(_WebSource):
    """One web page, one post."""

    backlog: Backlog = "digest"
    kind: Literal["page"] = field(default="page", init=False)


@dataclass(frozen=True)
class FeedSource(_WebSource):
    """An RSS or Atom feed: a post per entry."""

    # Posts of this feed the state keeps; new ones past it are not kept. A feed that gives
    # its entries new ids on every request would otherwise grow the state without bound.
    max_posts: int = 5000
    # A feed subscribed to today holds months of posts its readers have seen already.
    backlog: Backlog = "skip"
    kind: Literal["feed"] = field(default="feed", init=False)


SourceConfig = FolderSource | PageSource | FeedSource


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
    # Seconds one source's requests may take in all (a feed of 200 teasers whose pages
    # drip their bodies would take 200 timeouts), and all sources' together in one build.
    source_budget: float = 300.0
    build_budget: float = 1800.0

    def __post_init__(self) -> None:
        check([
            ("http.timeout", timeout_problem(self.timeout)),
            ("http.source_budget", timeout_problem(self.source_budget)),
            ("http.build_budget", timeout_problem(self.build_budget)),
            ("http.max_bytes", integer_problem(self.max_bytes, 1)),
            ("http.retries", integer_problem(self.retries, 0)),
            ("http.per_host", integer_problem(self.per_host, 1)),
        ])


@dataclass(frozen=True)
class EmailConfig:
    host: str
    port: int
    security: SmtpSecurity
    username: str | None
    # The name of the environment variable that holds the SMTP password, never the password.
    password_env: str | None
    sender: Address
    # Unique by address, in the order the config lists them.
    subscribers: tuple[Address, ...]
    # List-Unsubscribe targets: a mailbox, and an https endpoint that takes a one-click POST.
    unsubscribe_mailto: str | None
    unsubscribe_url: str | None
    # Whether a digest that carries no posts is mailed at all.
    send_empty: bool
    # Permanent refusals (5xx) in a row after which an address counts as bounced.
    bounce_limit: int = 3
    # SMTP sessions a mailing uses at once.
    connections: int = 1

    def __post_init__(self) -> None:
        check([
            ("email.security", None if self.security in SMTP_PORTS else f"must be one of {', '.join(SMTP_PORTS)}"),
            ("email.port", port_problem(self.port)),
            ("email.password_env", password_env_problem(self.password_env)),
            ("email", credentials_problem(self.username, self.password_env)),
            ("email.security", plain_password_problem(self.username, self.security, self.host)),
            ("email.unsubscribe_url", unsubscribe_url_problem(self.unsubscribe_url)),
            ("email.bounce_limit", integer_problem(self.bounce_limit, 1)),
            ("email.connections", integer_problem(self.connections, 1)),
        ])


@dataclass(frozen=True)
class WebConfig:
    """The subscription service (`newsletter serve`), answering at site.url."""

    # The NAME of the environment variable holding the key links are signed with, never the key.
    secret_env: str
    # Names of variables holding earlier keys: links signed with them keep working.
    previous_secret_envs: tuple[str, ...] = ()
    # How long a sign-up's confirmation link works.
    confirm_days: int = 3

    def __post_init__(self) -> None:
        check([
            ("web.secret_env", secret_env_problem(self.secret_env) if self.secret_env else "is required"),
            *((f"web.previous_secret_envs[{i}]", secret_env_problem(name))
              for i, name in enumerate(self.previous_secret_envs)),
            ("web.confirm_days", integer_problem(self.confirm_days, 1)),
        ])


@dataclass(frozen=True)
class ScheduleConfig:
    collect: CronTrigger | None
    digest: CronTrigger | None
    timezone: ZoneInfo
    # How late a scheduled run may still start, e.g. after the service was down.
    misfire_grace: timedelta


@dataclass(frozen=True)
class Config:
    path: Path
    site: SiteConfig
    sources: tuple[SourceConfig, ...]
    archive_dir: Path
    # Where the state database is: a SQLite file or a PostgreSQL database.
    state: StateLocation
    # Entries kept in posts.atom; older ones move to archive pages.
    feed_size: int
    # A folder whose templates replace the bundled ones of the same name.
    templates_dir: Path | None
    # Digests kept in digests.atom (each carries a whole digest, so fewer than posts).
    digest_feed_size: int = 10
    http: HttpConfig = HttpConfig()
    # Mail and schedule are optional: without them, newsletter only builds.
    email: EmailConfig | None = None
    schedule: ScheduleConfig | None = None
    web: WebConfig | None = None
    # Chat rooms and webhooks each new digest is posted to ([[deliveries]]).
    deliveries: tuple[DeliveryConfig, ...] = ()

    @property
    def output_dir(self) -> Path:
        """Where the files of one-off, preview and dry-run commands go unless told: beside the
        state file, or beside the config when the state is on PostgreSQL."""
        return (self.state.path or self.path).parent

    @property
    def title_filters(self) -> dict[str, TitleFilter]:
        """The filter of each source that skips any post, by source name."""
        return {source.name: source.title_filter for source in self.sources if source.title_filter != TitleFilter()}

    @property
    def source_projects(self) -> dict[str, str]:
        """The project of each source that names one, by source name."""
        return {source.name: source.project for source in self.sources if source.project}

    def __post_init__(self) -> None:
        names = Counter(source.name for source in self.sources)
        check([
            ("archive.feed_size", positive_problem(self.feed_size)),
            ("state.path", private_state_problem(self.state.path, self.archive_dir) if self.state.path else None),
            ("archive.digest_feed_size", positive_problem(self.digest_feed_size)),
            *((f"sources.{name}", "is the name of another source too") for name in sorted(
                name for name, count in names.items() if count > 1)),
            ("email", self.email and no_unsubscribe_problem(
                self.email.unsubscribe_url, self.email.unsubscribe_mailto, self.web is not None) or None),
            ("web", NO_WEB_EMAIL if self.web and not self.email else None),
            ("site.url", web_url_problem(self.site.url) if self.web else None),
            *((f"deliveries.{name}", "is the name of another delivery too") for name, uses in sorted(
                Counter(delivery.name for delivery in self.deliveries).items()) if uses > 1),
        ])

