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

from newsletter.config import Config
from newsletter.config import load as load_config
from newsletter.errors import NewsletterError
from newsletter.mail.send import send
from newsletter.models import Entry, Feature, Post, Summary
from newsletter.pipeline import build
from newsletter.summarize import summarize
from newsletter.version import __version__

__all__ = [
    "Config", "Entry", "Feature", "NewsletterError", "Post", "Summary",
    "__version__", "build", "load_config", "send", "summarize",
]
