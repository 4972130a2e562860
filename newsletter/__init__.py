"""newsletter: release announcements in, Atom feeds and email digests out.

The pipeline, as a library:

    from datetime import datetime, timezone
    import newsletter

    config = newsletter.load_config("config.toml")
    report = newsletter.build(config, now=datetime.now(timezone.utc))
    newsletter.send(config)

    summary = newsletter.summarize(open("post.md").read())
    for feature in summary.features:
        print(feature.section, feature.heading, feature.stability)

Every error a user can cause (a bad config, source, post, template, disk or server) is a
NewsletterError whose message names the file, URL or key and the problem.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from newsletter.version import __version__

if TYPE_CHECKING:
    from newsletter.config import Config
    from newsletter.config import load as load_config
    from newsletter.errors import NewsletterError
    from newsletter.mail.send import send
    from newsletter.models import Entry, Feature, Post, Summary
    from newsletter.pipeline import build
    from newsletter.summarize import summarize

__all__ = [
    "Config", "Entry", "Feature", "NewsletterError", "Post", "Summary",
    "__version__", "build", "load_config", "send", "summarize",
]

# name -> (module, name there). Every command, `newsletter --version` included, imports this
# package first: the pipeline, the summarizer and the mailer are imported when a program
# first asks for them, not then.
_EXPORTS = {
    "Config": ("newsletter.config", "Config"),
    "Entry": ("newsletter.models", "Entry"),
    "Feature": ("newsletter.models", "Feature"),
    "NewsletterError": ("newsletter.errors", "NewsletterError"),
    "Post": ("newsletter.models", "Post"),
    "Summary": ("newsletter.models", "Summary"),
    "build": ("newsletter.pipeline", "build"),
    "load_config": ("newsletter.config", "load"),
    "send": ("newsletter.mail.send", "send"),
    "summarize": ("newsletter.summarize", "summarize"),
}


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'newsletter' has no attribute {name!r}")
    module, attribute = _EXPORTS[name]
    return getattr(importlib.import_module(module), attribute)


# `summarize` here is the summarizer's function, and the summarizer is the subpackage
# newsletter.summarize. Importing a subpackage makes it an attribute of its parent, which
# would hide the function from __getattr__ once anything imported the summarizer. So the
# subpackage (cheap: its modules load on first use) is imported now, once, and that
# attribute dropped: `newsletter.summarize` is the function for good.
importlib.import_module("newsletter.summarize")
del globals()["summarize"]
