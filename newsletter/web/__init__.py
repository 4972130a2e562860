"""`newsletter serve`: the archive, sign-up with confirmation by mail, and one-click
unsubscribe, as one WSGI application.

In production run it under a WSGI server behind a reverse proxy, e.g.
`gunicorn 'newsletter.web:create_app()'` or `waitress-serve --call newsletter.web:create_app`,
with NEWSLETTER_CONFIG naming the config file (default: config.toml in the working folder).
"""

from newsletter.web.app import create_app

__all__ = ["create_app"]
