"""newsletter: release announcements in, Atom feeds and email digests out."""

__version__ = "0.1.0"
