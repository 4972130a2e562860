"""`newsletter worker`: processes sharing the schedule and the mailings of a state on a real
PostgreSQL server (helpers/postgres.py), mailing to a real SMTP server on 127.0.0.1."""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from helpers import run_cli, start_cli
from helpers.posts import add_post
from helpers.workers import Workers, digest_daily_at, missed_by, worker_config

from newsletter.config import load
from newsletter.errors import ScheduleError

SUBSCRIBERS = [f"reader{n:04}@example.org" for n in range(5000)]
WORKERS = 4


def outbox_counts(postgres_url: str) -> dict[str, int]:
    with psycopg.connect(postgres_url) as connection:
        return dict(connection.execute("SELECT state, count(*) FROM outbox GROUP BY state").fetchall())


def wait_for(condition: Callable[[], bool], timeout: float, what: str, every: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(every)


@pytest.mark.slow
def test_two_sends_at_once_on_postgresql_share_the_mailing_and_everyone_gets_one_message(
        tmp_path, posts_dir, postgres_url, smtp_server):
    readers = SUBSCRIBERS[:2000]
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, readers)
    built = run_cli("--config", str(config), "build")
    assert built.returncode == 0, built.stderr
    senders = [start_cli("--config", str(config), "send") for _ in range(2)]
    errors = [sender.communicate(timeout=180)[1] for sender in senders]

    assert [sender.returncode for sender in senders] == [0, 0], errors
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == readers and all(len(copies) == 1 for copies in received.values())
    shares = [int(re.search(r"digest \S+: (\d+) sent", stderr).group(1)) for stderr in errors]
    assert sum(shares) == len(readers) and min(shares) > 0, shares


@pytest.mark.slow
def test_a_worker_stopped_by_sigterm_mid_mailing_leaves_the_rest_to_the_next_once(
        tmp_path, posts_dir, postgres_url, smtp_server):
    readers = SUBSCRIBERS[:600]
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, readers, missed_by())
    workers = Workers(config, tmp_path / "logs")
    workers.start()
    smtp_server.sink.on_data = lambda kept: kept == 100 and workers.running[0].send_signal(signal.SIGTERM)
    assert workers.running[0].wait(timeout=120) == 0
    smtp_server.sink.on_data = None
    stopped_at = len(smtp_server.sink.received)
    assert stopped_at < len(readers)
    assert "messages left for the next run" in workers.log(), workers.log()
    # Done for its time once built: the mail jobs finish the mailing, and no later tick builds
    # again (which, with the post added now, would make a second digest).
    assert done_for(postgres_url) is not None
    add_post(posts_dir, 1)

    workers.running.clear()
    workers.start()
    try:
        wait_for(lambda: outbox_counts(postgres_url) == {"sent": len(readers)}, 60, "the rest of the mailing")
    finally:
        assert workers.stop() == [0]
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == readers and all(len(copies) == 1 for copies in received.values())
    assert "stopped while sending" not in workers.log()
    assert digest_count(postgres_url) == 1


@pytest.mark.slow
def test_a_run_missed_hours_ago_is_made_up_once_by_two_workers_and_recorded(
        tmp_path, posts_dir, postgres_url, smtp_server):
    readers = SUBSCRIBERS[:20]
    missed = (datetime.now(UTC) - timedelta(hours=3)).replace(second=0, microsecond=0)
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, readers, digest_daily_at(missed))
    workers = Workers(config, tmp_path / "logs")
    for _ in range(2):
        workers.start()
    try:
        # A worker's digest is done for its time once built; its mailing may still be going on.
        wait_for(lambda: done_for(postgres_url) is not None, 90, "the digest job's end")
        wait_for(lambda: outbox_counts(postgres_url) == {"sent": len(readers)}, 60, "the mailing")
    finally:
        assert workers.stop() == [0, 0]
    assert done_for(postgres_url) == missed
    assert digest_count(postgres_url) == 1
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == readers and all(len(copies) == 1 for copies in received.values())
    assert workers.log().count("digest: starting the run due") == 1


def digest_count(postgres_url: str) -> int:
    with psycopg.connect(postgres_url) as connection:
        (count,) = connection.execute("SELECT count(*) FROM digests").fetchone()
    return count


