"""The linearity check the hostile-post tests rely on tells a quadratic reader from a linear one."""

import pytest
from helpers.linear import assert_linear


def read_linearly(text: str) -> int:
    return sum(1 for character in text if character == "a")


def read_quadratically(text: str) -> int:
    lines = text.splitlines()
    return sum(1 for line in lines for other in lines if line is other)


def make(k: int) -> str:
    return "a line\n" * 1500 * k


def test_a_linear_reader_passes():
    assert_linear(read_linearly, make)


def test_a_quadratic_reader_fails():
    with pytest.raises(AssertionError, match="not linear"):
        assert_linear(read_quadratically, make)
