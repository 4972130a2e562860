"""What a newcomer and an operator meet on the command line: init, help, the words of the
reports, what works before the whole config is right (a dry run, a scheduled digest, the
sources list), when `send` says to try again, `posts`, and progress that counts posts."""

from __future__ import annotations

import email
import email.policy
import io
import json
import socket
import sys
import threading
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from helpers import NOW, REPO
from helpers.servers import email_section

from newsletter import pipeline
from newsletter.cli import cli
from newsletter.cli.base import print_table
from newsletter.config import load
from newsletter.errors import MailServerUnreachable
from newsletter.mail import send as mailer
from newsletter.mail import smtp
from newsletter.schedule.scheduler import run_due
from newsletter.state.store import Store
from newsletter.words import count


@pytest.mark.slow
def test_init_writes_a_config_and_sample_posts_that_build(tmp_path: Path):
    folder = tmp_path / "digest"
    result = CliRunner().invoke(cli, ["init", str(folder)])
    assert result.exit_code == 0, result.output
    assert "# " in (folder / "config.toml").read_text(encoding="utf-8")  # commented, key by key
    assert sorted(p.name for p in (folder / "posts").iterdir()) == sorted(
        p.name for p in (REPO / "examples" / "posts").iterdir())

    built = CliRunner().invoke(cli, ["build", "--config", str(folder / "config.toml")])
    assert built.exit_code == 0, built.output
    assert "3 posts seen" in built.output
    assert list((folder / "archive" / "digests").glob("*.html"))


def test_init_overwrites_nothing(tmp_path: Path):
    (tmp_path / "config.toml").write_text("# mine\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: {tmp_path / 'config.toml'}: already there;"
                                     " init overwrites nothing (choose another DIR)")
    assert (tmp_path / "config.toml").read_text(encoding="utf-8") == "# mine\n"
    assert not (tmp_path / "posts").exists()


def test_the_checkouts_config_is_the_one_init_writes_but_for_the_posts_folder():
    """Two copies of the commented config: they must not drift apart."""
    checkout = (REPO / "config.toml").read_text(encoding="utf-8").splitlines()
    starter = (REPO / "examples" / "config.toml").read_text(encoding="utf-8").splitlines()
    differ = [(a, b) for a, b in zip(checkout, starter, strict=True) if a != b]
    assert differ[2:] == [('path = "examples/posts"', 'path = "posts"')]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_sources_table_folds_a_long_location_on_a_narrow_terminal(monkeypatch):
    location = "https://releases.example.org/a/rather/long/path/to/the/project/feed.xml"
    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.setattr(sys, "stdout", _Terminal())
    print_table(("source", "kind", "location"), [("blog", "feed", location)])
    shown = sys.stdout.getvalue()
    assert "…" not in shown
    # The table's borders aside, the location is there in full, a line at a time.
    cells = [line.split("│")[3].strip() for line in shown.splitlines() if line.count("│") == 4]
    assert len(cells) > 1 and "".join(cells) == location, shown


def test_the_help_shows_each_commands_description_whole():
    result = CliRunner().invoke(cli, ["--help"], terminal_width=80)
    commands = result.output.split("Commands:")[1]
    assert "..." not in commands
    assert " ".join(commands.split()).startswith(
        "build Collect every source, summarize what is new, write feeds, digest and index. digest")


def test_counts_agree_with_their_numbers():
    assert (count(1, "message"), count(2, "message"), count(0, "entry", "entries")) == (
        "1 message", "2 messages", "0 entries")


