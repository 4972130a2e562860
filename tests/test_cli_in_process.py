"""The command line driven in this process (click's runner): quick checks of its surface."""

import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers.servers import email_section, free_port

from newsletter.cli import cli
from newsletter.mail import smtp


def test_h_is_help_too():
    result = CliRunner().invoke(cli, ["-h"])
    assert result.exit_code == 0
    assert "Usage:" in result.output and "summarize" in result.output


def test_summarize_refuses_a_binary_file_in_one_line(tmp_path: Path):
    image = tmp_path / "logo.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 64)
    result = CliRunner().invoke(cli, ["summarize", str(image)])
    assert result.exit_code == 1
    assert result.output.strip() == f"error: {image}: binary data, not a text post"


def test_build_counts_in_words_that_agree_with_the_number(config):
    result = CliRunner().invoke(cli, ["--config", str(config.path), "build"])
    assert result.exit_code == 0, result.output
    assert "3 posts seen, 3 summarized, new digest 2026-" in result.output
    assert ", 0 problems;" in result.output

    (config.path.parent / "posts" / "empty.md").write_bytes(b"")
    result = CliRunner().invoke(cli, ["--config", str(config.path), "build"])
    assert ", 1 problem;" in result.output


def test_send_exits_75_when_the_server_cannot_be_reached(config, monkeypatch):
    """Nothing is lost when the server is away: the messages wait for the next send, and the
    exit status tells cron or systemd to try again (sysexits' EX_TEMPFAIL)."""
    monkeypatch.setattr(smtp, "RETRY_DELAYS", ())
    with_email = config.path.read_text(encoding="utf-8") + email_section(free_port(), ["ada@example.org"])
    config.path.write_text(with_email, encoding="utf-8")
    assert CliRunner().invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0
    # The command's return value is what main() exits with.
    result = CliRunner().invoke(cli, ["--config", str(config.path), "send"], standalone_mode=False)
    assert result.return_value == 75, result.output
    assert result.output.startswith("error: connection to 127.0.0.1:")
    assert "left for the next send" in result.output


def damage(path: Path) -> None:
    """Overwrite the start of every other page after the first few: the header still reads,
    the tables do not."""
    connection = sqlite3.connect(path)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    data = bytearray(path.read_bytes())
    for offset in range(4096 * 3, len(data), 4096 * 2):
        data[offset:offset + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))


@pytest.mark.slow
def test_a_damaged_state_database_is_one_line_in_every_command(config):
    posts = config.path.parent / "posts"
    for number in range(150):
        (posts / f"filler-{number}.md").write_text(f"# Filler {number}\n\n" + "Text. " * 200, encoding="utf-8")
    assert CliRunner().invoke(cli, ["--config", str(config.path), "build"]).exit_code == 0
    damage(config.state.path)
    for command in (["sources"], ["build"]):
        result = CliRunner().invoke(cli, ["--config", str(config.path), *command])
        assert result.exit_code == 1, (command, result.output)
        # Opening reads the schema; where the damage lies decides whether opening or a
        # later read meets it first.
        assert re.fullmatch(rf"error: {re.escape(str(config.state.path))}: cannot (open|read) the state database:"
                            r" database disk image is malformed", result.output.strip().splitlines()[-1]), command


def test_config_may_follow_the_command_too(config, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path.parent)  # no config.toml here: only the option can name it
    result = CliRunner().invoke(cli, ["build", "--config", str(config.path)])
    assert result.exit_code == 0, result.output
    assert (config.archive_dir / "posts.atom").exists()
    listed = CliRunner().invoke(cli, ["sources", "--config", str(config.path)])
    assert listed.exit_code == 0 and "posts" in listed.output
