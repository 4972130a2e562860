import re
import signal
import threading
import time
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from helpers import NOW, REPO, held_elsewhere, run_cli, start_cli, write_config
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section

from newsletter.config import Config, load
from newsletter.errors import ConfigError, LockedError, MailError
from newsletter.mail import send as mailer
from newsletter.schedule import scheduler
from newsletter.schedule.crontab import cron_trigger
from newsletter.schedule.scheduler import due_time, run_due, run_once
from newsletter.state.store import Store

DAILY_AT_8 = cron_trigger("0 8 * * *", UTC)
TODAY_8 = NOW.replace(hour=8, minute=0)  # NOW is 09:30 on Monday 2 November 2026
GRACE = timedelta(hours=6)
READERS = [f"reader{n}@example.org" for n in range(6)]


def scheduled_config(config: Config, port: int, schedule: str) -> Config:
    text = config.path.read_text(encoding="utf-8")
    config.path.write_text(f"{text}{email_section(port, READERS)}\n[schedule]\n{schedule}\n", encoding="utf-8")
    return load(config.path)


def record_done(config: Config, job: str, scheduled_for: datetime) -> None:
    store = Store.open(config.state)
    store.job_started(job, scheduled_for)
    store.job_finished(job, scheduled_for, "done", done_for=scheduled_for)
    store.close()


def done_for(config: Config, job: str) -> datetime | None:
    store = Store.open(config.state)
    try:
        return store.job_done_for(job)
    finally:
        store.close()


def digest_names(config: Config) -> list[str]:
    store = Store.open(config.state)
    try:
        return [row[0] for row in store.db.execute("SELECT name FROM digests ORDER BY id")]
    finally:
        store.close()


# -- when a job is due ------------------------------------------------------------


@pytest.mark.parametrize("last_done, now, expected", [
    (TODAY_8 - timedelta(days=1), NOW, TODAY_8),                # missed while down: due
    (TODAY_8, NOW, None),                                       # done already: never twice
    (None, NOW, TODAY_8),                                       # no record: due within grace
    (TODAY_8 - timedelta(days=1), TODAY_8 + timedelta(hours=7), None),  # beyond the grace
    (TODAY_8 - timedelta(days=3), NOW, TODAY_8),                # several missed: one run
    (TODAY_8 - timedelta(days=1), TODAY_8 - timedelta(minutes=1), None),  # not yet
])
def test_due_time(last_done, now, expected):
    assert due_time(DAILY_AT_8, last_done, now, GRACE) == expected


def test_times_are_read_in_the_schedule_time_zone():
    berlin = cron_trigger("0 8 * * *", ZoneInfo("Europe/Berlin"))
    assert due_time(berlin, None, NOW, GRACE) == datetime(2026, 11, 2, 7, tzinfo=UTC)


@pytest.mark.parametrize("field, weekday", [("1", "Monday"), ("0", "Sunday"), ("7", "Sunday"), ("fri", "Friday")])
def test_crontab_weekday_numbers_mean_what_they_mean_in_cron(field, weekday):
    trigger = cron_trigger(f"0 8 * * {field}", UTC)
    assert trigger.get_next_fire_time(None, NOW).strftime("%A") == weekday


def test_every_other_weekday_counts_from_sunday():
    trigger = cron_trigger("0 8 * * */2", UTC)
    days, after = [], NOW
    for _ in range(4):
        after = trigger.get_next_fire_time(None, after + timedelta(seconds=1))
        days.append(after.strftime("%a"))
    assert days == ["Tue", "Thu", "Sat", "Sun"]


def test_schedule_settings_are_checked(tmp_path):
    path = write_config(tmp_path, """
[schedule]
collect = "*/70 * * *"
digest = "0 8 * * 9"
timezone = "Mars/Olympus"
misfire_grace_minutes = 0
""")
    with pytest.raises(ConfigError) as error:
        load(path)
    lines = [line.removeprefix(f"{path}: ") for line in str(error.value).splitlines()]
    assert lines == [
        "schedule.timezone: 'Mars/Olympus' is not a time zone (like Europe/Berlin)",
        "schedule.collect: '*/70 * * *' is not a crontab string: it needs 5 fields, not 4",
        "schedule.digest: '0 8 * * 9' is not a crontab string: '9' is not a day of the week (0-7 or sun-sat)",
        "schedule.misfire_grace_minutes: must be a whole number of minutes from 1 to 10080 (a week)",
    ]


