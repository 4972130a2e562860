"""`newsletter worker`: the [schedule] and the mailings of a state on PostgreSQL, shared by any
number of workers on any number of hosts through procrastinate, a job queue kept in the same
database. (A state in a SQLite file has `newsletter run`, newsletter/schedule/scheduler.py.)

The jobs:
- collect and digest: a procrastinate periodic task for each [schedule] key, each minute.
  Each minute's job is deferred once however many workers run (procrastinate records each
  deferral of a periodic task under a unique key), and runs the scheduler's own `run_due`:
  the job runs only when one of its [schedule] times is due and not yet covered, so the
  contract of `newsletter run` holds: a time missed while no worker ran is run once when one
  starts (within schedule.misfire_grace_minutes), a time covered never twice, and two runs
  never overlap (the state's advisory lock; a run that finds it taken is skipped, as the
  scheduler's is). The tasks tick each minute rather than at the keys' own times because
  procrastinate reads cron strings in UTC, while [schedule] has its time zone.
- mail: `newsletter send`'s work without its lock: claim batches of the outbox until none is
  left (newsletter/mail/mailing.py). The digest job mails too, once it has built; whenever a
  sender finds messages that nobody holds, it defers a mail job, of which one at most waits at
  a time (its queueing lock), so each idle worker joins the mailing in turn. A job claims
  batches until the mailing is over, rather than one job per batch, as a job reads the
  subscribers and the digest's copies once for all its batches. Each worker also defers one
  as it starts, and one is deferred each minute: a mailing whose senders were all killed
  resumes without waiting for the next digest.

Procrastinate's tables are made by the first worker to start on a database, and brought up
to a newer procrastinate's version by its migrations, under an advisory lock, so two workers
starting at once do it once.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from newsletter import config as config_module
from newsletter.config import Config, StateLocation
from newsletter.errors import LockedError, NewsletterError, ScheduleError
from newsletter.mail import send as mailer
from newsletter.schedule import scheduler
from newsletter.state import outbox_claims
from newsletter.state.database import advisory_key, connect_postgres, connection_options
from newsletter.state.store import Store

if TYPE_CHECKING:
    import procrastinate

log = logging.getLogger(__name__)

# Every minute: the [schedule] decides, in its time zone, which minute runs a job.
_EACH_MINUTE = "* * * * *"
_MAIL = "newsletter.mail"


def check_state(config: Config) -> None:
    """Raise ScheduleError, in one line, if the config's state is not on PostgreSQL."""
    if not config.state.on_postgres:
        raise ScheduleError(f"{config.path}: workers share a state on PostgreSQL, and this one is a SQLite"
                            " file: set [state] url (or run the schedule with `newsletter run`)")


def run(config: Config) -> None:
    """Run one worker in the foreground until SIGINT or SIGTERM: a mailing in progress stops
    between two messages, leaving the rest to the other workers; a build is let finish."""
    check_state(config)
    if not log.isEnabledFor(logging.DEBUG):
        logging.getLogger("procrastinate").setLevel(logging.WARNING)  # our own lines say it all
    app = make_app(config)
    ensure_schema(config.state, app)
    with app.open():
        _defer_mail(app)
    log.info("worker %s: started", _worker_name())
    app.run_worker(name=_worker_name(), concurrency=1, shutdown_graceful_timeout=0, delete_jobs="successful")
    log.info("worker %s: stopped", _worker_name())


def make_app(config: Config) -> procrastinate.App:
    """The job queue on the state's database, with its tasks: each job of the [schedule]
    (a changed [schedule] takes effect when the workers start again), and mail."""
    import procrastinate

    state = config.state
    connector = procrastinate.PsycopgConnector(
        conninfo="", kwargs=connection_options(state, application="newsletter worker"))
    app = procrastinate.App(connector=connector)
    for job in ("collect", "digest"):
        if config.schedule and getattr(config.schedule, job):
            _periodic(app, job, _scheduled(config.path, job))
    _periodic(app, "mail", _mail(config.path))
    return app


def ensure_schema(state: StateLocation, app: procrastinate.App) -> None:
    """Make procrastinate's tables, or bring them up to the installed procrastinate's
    version with its migrations, under an advisory lock held until the commit: a worker
    starting at the same moment waits, then finds the work done. The newest migration
    applied is kept in job_queue_schema."""
    import psycopg

    migrations = sorted(Path(app.schema_manager.get_migrations_path()).glob("*.sql"))
    with connect_postgres(state) as connection, connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("newsletter job queue"),))
        connection.execute("CREATE TABLE IF NOT EXISTS job_queue_schema (migration TEXT NOT NULL)")
        row = connection.execute("SELECT migration FROM job_queue_schema").fetchone()
        if row and row[0] == migrations[-1].stem:
            return
        try:
            if row is None:
                log.info("%s: making the job queue's tables", state)
                connection.execute(app.schema_manager.get_schema())
                connection.execute("INSERT INTO job_queue_schema (migration) VALUES (%s)", (migrations[-1].stem,))
                return
            for migration in (path for path in migrations if path.stem > row[0]):
                log.info("%s: the job queue's migration %s", state, migration.stem)
                connection.execute(migration.read_text(encoding="utf-8"))
            connection.execute("UPDATE job_queue_schema SET migration = %s", (migrations[-1].stem,))
        except psycopg.Error as exc:
            raise ScheduleError(f"{state}: cannot make the job queue's tables: {exc}") from None


def _periodic(app: procrastinate.App, job: str, function: Callable[..., None]) -> None:
    """Register `function` as the task newsletter.JOB, deferred each minute; one waits at most."""
    name = f"newsletter.{job}"
    task = app.task(name=name, queueing_lock=name, pass_context=True)(function)
    app.periodic(cron=_EACH_MINUTE, periodic_id=job)(task)


def _scheduled(config_path: Path, job: str) -> Callable[..., None]:
    def run_if_due(context: procrastinate.JobContext, timestamp: int | None = None) -> None:
        app = context.app
        assert app is not None
        with _reported(job):
            # The config is read again at every run, so a changed subscribers list takes effect.
            config = config_module.load(config_path)
            now = datetime.now(UTC)
            if scheduler.is_due(config, job, now):
                scheduler.run_due(config, job, now=now, should_stop=context.should_abort,
                                  on_unclaimed=lambda: _defer_mail(app))
    return run_if_due


def _mail(config_path: Path) -> Callable[..., None]:
    def mail(context: procrastinate.JobContext, timestamp: int | None = None) -> None:
        app = context.app
        assert app is not None
        with _reported("mail"):
            config = config_module.load(config_path)
            with Store.open(config.state) as store:
                if not outbox_claims.waiting(store):
                    return
            report = mailer.send(config, should_stop=context.should_abort, on_unclaimed=lambda: _defer_mail(app))
            log.info("mail: %s", mailer.describe(report))
    return mail


@contextmanager
def _reported(job: str) -> Iterator[None]:
    """A job's failure in one line, as the scheduler's: the worker outlives it, and the next
    minute's job tries again what is still due."""
    try:
        yield
    except LockedError as exc:
        log.info("%s: skipped: %s", job, exc)
    except NewsletterError as exc:
        log.error("%s: failed: %s", job, exc)


def _defer_mail(app: procrastinate.App) -> None:
    """Have a worker take a mail job, unless one waits already."""
    import procrastinate.exceptions

    try:
        app.configure_task(_MAIL, queueing_lock=_MAIL).defer()
    except procrastinate.exceptions.AlreadyEnqueued:
        pass


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"
