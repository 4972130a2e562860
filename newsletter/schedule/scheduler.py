"""The pipeline on a schedule: collect at the `collect` times, build and mail at the `digest`
times ([schedule], crontab strings).

The state database remembers, per job, the scheduled time its last completed run was for.
So a time that passed while the service was down runs once when it starts again (if no older
than the misfire grace), and a time already covered never runs twice. Runs never overlap:
inside the service one worker thread runs jobs (max_instances=1, coalesce=True), and across
processes (the service, `run --once` from cron, `build` or `send` by hand) the state's lock
(a lock file, or an advisory lock on PostgreSQL) lets one at a time in: a job holds it from
its build to the end of its mailing. On PostgreSQL a `send` by hand takes no lock, sharing
the mailing through the outbox's claims (newsletter/mail/mailing.py), and `newsletter
worker` (newsletter/schedule/worker.py) runs these same jobs from a queue shared by many.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.util import undefined

from newsletter import config as config_module
from newsletter import pipeline
from newsletter.config import Config, ScheduleConfig
from newsletter.deliver import outbox as deliveries
from newsletter.errors import LockedError, ScheduleError
from newsletter.mail import send as mailer
from newsletter.state import lock
from newsletter.state.outbox_claims import Unclaimed
from newsletter.state.store import Store
from newsletter.words import count

log = logging.getLogger(__name__)

StopCheck = Callable[[], bool]
Sleep = Callable[[float], object]


def due_time(trigger: CronTrigger, done_for: datetime | None, now: datetime, grace: timedelta) -> datetime | None:
    """The latest scheduled time after `done_for`, not after `now`, at most `grace` old."""
    start = max(now - grace, done_for) if done_for else now - grace
    latest = None
    after = start
    while (fire := trigger.get_next_fire_time(None, after + timedelta(microseconds=1))) and fire <= now:
        latest = after = fire
    return latest


def run_due(
    config: Config, job: str, *, now: datetime,
    should_stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], object] = time.sleep, on_unclaimed: Unclaimed | None = None,
) -> str | None:
    """Run `job` if one of its scheduled times is due at `now`; say what it did, or None.
    Holds the state database's lock throughout (LockedError if another process has it).
    `on_unclaimed` is given by a worker, whose mail jobs finish a mailing this run leaves."""
    schedule = _schedule(config)
    with lock.state(config.state, "schedule"):
        return _run_if_due(config, schedule, job, now, should_stop, sleep, on_unclaimed)


def is_due(config: Config, job: str, now: datetime) -> bool:
    """Whether one of the job's scheduled times is due at `now`, read without the lock, which
    `run_due` takes and decides again under: a worker's tick each minute takes it only then."""
    schedule = _schedule(config)
    with Store.open(config.state) as store:
        return due_time(getattr(schedule, job), store.job_done_for(job), now, schedule.misfire_grace) is not None


def _run_if_due(
    config: Config, schedule: ScheduleConfig, job: str, now: datetime,
    should_stop: Callable[[], bool], sleep: Callable[[float], object], on_unclaimed: Unclaimed | None,
) -> str | None:
    store = Store.open(config.state)
    try:
        due = due_time(getattr(schedule, job), store.job_done_for(job), now, schedule.misfire_grace)
        if due is None:
            log.info("%s: nothing due", job)
            return None
        log.info("%s: starting the run due %s", job, due.astimezone(schedule.timezone).isoformat())
        store.job_started(job, datetime.now(UTC))

        def built() -> None:
            # A worker's run is done for its time once the digest is built: the mail jobs finish
            # a mailing it leaves (killed or stopped), while a second run would build again, and
            # a post arrived meanwhile would make a second digest for the same time. `newsletter
            # run` has no mail jobs: its next run resumes the mailing, so it is done once mailed.
            if on_unclaimed is not None:
                store.job_finished(job, datetime.now(UTC), "built; mailing", done_for=due)

        try:
            outcome, completed = _JOBS[job](config, now, should_stop, sleep, on_unclaimed or (lambda _at: None), built)
        except Exception as exc:
            store.job_finished(job, datetime.now(UTC), f"failed: {exc}", done_for=None)
            raise
        store.job_finished(job, datetime.now(UTC), outcome, done_for=due if completed else None)
        log.info("%s: %s", job, outcome)
        return outcome
    finally:
        store.close()


