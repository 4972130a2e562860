"""The routes of the subscription service.

- `/` and below: the archive folder as `build` writes it, read-only; each digest's web copy
  gets the sign-up form.
- `POST /subscribe` (form field `email`): records a sign-up and mails a confirmation link.
  The page it answers is the same whoever the address belongs to.
- `/confirm/<token>`: GET shows a button, POST makes the sign-up active. A link works once.
- `/unsubscribe/<token>`: GET shows a button and changes nothing, since link scanners open
  every link; POST with `List-Unsubscribe=One-Click` (RFC 8058; the button sends the same)
  unsubscribes at once and answers 200, with no redirect and no cookie.
- `/preferences/<token>`: GET shows the subscriber's slice as a form (web/preferences.py),
  POST saves it and shows it again.

Every form that changes something posts to the signed link it was shown at: the token in the
address is what a forged cross-site request would need, and no cookie is ever set, so there
is no session for one to ride on.

A link that is malformed, tampered with, or signed with another key gets a 4xx page and
changes nothing. Each request opens the state database on its own: SQLite serialises the
writes, and the mailer's outbox sees an unsubscribe as soon as it is committed.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from flask import Flask, abort, request, send_from_directory
from werkzeug.exceptions import HTTPException
from werkzeug.security import safe_join
from werkzeug.wrappers import Response

from newsletter.config import Config, load, parse_address
from newsletter.errors import MailError, StoreError, WebError
from newsletter.mail import tokens
from newsletter.mail.confirm import new_message_id, send_confirmations
from newsletter.mail.send import smtp_password
from newsletter.mail.smtp import Connection
from newsletter.publish.digest import render_page, render_signup
from newsletter.publish.paths import DIGESTS_FOLDER, INDEX, JSON_FEED_TYPE, POSTS_JSON_FEED
from newsletter.state import subscribers
from newsletter.state.store import Store
from newsletter.state.subscribers import SUPPRESSED, Subscriber
from newsletter.web import preferences as preferences_page

log = logging.getLogger(__name__)

# The longest address SMTP can carry (RFC 5321: a 256-octet path, less its brackets).
MAX_ADDRESS = 254
# A larger body is refused before it is read. The sign-up form holds one field; the
# preferences form up to MAX_NAMES names of MAX_NAME characters in each of its two lists,
# which, in 4-byte characters percent-encoded, come to about 470 KiB.
MAX_BODY = 512 * 1024
# Files whose type their suffix does not tell: a JSON Feed is JSON, known by its own type.
_FEED_TYPES = {POSTS_JSON_FEED: JSON_FEED_TYPE}
# How long an unsubscribe waits for a message to its address that is being handed to the
# server at that moment, so that none goes out after the answer (a pending mark older than
# subscribers.IN_FLIGHT is a mailing that was killed).
IN_FLIGHT_WAIT = 10.0


def create_app(config_path: str | Path | None = None) -> Flask:
    """The service for the config at `config_path` (else $NEWSLETTER_CONFIG, else
    config.toml). Raises a NewsletterError naming what is missing, before serving anything."""
    path = Path(config_path or os.environ.get("NEWSLETTER_CONFIG", "config.toml"))
    config = load(path)
    if config.web is None:
        raise WebError(f"{path}: no [web] section: it names the environment variable that holds the signing key")
    service = _Service(config, tokens.signer(config.web))
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.add_url_rule("/", "index", service.archive, defaults={"path": INDEX})
    app.add_url_rule("/<path:path>", "archive", service.archive)
    app.add_url_rule("/subscribe", "subscribe", service.subscribe, methods=["POST"])
    app.add_url_rule("/confirm/<token>", "confirm", service.confirm, methods=["GET", "POST"])
    app.add_url_rule("/unsubscribe/<token>", "unsubscribe", service.unsubscribe, methods=["GET", "POST"])
    app.add_url_rule("/preferences/<token>", "preferences", service.preferences, methods=["GET", "POST"])
    app.register_error_handler(HTTPException, service.error_page)
    app.register_error_handler(StoreError, service.busy_page)
    return app


class _Service:
    def __init__(self, config: Config, signer: tokens.Signer):
        assert config.web is not None
        self.config = config
        self.web = config.web
        self.signer = signer
        # Digests' web copies live one folder down from /subscribe.
        self.digest_signup = render_signup(config, "../subscribe")

    def archive(self, path: str) -> Response:
        folder = self.config.archive_dir.resolve()
        if path.startswith(f"{DIGESTS_FOLDER}/") and path.endswith(".html"):
            return self._digest_page(folder, path)
        # send_from_directory refuses a path that leads out of the folder (404).
        return send_from_directory(folder, path, mimetype=_FEED_TYPES.get(path))

    def subscribe(self) -> tuple[str, int]:
        address = _address(request.form.get("email", ""))
        now = _now()
        with self._store() as store:
            pending = subscribers.request_sign_up(store, address, now, new_message_id(self.config))
            if pending:
                self._send_confirmation(store, pending, now)
        # The same answer for a new, pending, subscribed or unsubscribed address.
        return self._page("Check your inbox", f"If {address} can take mail from us, a message with a link to"
                          " confirm is on its way. Nothing is sent to it until the link is followed."), 200

    def confirm(self, token: str) -> tuple[str, int]:
        with self._store() as store:
            subscriber = self._holder(store, "confirm", token)
            if request.method == "GET":
                return self._page("Confirm your subscription", f"Send each digest to {subscriber.address}?",
                                  button="Confirm", fields={}), 200
            if not subscribers.confirm(store, subscriber, _now()):
                abort(410, "This confirmation link has been used already or has expired.")
        return self._page("Subscribed", f"{subscriber.address} gets the next digest."), 200

    def unsubscribe(self, token: str) -> tuple[str, int]:
        fields = {"List-Unsubscribe": "One-Click"}
        with self._store() as store:
            subscriber = self._holder(store, "unsubscribe", token)
            if request.method == "GET":
                return self._page("Unsubscribe", f"Stop sending the digests to {subscriber.address}?",
                                  button="Unsubscribe", fields=fields), 200
            if request.form.get("List-Unsubscribe") != "One-Click":
                abort(400, "An unsubscribe request carries List-Unsubscribe=One-Click in its body.")
            now = _now()
            # Bounced or complained is a stronger reason to stay away, and is kept.
            if subscriber.status not in SUPPRESSED:
                subscribers.set_status(store, subscriber.id, "unsubscribed", "unsubscribe link", now)
            _wait_until_not_being_sent(store, subscriber.address, now - subscribers.IN_FLIGHT)
        return self._page("Unsubscribed", f"No more digests go to {subscriber.address}."), 200

    def preferences(self, token: str) -> tuple[str, int]:
        with self._store() as store:
            subscriber = self._holder(store, "preferences", token)
            chosen = subscriber.slice
            if request.method == "POST":
                chosen = preferences_page.from_form(request.form)
                subscribers.set_slice(store, subscriber.id, chosen)
            page = preferences_page.render(self.config, store, subscriber, chosen, saved=request.method == "POST",
                                           action=request.path.rsplit("/", 1)[1])
        return page, 200

    def error_page(self, error: HTTPException) -> tuple[str, int]:
        code = error.code or 400
        return self._page(f"{code} {error.name}", error.description or ""), code

    def busy_page(self, error: StoreError) -> tuple[str, int]:
        log.error("%s", error)
        return self._page("Try again later", "The service cannot reach its records just now."), 503

    # -- helpers --------------------------------------------------------------------

    def _digest_page(self, folder: Path, path: str) -> Response:
        """A digest's web copy (the email's HTML, which has no form) with the sign-up form
        at its end."""
        file = safe_join(str(folder), path)
        if file is None or not os.path.isfile(file):
            abort(404)
        html = Path(file).read_text(encoding="utf-8")
        return Response(html.replace("</body>", self.digest_signup + "</body>", 1), mimetype="text/html")

    def _send_confirmation(self, store: Store, pending: Subscriber, now: datetime) -> None:
        """Once, now; if the server cannot take it, the next `newsletter send` tries again
        (logged for the operator: the page says the same either way)."""
        assert self.config.email is not None  # the config's rules ask for [email] with [web]
        connection = Connection(self.config.email, smtp_password(self.config.email))
        try:
            send_confirmations(self.config, store, connection, now, subscriber_id=pending.id)
        except MailError as exc:
            log.warning("%s: the confirmation of a sign-up waits for the next send: %s", pending.address, exc)
        finally:
            connection.close()

    def _holder(self, store: Store, purpose: tokens.Purpose, token: str) -> Subscriber:
        """The subscriber whose signed link `token` is; aborts with 404 (not ours) or 410
        (a confirmation no longer pending) otherwise."""
        subscriber_id = tokens.subscriber_id_of(token)
        subscriber = subscribers.by_id(store, subscriber_id) if subscriber_id else None
        if subscriber is None:
            abort(404, "This link is not one of ours, or it was changed on the way.")
        bound = [subscriber.address]
        if purpose == "confirm":
            requested = subscriber.requested
            if requested is None or _now() - requested > timedelta(days=self.web.confirm_days):
                abort(410, "This confirmation link has been used already or has expired: sign up again.")
            bound.append(requested.isoformat())
        if not self.signer.verify(purpose, token, subscriber.id, *bound):
            abort(404, "This link is not one of ours, or it was changed on the way.")
        return subscriber

    @contextmanager
    def _store(self) -> Iterator[Store]:
        with Store.open(self.config.state) as store:
            yield store

    def _page(self, title: str, message: str, button: str | None = None, fields: dict | None = None) -> str:
        # The form posts back to the address the page was opened at; relative, since a proxy
        # may serve the service under a path of site.url.
        form = {"action": request.path.rsplit("/", 1)[1], "button": button, "fields": fields or {}} if button else None
        return render_page(self.config, title, message, form)


def _address(text: str) -> str:
    """The bare address of a sign-up form's field; aborts with 400 naming the problem."""
    if len(text) > MAX_ADDRESS:
        abort(400, f"An email address has at most {MAX_ADDRESS} characters.")
    if not text.isprintable():
        abort(400, "An email address is one line, without control characters.")
    address = parse_address(text.strip())
    if address is None:
        abort(400, f"{text!r} is not an email address.")
    return address.addr_spec.lower()


def _wait_until_not_being_sent(store: Store, address: str, since: datetime) -> None:
    deadline = time.monotonic() + IN_FLIGHT_WAIT
    while subscribers.being_sent(store, address, since) and time.monotonic() < deadline:
        time.sleep(0.05)


def _now() -> datetime:
    return datetime.now(UTC)