def test_a_dry_run_needs_no_email_section(config):
    """Before SMTP is set up, the messages the subscribers would get can be looked at."""
    runner = CliRunner()
    assert runner.invoke(cli, ["--config", str(config.path), "subscribers", "add", "ada@example.org"]).exit_code == 0
    assert runner.invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0
    folder = config.path.parent / "outgoing"
    result = runner.invoke(cli, ["--config", str(config.path), "send", "--dry-run", "--out", str(folder)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == f"1 message written to {folder}; nothing sent"
    (message,) = folder.glob("*/ada@example.org.eml")
    parsed = email.message_from_bytes(message.read_bytes(), policy=email.policy.default)
    assert parsed["To"] == "ada@example.org"
    assert parsed["From"].addresses[0].addr_spec == "newsletter@digest.example.org"


def test_a_scheduled_digest_without_email_is_built_and_not_mailed(config):
    config.path.write_text(config.path.read_text(encoding="utf-8") + '\n[schedule]\ndigest = "0 8 * * *"\n',
                           encoding="utf-8")
    scheduled = load(config.path)
    outcome = run_due(scheduled, "digest", now=NOW)
    assert outcome is not None and outcome.endswith("; not mailed: no [email] section"), outcome
    assert list((config.archive_dir / "digests").glob("*.html"))


def test_a_problem_in_the_email_section_does_not_stop_sources(config, caplog):
    config.path.write_text(config.path.read_text(encoding="utf-8") + '\n[email]\nhost = "smtp.example.org"\n',
                           encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(config.path), "sources"])
    assert result.exit_code == 0, result.output
    assert f"{config.path}: email.from: is required (not used by this command)" in caplog.messages
    assert "posts\tfolder\t" in result.output
    # A command that mails still refuses the config, every problem in one line each.
    sent = CliRunner().invoke(cli, ["--config", str(config.path), "send"])
    assert sent.exit_code == 1 and f"{config.path}: email.from: is required" in sent.output


def _with_server(config, port: int, security: str = "none"):
    section = email_section(port, ["ada@example.org"]).replace('security = "none"', f'security = "{security}"')
    config.path.write_text(config.path.read_text(encoding="utf-8") + section, encoding="utf-8")
    assert CliRunner().invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0
    return load(config.path)


@pytest.mark.slow
def test_a_server_that_turns_the_session_away_refuses_nobody(config):
    """A 554 greeting refuses the connection, not the reader: the message waits, as when the
    server is away (which `send` exits 75 for)."""
    listener = socket.create_server(("127.0.0.1", 0))
    attempts = 1 + len(smtp.RETRY_DELAYS)

    def turn_away():
        with listener:
            for _ in range(attempts):
                connection, _ = listener.accept()
                with connection:
                    connection.sendall(b"554 no service here\r\n")

    threading.Thread(target=turn_away, daemon=True).start()
    with_email = _with_server(config, listener.getsockname()[1])
    with pytest.raises(MailServerUnreachable, match="refused: 554 no service here$"):
        mailer.send(with_email, sleep=lambda _seconds: None)
    with Store.open(config.state) as store:
        (head,) = store.digests_to_mail()
        assert store.outbox(head.id)["ada@example.org"].state == "deferred"
    assert mailer.messages_left(with_email) == 1


def test_a_mailing_stopped_by_the_server_exits_75_too(config, smtp_server):
    """The server offers no STARTTLS: the message waits for a corrected config."""
    _with_server(config, smtp_server.port, security="starttls")
    # The command's return value is what main() exits with.
    result = CliRunner().invoke(cli, ["--config", str(config.path), "send"], standalone_mode=False)
    assert result.return_value == 75, result.output
    assert "does not offer STARTTLS (email.security); what is not sent is left for the next send" in result.output
    assert smtp_server.sink.received == []


def test_posts_lists_each_post_with_its_entry_and_the_digests_that_carried_it(config):
    runner = CliRunner()
    assert runner.invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0
    (config.path.parent / "posts" / "kite-1.0.md").write_text(
        "# Kite 1.0\n\nPublished 2026-11-01.\n\n## Highlights\n\n- Faster kites.\n", encoding="utf-8")
    assert runner.invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0

    result = runner.invoke(cli, ["--config", str(config.path), "posts", "--json"])
    assert result.exit_code == 0, result.output
    listed = {post["location"]: post for post in json.loads(result.output)}
    assert sorted(listed) == ["kite-1.0.md", "lumen-2.0-de.md", "lumen-2.0.md", "tern-0.9-scrape.txt"]
    first, second = sorted({name for post in listed.values() for name in post["digests"]})
    assert listed["kite-1.0.md"]["digests"] == [second]
    assert listed["lumen-2.0.md"]["digests"] == [first]
    assert listed["kite-1.0.md"]["title"] == "Kite 1.0" and listed["kite-1.0.md"]["source"] == "posts"
    # A translation is a form of the original's entry.
    assert listed["lumen-2.0.md"]["entry"] == listed["lumen-2.0-de.md"]["entry"] != listed["kite-1.0.md"]["entry"]
    assert listed["lumen-2.0.md"]["published"].startswith("2026-10-14")

    table = runner.invoke(cli, ["--config", str(config.path), "posts"])
    assert table.output.splitlines()[0] == "title\tpublished\tsource\tlocation\tentry\tdigests\tskipped"
    assert f"Kite 1.0\t2026-11-01 00:00 UTC\tposts\tkite-1.0.md\t{listed['kite-1.0.md']['entry']}\t{second}\t-" in table.output.splitlines()


@pytest.mark.slow
def test_progress_counts_posts_so_a_single_big_folder_moves(config, posts_dir):
    for number in range(70):
        (posts_dir / f"kite-{number}.md").write_text(f"# Kite {number}\n\n- Faster sync.\n", encoding="utf-8")
    (posts_dir / "logo.md").write_bytes(b"\x00\x01\x02binary")
    steps: list[int] = []
    report = pipeline.build(config, now=NOW, on_posts_done=steps.append)
    assert sum(steps) == report.posts_seen == 74
    # In steps of at most a batch of summaries, however few the sources (here one).
    assert len([step for step in steps if step]) >= 3 and max(steps) <= 64

    steps.clear()
    (posts_dir / "kite-0.md").write_text("# Kite 0\n\n- Slower sync.\n", encoding="utf-8")
    report = pipeline.build(config, now=NOW, on_posts_done=steps.append)
    assert sum(steps) == report.posts_seen


def _leaves(command: click.Command, path: tuple[str, ...] = ()):
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _leaves(sub, (*path, name))
    else:
        yield path, command


def test_every_command_that_reads_the_config_takes_config_after_it_too():
    reading = [(path, command) for path, command in _leaves(cli) if path[0] not in ("init", "summarize")]
    assert len(reading) >= 10
    for path, command in reading:
        assert "--config" in [option for param in command.params for option in param.opts], path


def test_config_after_a_subcommand_of_a_group(config):
    result = CliRunner().invoke(cli, ["subscribers", "add", "ada@example.org", "--config", str(config.path)])
    assert result.exit_code == 0, result.output
    listed = CliRunner().invoke(cli, ["subscribers", "list", "--config", str(config.path)])
    assert "ada@example.org\tactive" in listed.output


def test_a_broken_schedule_does_not_stop_managing_subscribers(config, caplog):
    config.path.write_text(config.path.read_text(encoding="utf-8") + '\n[schedule]\ndigest = "every monday"\n',
                           encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(config.path), "subscribers", "add", "ada@example.org"])
    assert result.exit_code == 0, result.output
    assert any(message.startswith(f"{config.path}: schedule.digest: ") and message.endswith("(not used by this command)")
               for message in caplog.messages)
    run = CliRunner().invoke(cli, ["--config", str(config.path), "run", "--once"])
    assert run.exit_code == 1 and f"{config.path}: schedule.digest: " in run.output