def run_once(config: Config, *, now: datetime) -> bool:
    """Run every job that is due once, one after the other; False if one failed."""
    ok = True
    with lock.state(config.state, "schedule"):
        for job in _jobs(_schedule(config)):
            try:
                run_due(config, job, now=now)
            except Exception as exc:  # one failed job is reported; the next still runs
                log.error("%s: failed: %s", job, exc)
                ok = False
    return ok


def serve(config: Config, *, stop: threading.Event | None = None) -> None:
    """Run the schedule in the foreground until SIGINT or SIGTERM (or `stop` is set). The job
    in progress is let finish; a mailing stops between two messages, the rest left for later."""
    stop = stop or threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda number, _frame: ask_to_stop(stop, number))
    if not log.isEnabledFor(logging.DEBUG):
        logging.getLogger("apscheduler").setLevel(logging.WARNING)  # our own lines say it all
    scheduler = make_scheduler(config, stop)
    scheduler.start()
    for job in scheduler.get_jobs():
        log.info("%s: next run %s", job.id, job.next_run_time.isoformat())
    stop.wait()
    log.info("stopping: waiting for the job in progress")
    scheduler.shutdown(wait=True)
    log.info("stopped")


def make_scheduler(config: Config, stop: threading.Event) -> BackgroundScheduler:
    """The service's scheduler with its jobs, not started; a run missed while the service
    was down is set to go at once."""
    schedule = _schedule(config)
    scheduler = BackgroundScheduler(
        timezone=schedule.timezone,
        executors={"default": ThreadPoolExecutor(max_workers=1)},
        job_defaults={
            "max_instances": 1, "coalesce": True,
            "misfire_grace_time": int(schedule.misfire_grace.total_seconds()),
        },
    )
    now = datetime.now(UTC)
    store = Store.open(config.state)
    try:
        for job in _jobs(schedule):
            trigger = getattr(schedule, job)
            missed = due_time(trigger, store.job_done_for(job), now, schedule.misfire_grace)
            if missed:
                log.info("%s: the run due %s was missed; running it now", job,
                         missed.astimezone(schedule.timezone).isoformat())
            scheduler.add_job(
                _scheduled_run, trigger, args=(config.path, job, stop), id=job, name=job,
                next_run_time=now if missed else undefined,
            )
    finally:
        store.close()
    return scheduler


def _scheduled_run(config_path: Path, job: str, stop: threading.Event) -> None:
    # The config is read again at every run, so a changed subscribers list takes effect.
    try:
        config = config_module.load(config_path)
        run_due(config, job, now=datetime.now(UTC), should_stop=stop.is_set, sleep=stop.wait)
    except LockedError as exc:
        log.warning("%s: skipped: %s", job, exc)
    except Exception as exc:  # the service outlives a failed run; the next one tries again
        log.error("%s: failed: %s", job, exc, exc_info=log.isEnabledFor(logging.DEBUG))


def ask_to_stop(stop: threading.Event, signum: int) -> None:
    log.info("%s received", signal.Signals(signum).name)
    stop.set()


def _collect(config: Config, now: datetime, _should_stop: StopCheck, _sleep: Sleep,
             _on_unclaimed: Unclaimed, _on_built: Callable[[], None]) -> tuple[str, bool]:
    report = pipeline.build(config, now=now, make_digest=False)
    return (f"{count(report.posts_seen, 'post')} seen, {report.posts_summarized} summarized,"
            f" {count(len(report.problems), 'problem')}"), True


def _digest(config: Config, now: datetime, should_stop: StopCheck, sleep: Sleep,
            on_unclaimed: Unclaimed, on_built: Callable[[], None]) -> tuple[str, bool]:
    built = pipeline.build(config, now=now)
    made = f"new digest {built.new_digest}" if built.new_digest else "no new digest"
    if config.deliveries:
        delivered = deliveries.deliver(config, sleep=sleep, should_stop=should_stop)
        made = f"{made}; {deliveries.describe(delivered)}"
        if delivered.interrupted:
            return made, False
    on_built()
    if config.email is None:  # the digests are published in the archive; mail can come later
        return f"{made}; not mailed: no [email] section", True
    sent = mailer.send(config, sleep=sleep, should_stop=should_stop, on_unclaimed=on_unclaimed)
    return f"{made}; {mailer.describe(sent)}", not sent.interrupted


_JOBS = {"collect": _collect, "digest": _digest}


def _jobs(schedule: ScheduleConfig) -> list[str]:
    return [job for job in _JOBS if getattr(schedule, job) is not None]


def _schedule(config: Config) -> ScheduleConfig:
    if config.schedule is None:
        raise ScheduleError(f"{config.path}: no [schedule] section: nothing to run")
    return config.schedule

