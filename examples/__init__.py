"""The sample posts and the commented config.toml that `newsletter init` copies into a new
folder; the checkout's own config.toml builds the same posts in place."""
