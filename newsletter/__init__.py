"""newsletter: release announcements in, Atom feeds and email digests out."""