def held_by(postgres_url: str, pid: int) -> int:
    """How many messages the sender in process `pid` holds, not yet sent."""
    with psycopg.connect(postgres_url) as connection:
        (count,) = connection.execute(
            "SELECT count(*) FROM outbox WHERE claimed_by LIKE %s AND state IN ('queued', 'pending')",
            (f"%:{pid}:%",)).fetchone()
    return count


def done_for(postgres_url: str) -> datetime | None:
    """The scheduled time the digest job's last completed run was for (None before the
    workers have made the state's tables)."""
    with psycopg.connect(postgres_url) as connection:
        if connection.execute("SELECT to_regclass('job_runs')").fetchone() == (None,):
            return None
        row = connection.execute("SELECT done_for FROM job_runs WHERE job = 'digest'").fetchone()
    return datetime.fromisoformat(row[0]) if row and row[0] else None


def test_a_worker_on_a_sqlite_state_says_in_one_line_that_workers_need_postgresql(config):
    result = run_cli("--config", str(config.path), "worker", timeout=30)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"error: {config.path}: workers share a state on PostgreSQL, and this one is a SQLite file: set"
        " [state] url (or run the schedule with `newsletter run`)"]


@pytest.mark.slow
def test_workers_killed_at_random_mail_everyone_once_and_the_scheduled_digest_is_made_once(
        tmp_path, posts_dir, postgres_url, smtp_server):
    """Four workers; once the mailing has begun, a random one is SIGKILLed every second and
    another started in its place. Every subscriber gets the digest once, or twice as the
    same message (Message-ID and all) logged as a possible repeat; the digest, due once for
    every worker, is made once, though a post arrives after it is built (a second run of the
    digest job would make a second digest)."""
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, SUBSCRIBERS, missed_by())
    workers = Workers(config, tmp_path / "logs")
    for _ in range(WORKERS):
        workers.start()
    left_held = []  # per kill, the messages its worker held unsent: some, if it was mailing
    try:
        wait_for(lambda: smtp_server.sink.received, 60, "the first message")
        add_post(posts_dir, 1)
        kills_end = time.monotonic() + 20
        while time.monotonic() < kills_end and outbox_counts(postgres_url).get("sent", 0) < len(SUBSCRIBERS):
            time.sleep(1)
            left_held.append(held_by(postgres_url, workers.kill_one()))
            workers.start()
        wait_for(lambda: outbox_counts(postgres_url) == {"sent": len(SUBSCRIBERS)}, 90, "the end of the mailing")
    finally:
        statuses = workers.stop()
    log = workers.log()
    assert len(left_held) >= 3, "the mailing ended before the kills began"
    assert max(left_held) > 0, f"no kill landed mid-mailing: {left_held}"

    received = smtp_server.sink.by_recipient()
    assert sorted(received) == SUBSCRIBERS, "a subscriber got nothing"
    repeated = {address: copies for address, copies in received.items() if len(copies) > 1}
    for address, copies in repeated.items():
        assert len(copies) == 2 and copies[0].raw == copies[1].raw
        assert f"{address}: the last run stopped while sending it digest" in log
    assert len(repeated) <= len(left_held)  # at most one in flight per killed worker
    assert digest_count(postgres_url) == 1
    assert statuses == [0] * WORKERS


@pytest.mark.slow
def test_a_worker_sigtermed_while_it_starts_stops_cleanly(tmp_path, posts_dir, postgres_url, smtp_server):
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, SUBSCRIBERS[:1], missed_by())
    workers = Workers(config, tmp_path / "logs")
    workers.start()
    # The line comes as soon as the worker's handlers are in place, well before it has made
    # the job queue's tables and is ready for jobs.
    wait_for(lambda: "starting" in workers.log(), 60, "the worker's start", every=0.01)
    assert workers.stop() == [0], workers.log()
    assert "SIGTERM received" in workers.log()


def test_a_worker_says_in_one_line_that_it_cannot_reach_the_database(tmp_path, posts_dir):
    config = worker_config(tmp_path, posts_dir, "postgresql://newsletter@127.0.0.1:9/newsletter", 25, [],
                           missed_by())
    result = run_cli("--config", str(config), "worker", timeout=30)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert re.fullmatch(r"error: postgresql://newsletter@127\.0\.0\.1:9/newsletter: the job queue's database:"
                        r" connection failed: .*127\.0\.0\.1.*", result.stderr.strip().splitlines()[-1]), result.stderr


