"""How the program logs: a message a line on stderr; with its level, and the debug messages
too, when the user asks for verbose output."""

from __future__ import annotations

import logging
import sys


def configure(verbose: bool) -> None:
    """Set up the root logger, once: later calls leave the first one's setup."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(levelname)s: %(message)s" if verbose else "%(message)s",
        stream=sys.stderr,
    )