# -- running due jobs -------------------------------------------------------------


@BOTH_BACKENDS
def test_a_digest_missed_while_down_is_sent_once_on_start_and_not_again(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'digest = "0 8 * * *"')
    record_done(config, "digest", TODAY_8 - timedelta(days=1))

    assert run_once(config, now=NOW)
    assert sorted(smtp_server.sink.by_recipient()) == READERS
    assert done_for(config, "digest") == TODAY_8

    assert run_once(config, now=NOW + timedelta(minutes=5))  # a second start
    assert len(smtp_server.sink.received) == len(READERS)
    assert digest_names(config) == ["2026-11-02-1"]


@BOTH_BACKENDS
def test_a_digest_missed_beyond_the_grace_waits_for_its_next_time(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'digest = "0 8 * * *"\nmisfire_grace_minutes = 60')
    record_done(config, "digest", TODAY_8 - timedelta(days=1))
    assert run_due(config, "digest", now=NOW) is None
    assert smtp_server.sink.received == []
    assert run_due(config, "digest", now=TODAY_8 + timedelta(days=1, minutes=1)) is not None
    assert len(smtp_server.sink.received) == len(READERS)


@BOTH_BACKENDS
def test_the_collect_job_updates_the_feeds_and_leaves_the_digest_to_the_digest_job(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'collect = "0 * * * *"\ndigest = "0 8 * * *"')
    outcome = run_due(config, "collect", now=NOW)
    assert outcome == "3 posts seen, 3 summarized, 0 problems"
    assert (config.archive_dir / "posts.atom").exists()
    assert digest_names(config) == []
    run_due(config, "digest", now=NOW)
    assert digest_names(config) == ["2026-11-02-1"]
    assert len(smtp_server.sink.received) == len(READERS)


@BOTH_BACKENDS
def test_an_interrupted_mailing_is_owed_and_resumed_by_the_next_run(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'digest = "0 8 * * *"')
    outcome = run_due(config, "digest", now=NOW, should_stop=lambda: len(smtp_server.sink.received) >= 2)
    assert "stopped early" in outcome
    assert done_for(config, "digest") is None
    run_due(config, "digest", now=NOW + timedelta(minutes=1))
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == READERS and all(len(c) == 1 for c in received.values())
    assert done_for(config, "digest") == TODAY_8


@BOTH_BACKENDS
def test_a_workers_digest_is_done_for_its_time_once_built_and_never_built_again(config, smtp_server):
    """A worker's digest job (the one given on_unclaimed) stopped mid-mailing: its mail jobs
    finish the mailing, and the next tick must not build (and perhaps make) a second digest."""
    config = scheduled_config(config, smtp_server.port, 'digest = "0 8 * * *"')
    outcome = run_due(config, "digest", now=NOW, should_stop=lambda: len(smtp_server.sink.received) >= 2,
                      on_unclaimed=lambda _at: None)
    assert "stopped early" in outcome
    assert done_for(config, "digest") == TODAY_8
    assert run_due(config, "digest", now=NOW + timedelta(minutes=1), on_unclaimed=lambda _at: None) is None
    mailer.send(config)  # as a mail job does
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == READERS and all(len(c) == 1 for c in received.values())
    assert len(digest_names(config)) == 1


@BOTH_BACKENDS
def test_a_failed_run_is_recorded_and_owed(config, smtp_server):
    config = scheduled_config(config, 9, 'digest = "0 8 * * *"')  # nothing listens on port 9
    with pytest.raises(MailError, match="connection to 127.0.0.1:9 failed"):
        run_due(config, "digest", now=NOW, sleep=lambda _: None)
    store = Store.open(config.state)
    (outcome,) = store.db.execute("SELECT outcome FROM job_runs WHERE job = 'digest'").fetchone()
    store.close()
    assert outcome.startswith("failed: connection to 127.0.0.1:9 failed")
    assert done_for(config, "digest") is None


