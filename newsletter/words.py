"""Numbers in the reports' words: "1 problem", "2 problems"."""

from __future__ import annotations


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and `noun`, in the plural (`noun` + "s" unless given) for any number but 1."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
