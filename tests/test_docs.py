"""The README and the commands' --help tell the same story as the code."""

import re

import pytest
from click.testing import CliRunner
from helpers import REPO

from newsletter.cli import cli

README = (REPO / "README.md").read_text(encoding="utf-8")
COMMANDS_BLOCK = re.search(r"## Commands\n\n```\n(.*?)```", README, re.S).group(1)


def test_the_readme_lists_every_command_and_only_those():
    listed = {re.search(r"newsletter(?: \[[^\]]*\])* (\w+)", line).group(1) for line in COMMANDS_BLOCK.splitlines()}
    assert listed == set(cli.commands)


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_each_command_has_help_with_an_example_and_the_options_the_readme_shows(name):
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0
    assert "Example: newsletter" in result.output
    line = next(line for line in COMMANDS_BLOCK.splitlines() if re.search(rf"\] {name}\b|newsletter {name}\b", line))
    for option in re.findall(r"--[a-z-]+", line.split(name, 1)[1]):
        assert option in result.output, f"README shows {option} for {name}; --help does not"


def test_the_readme_set_up_commands_are_the_ones_ci_runs():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    test_command = re.search(r"## Running the tests\n\n```sh\n(.*?)\n```", README, re.S).group(1)
    assert test_command in ci.splitlines()
    main_job = re.search(r"## Quick start\n.*?```sh\n(.*?)\n```", README, re.S).group(1)
    assert main_job.endswith("newsletter build")