@BOTH_BACKENDS
@pytest.mark.slow
def test_two_processes_cannot_run_at_once(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'digest = "0 8 * * *"')
    with held_elsewhere(config.state):
        with pytest.raises(LockedError, match="another newsletter run is using this state"):
            run_once(config, now=NOW)
        result = run_cli("--config", str(config.path), "send", timeout=60)
    if config.state.on_postgres:
        # Senders share the outbox through their claims there, not the lock (mail/mailing.py).
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode == 1
        assert "another newsletter run is using this state" in result.stderr
    assert smtp_server.sink.received == []


# -- the service ------------------------------------------------------------------


@BOTH_BACKENDS
@pytest.mark.slow
def test_the_service_makes_up_a_missed_run_and_stops_cleanly_on_sigterm(config, smtp_server):
    """`newsletter run` as a process: a run missed while it was down goes out at start; a
    SIGTERM in the middle of the mailing lets the message in progress finish and leaves the
    rest, which the next start sends. Everyone gets the digest once."""
    config = scheduled_config(config, smtp_server.port, 'digest = "0 * * * *"')
    now = datetime.now(UTC)
    record_done(config, "digest", now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=1))
    service = start_cli("--config", str(config.path), "run")
    def stop_during_the_third(kept: int) -> None:
        if kept == 2:
            service.send_signal(signal.SIGTERM)
            # The server holds its answer to MAIL FROM until the service has surely seen the
            # signal, so the one message in progress is the third, whatever the machine's load.
            time.sleep(1)

    smtp_server.sink.on_mail = stop_during_the_third
    _, stderr = service.communicate(timeout=60)
    assert service.returncode == 0, stderr
    assert "was missed; running it now" in stderr
    assert "SIGTERM received" in stderr and stderr.rstrip().endswith("stopped")
    # The signal lands while message 3 is on its way; that message finishes, no other starts.
    assert len(smtp_server.sink.received) == 3

    smtp_server.sink.on_mail = None
    again = run_cli("--config", str(config.path), "run", "--once", timeout=60)
    assert again.returncode == 0, again.stderr
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == READERS and all(len(c) == 1 for c in received.values())


@BOTH_BACKENDS
def test_the_service_runs_a_missed_job_at_once_and_the_others_at_their_time(config, smtp_server):
    config = scheduled_config(config, smtp_server.port, 'digest = "0 * * * *"\ncollect = "0 0 1 1 *"')
    now = datetime.now(UTC)
    last_hour = now.replace(minute=0, second=0, microsecond=0)
    new_year = datetime(now.year, 1, 1, tzinfo=UTC)
    record_done(config, "digest", last_hour - timedelta(hours=1))
    record_done(config, "collect", new_year)
    service = scheduler.make_scheduler(config, threading.Event())
    service.start(paused=True)
    try:
        jobs = {job.id: job for job in service.get_jobs()}
    finally:
        service.shutdown(wait=False)
    assert jobs["digest"].next_run_time <= datetime.now(UTC)
    assert jobs["collect"].next_run_time == new_year.replace(year=now.year + 1)
    assert all(job.max_instances == 1 and job.coalesce for job in jobs.values())


def test_the_commented_examples_in_the_bundled_config_load(tmp_path):
    """Uncommented, the [email] and [schedule] examples of config.toml are a valid config."""
    bundled = (REPO / "config.toml").read_text(encoding="utf-8")
    examples = [re.search(rf"^# \[{name}\]\n(# .*\n)+", bundled, re.MULTILINE).group(0)
                for name in ("email", "schedule")]
    text = "\n".join(re.sub(r"^# (\[\w+\]|\w+ = )", r"\1", block, flags=re.MULTILINE) for block in examples)
    (tmp_path / "subscribers.txt").write_text("# none yet\n", encoding="utf-8")
    config = load(write_config(tmp_path, text))
    assert config.email.password_env == "NEWSLETTER_SMTP_PASSWORD"
    assert [str(a) for a in config.email.subscribers] == ["ada@example.org", "Grace Hopper <grace@example.org>"]
    assert config.schedule.timezone == ZoneInfo("Europe/Berlin")
    assert config.schedule.digest.get_next_fire_time(None, NOW).strftime("%A %H:%M") == "Monday 08:00"
