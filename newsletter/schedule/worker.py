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
  scheduler's is). A digest run is done for its time once built, the mail jobs finishing a
  mailing its worker left (scheduler.run_due). The tasks tick each minute rather than at the
  keys' own times because procrastinate reads cron strings in UTC, while [schedule] has its
  time zone.
- mail: `newsletter send`'s work without its lock: claim batches of the outbox until none is
  left (newsletter/mail/mailing.py). The digest job mails too, once it has built; whenever a
  sender finds messages that nobody holds, it defers a mail job, of which one at most waits at
  a time (its queueing lock), so each idle worker joins the mailing in turn. A sender that
  ends while another holds a message it was handing over defers one for when that lease runs
  out, as its holder may have died. A job claims batches until the mailing is over, rather
  than one job per batch, as a job reads the subscribers and the digest's copies once for all
  its batches. Each worker also defers one as it starts, and one is deferred each minute: a
  mailing whose senders were all killed resumes without waiting for the next digest.

A worker killed outright leaves its job marked as running in the queue, for ever: each
worker, as it starts and then each minute, finishes as failed the jobs of workers whose
heartbeat has stopped, saying so in the log. None is run again: the minute's jobs take up
what is left of its work (a schedule's run due, a mailing's unsent messages).

Procrastinate's tables are made by the first worker to start on a database, and brought up
to a newer procrastinate's version by its migrations, under an advisory lock, so two workers
starting at once do it once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from newsletter import config as config_module
from newsletter.config import Config, StateLocation
from newsletter.errors import LockedError, NewsletterError, ScheduleError
from newsletter.mail import send as mailer
from newsletter.schedule import scheduler
from newsletter.state import outbox_claims
from newsletter.state.database import advisory_key, connect_postgres, connection_options, one_line
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
    # First of all: a deploy's SIGTERM during the start-up (reading the config, the job
    # queue's tables) stops the worker cleanly instead of killing it.
    stop_requested = _catch_stop_signals()
    check_state(config)
    log.info("worker %s: starting", _worker_name())
    if not log.isEnabledFor(logging.DEBUG):
        logging.getLogger("procrastinate").setLevel(logging.WARNING)  # our own lines say it all
    app = make_app(config)
    with _unreachable(config.state):
        ensure_schema(config.state, app)
        with app.open():
            _defer_mail(app)
        log.info("worker %s: started", _worker_name())
        asyncio.run(_work(app, stop_requested))
    log.info("worker %s: stopped", _worker_name())


def _catch_stop_signals() -> threading.Event:
    requested = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, _frame: scheduler.ask_to_stop(requested, number))
    return requested


async def _work(app: procrastinate.App, stop_requested: threading.Event) -> None:
    """The worker until a stop signal, or one received already. Procrastinate's own signal
    handlers are not used: they are installed only once the worker runs, and replaced ours
    in the meantime. Cancelling the worker is how procrastinate stops it gracefully."""
    async with app.open_async():
        await _finish_stalled(app)
        worker = asyncio.create_task(app.run_worker_async(
            name=_worker_name(), concurrency=1, shutdown_graceful_timeout=0, delete_jobs="successful",
            install_signal_handlers=False))
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, _stop_worker, worker, stop_requested, signum)
        if stop_requested.is_set():  # received before the handlers above replaced ours
            worker.cancel()
        with suppress(asyncio.CancelledError):
            await worker


def _stop_worker(worker: asyncio.Task[None], stop_requested: threading.Event, signum: int) -> None:
    if stop_requested.is_set():  # stopping already: a second cancel would cut the job short
        return
    scheduler.ask_to_stop(stop_requested, signum)
    worker.cancel()


@contextmanager
def _unreachable(state: StateLocation) -> Iterator[None]:
    """The database unreachable at start, or lost by the job queue, in one line."""
    import procrastinate.exceptions
    import psycopg

    try:
        yield
    except (psycopg.Error, procrastinate.exceptions.ConnectorException) as exc:
        said = one_line(state, exc.__cause__ if isinstance(exc.__cause__, Exception) else exc)
        raise ScheduleError(f"{state}: the job queue's database: {said}") from None


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
    _periodic(app, "stalled", _stalled)
    return app


def ensure_schema(state: StateLocation, app: procrastinate.App) -> None:
    """Make procrastinate's tables, or bring them up to the installed procrastinate's
    version with its migrations, under an advisory lock held until the commit: a worker
    starting at the same moment waits, then finds the work done. The newest migration
    applied is kept in job_queue_schema; it only moves forward."""
    import psycopg

    migrations = sorted(Path(app.schema_manager.get_migrations_path()).glob("*.sql"))
    with connect_postgres(state) as connection, connection.transaction():
        connection.execute("SELECT pg_advisory_xact_lock(%s)", (advisory_key("newsletter job queue"),))
        connection.execute("CREATE TABLE IF NOT EXISTS job_queue_schema (migration TEXT NOT NULL)")
        row = connection.execute("SELECT migration FROM job_queue_schema").fetchone()
        if row and row[0] == migrations[-1].stem:
            return
        if row and row[0] > migrations[-1].stem:
            # Made by a newer procrastinate (another worker upgraded first): this one's code
            # may not work with those tables, and must not record them as older.
            raise ScheduleError(f"{state}: the job queue's tables are at procrastinate's migration {row[0]},"
                                f" newer than this one knows ({migrations[-1].stem}): upgrade procrastinate here")
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


def _periodic(app: procrastinate.App, job: str, function: Callable[..., object]) -> None:
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
                                  on_unclaimed=lambda at: _defer_mail(app, at))
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
            report = mailer.send(config, should_stop=context.should_abort,
                                 on_unclaimed=lambda at: _defer_mail(app, at))
            log.info("mail: %s", mailer.describe(report))
    return mail


async def _stalled(context: procrastinate.JobContext, timestamp: int | None = None) -> None:
    assert context.app is not None
    await _finish_stalled(context.app)


async def _finish_stalled(app: procrastinate.App) -> None:
    """Finish as failed the jobs left running by workers that stopped sending heartbeats."""
    import procrastinate.exceptions
    import procrastinate.jobs

    for job in await app.job_manager.get_stalled_jobs():
        assert job.id is not None
        try:
            await app.job_manager.finish_job_by_id_async(job.id, procrastinate.jobs.Status.FAILED, delete_job=False)
        except procrastinate.exceptions.ConnectorException:  # another worker finished it first
            continue
        log.warning("job %s (%s) was left running by a worker that stopped answering: finished as failed;"
                    " the next minute's jobs take up its work", job.id, job.task_name)


@contextmanager
def _reported(job: str) -> Iterator[None]:
    """A job's failure in one line, as the scheduler's: the worker outlives it, and the next
    minute's job tries again what is still due."""
    import procrastinate.exceptions

    try:
        yield
    except LockedError as exc:
        log.info("%s: skipped: %s", job, exc)
    except NewsletterError as exc:
        log.error("%s: failed: %s", job, exc)
    except procrastinate.exceptions.ConnectorException as exc:  # deferring a mail job
        log.error("%s: failed: the job queue's database: %s", job, " ".join(str(exc.__cause__ or exc).split()))


def _defer_mail(app: procrastinate.App, at: datetime | None = None) -> None:
    """Have a worker take a mail job (from `at`), unless one waits already."""
    import procrastinate.exceptions

    try:
        app.configure_task(_MAIL, schedule_at=at).defer()  # with the task's queueing lock (_periodic)
    except procrastinate.exceptions.AlreadyEnqueued:
        pass


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"