def test_the_job_queue_tables_are_made_once_by_workers_starting_together_and_migrated_later(
        tmp_path, posts_dir, postgres_url):
    from newsletter.schedule import worker

    config = load(worker_config(tmp_path, posts_dir, postgres_url, 25, [], missed_by()))
    state, app = config.state, worker.make_app(config)
    starting = [threading.Thread(target=worker.ensure_schema, args=(state, app)) for _ in range(3)]
    for thread in starting:
        thread.start()
    for thread in starting:
        thread.join(timeout=60)
    migrations = sorted(path.stem for path in Path(app.schema_manager.get_migrations_path()).glob("*.sql"))
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        assert connection.execute("SELECT migration FROM job_queue_schema").fetchall() == [(migrations[-1],)]
        assert connection.execute("SELECT to_regclass('procrastinate_jobs') IS NOT NULL").fetchone() == (True,)
        # As if made by the procrastinate before the installed one: its newest migration is applied.
        connection.execute("UPDATE job_queue_schema SET migration = %s", (migrations[-2],))
    worker.ensure_schema(state, app)
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT migration FROM job_queue_schema").fetchall() == [(migrations[-1],)]


def test_a_job_that_cannot_defer_a_mail_job_says_so_in_one_line_and_the_worker_goes_on(caplog):
    import procrastinate.exceptions

    from newsletter.schedule import worker

    lost = procrastinate.exceptions.ConnectorException()
    lost.__cause__ = psycopg.OperationalError("server closed the connection unexpectedly\n\tThis probably means")
    with caplog.at_level(logging.ERROR, logger=worker.__name__), worker._reported("mail"):
        raise lost
    assert caplog.messages == ["mail: failed: the job queue's database: server closed the connection unexpectedly"
                               " This probably means"]


def test_a_worker_older_than_the_job_queue_tables_refuses_to_start_and_leaves_them_as_they_are(
        tmp_path, posts_dir, postgres_url):
    from newsletter.schedule import worker

    config = load(worker_config(tmp_path, posts_dir, postgres_url, 25, [], missed_by()))
    app = worker.make_app(config)
    worker.ensure_schema(config.state, app)
    newer = "99.99.99_01_from_a_newer_procrastinate"
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute("UPDATE job_queue_schema SET migration = %s", (newer,))
    with pytest.raises(ScheduleError, match=f"at procrastinate's migration {newer}, newer than this one knows"):
        worker.ensure_schema(config.state, app)
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT migration FROM job_queue_schema").fetchall() == [(newer,)]


@pytest.mark.slow
def test_the_job_of_a_killed_worker_is_finished_as_failed_by_the_next_worker(
        tmp_path, posts_dir, postgres_url, smtp_server):
    """A SIGKILLed worker leaves its job running in the queue; a worker starting once its
    heartbeat is old (aged here in the table, rather than waited for) finishes the job as
    failed, says so, and mails the rest."""
    readers = SUBSCRIBERS[:1500]
    config = worker_config(tmp_path, posts_dir, postgres_url, smtp_server.port, readers, missed_by())
    workers = Workers(config, tmp_path / "logs")
    workers.start()
    try:
        wait_for(lambda: smtp_server.sink.received, 60, "the first message")
        workers.kill_one()
        with psycopg.connect(postgres_url) as connection:
            left = connection.execute("SELECT id FROM procrastinate_jobs WHERE status = 'doing'").fetchall()
            connection.execute("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour'")
        assert left
        workers.start()
        wait_for(lambda: outbox_counts(postgres_url) == {"sent": len(readers)}, 90, "the end of the mailing")
    finally:
        assert workers.stop() == [0]
    with psycopg.connect(postgres_url) as connection:
        states = dict(connection.execute("SELECT id, status FROM procrastinate_jobs").fetchall())
    assert {states[job_id] for (job_id,) in left} == {"failed"}
    for (job_id,) in left:
        assert f"job {job_id} (newsletter." in workers.log()
    assert "left running by a worker that stopped answering" in workers.log()
