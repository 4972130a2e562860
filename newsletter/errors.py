"""Every error a user can cause: a bad config, source, post, template, disk or server.

Each derives from NewsletterError and carries a one-line message naming the file, URL or key
and the problem, so the command line reports it as it is, without a traceback.
"""

from __future__ import annotations


class NewsletterError(Exception):
    """Something a user can fix went wrong; the message says what and where."""


class ConfigError(NewsletterError):
    """The configuration cannot be used; the message lists every problem, one per line."""


class SourceError(NewsletterError):
    """A source cannot be read as a whole; the build goes on with the others."""


class FetchError(NewsletterError):
    """A URL could not be fetched."""

    def __init__(self, url: str, problem: str):
        super().__init__(f"{url}: {problem}")
        self.url = url
        self.problem = problem


class BudgetSpent(FetchError):
    """A URL was not fetched, or not in full, because its source's time budget (or the
    build's) ran out."""


class PostError(NewsletterError):
    """One post cannot be used; the build goes on without it."""


class StoreError(NewsletterError):
    """The state database cannot be opened or used."""


class LockError(NewsletterError):
    """The lock file cannot be created (a read-only or full disk)."""


class LockedError(LockError):
    """Another process holds the lock."""


class TemplateError(NewsletterError):
    """A template cannot be loaded, rendered or compiled; the message names its file and line."""


class PublishError(NewsletterError):
    """An output cannot be written (unwritable archive, full disk)."""


class MailError(NewsletterError):
    """The batch cannot go on: no [email] config, no password, no server, login or sender
    refused."""


class MailServerUnreachable(MailError):
    """The SMTP server could not be reached, or kept dropping the connection: what is not sent
    is left for the next send."""


class ScheduleError(NewsletterError):
    """The config has no [schedule] to run."""


class WebError(NewsletterError):
    """The subscription service cannot run or sign its links: no [web] section, or no key
    in the environment variable it names."""
