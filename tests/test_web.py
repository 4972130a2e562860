"""The subscription service in process (Flask's test client): the archive, one-click
unsubscribe, sign-up and confirmation, and every hostile link or form getting a 4xx."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section, free_port

from newsletter import pipeline
from newsletter.config import Config, load
from newsletter.errors import WebError
from newsletter.mail import send as mailer
from newsletter.mail import tokens
from newsletter.models import Slice
from newsletter.state import subscribers
from newsletter.state.store import Store
from newsletter.web import create_app, preferences

ADDRESSES = ["ada@example.org", "grace@example.org"]
KEY = "k" * 40
WEB = '[web]\nsecret_env = "TEST_NEWSLETTER_SECRET"\n'
ONE_CLICK = {"List-Unsubscribe": "One-Click"}


def no_sleep(_seconds: float) -> None:
    pass


@pytest.fixture
def web_config(config: Config, smtp_server, monkeypatch) -> Config:
    """Two subscribers, links to the service instead of email.unsubscribe_url, a digest built."""
    monkeypatch.setenv("TEST_NEWSLETTER_SECRET", KEY)
    section = email_section(smtp_server.port, ADDRESSES).replace(
        'unsubscribe_url = "https://digest.example.org/unsubscribe"\n', "")
    config.path.write_text(config.path.read_text(encoding="utf-8") + section + WEB, encoding="utf-8")
    config = load(config.path)
    pipeline.build(config, now=NOW)
    return config


@pytest.fixture
def client(web_config):
    return create_app(web_config.path).test_client()


def unsubscribe_path(smtp_server, address: str) -> str:
    """The path of the https link in the List-Unsubscribe header of `address`'s message."""
    header = smtp_server.sink.by_recipient()[address][-1].message["List-Unsubscribe"]
    return re.search(r"<https://digest\.example\.org(/unsubscribe/[^>]+)>", " ".join(header.split())).group(1)


def status(config: Config, address: str) -> str | None:
    with Store.open(config.state) as store:
        row = subscribers.get(store, address)
    return row.status if row else None


@BOTH_BACKENDS
def test_the_archive_is_served_with_a_sign_up_form_and_nothing_outside_it(client, web_config):
    index = client.get("/")
    assert index.status_code == 200
    assert '<form class="signup" method="post" action="subscribe">' in index.text
    for path, media_type in (("posts.atom", "application/atom+xml"), ("posts.json", "application/feed+json")):
        feed = client.get(f"/{path}")
        assert feed.data == (web_config.archive_dir / path).read_bytes() and feed.mimetype == media_type
    (digest,) = (web_config.archive_dir / "digests").glob("*.html")
    web_copy = client.get(f"/digests/{digest.name}")
    assert web_copy.status_code == 200 and web_copy.mimetype == "text/html"
    assert web_copy.text.count('action="../subscribe"') == 1
    assert re.sub(r'<form class="signup".*?</form>\n', "", web_copy.text, flags=re.S) == digest.read_text(
        encoding="utf-8")
    for path in ("/../config.toml", "/%2e%2e/state.sqlite", "/digests", "/digests/../../config.toml", "/nothing",
                 "/digests/nothing.html", "/digests/..%2f..%2fconfig.html"):
        assert client.get(path).status_code == 404, path


@BOTH_BACKENDS
def test_a_one_click_post_unsubscribes_at_once_and_a_get_changes_nothing(client, web_config, smtp_server):
    mailer.send(web_config, sleep=no_sleep)
    path = unsubscribe_path(smtp_server, "grace@example.org")

    page = client.get(path)
    assert page.status_code == 200 and 'name="List-Unsubscribe" value="One-Click"' in page.text
    assert status(web_config, "grace@example.org") == "active"

    for _ in range(2):  # repeating it is harmless
        answer = client.post(path, data=ONE_CLICK)
        assert answer.status_code == 200
        assert "Location" not in answer.headers and "Set-Cookie" not in answer.headers
    assert status(web_config, "grace@example.org") == "unsubscribed"

    pipeline.build(web_config, now=NOW + timedelta(days=1), since=NOW - timedelta(days=1))
    mailer.send(web_config, sleep=no_sleep)
    assert [r.recipient for r in smtp_server.sink.received] == [*ADDRESSES, "ada@example.org"]


@BOTH_BACKENDS
def test_tampered_foreign_or_malformed_links_get_a_4xx_and_change_nothing(client, web_config, smtp_server):
    mailer.send(web_config, sleep=no_sleep)
    path = unsubscribe_path(smtp_server, "grace@example.org")
    token = path.rsplit("/", 1)[1]
    with Store.open(web_config.state) as store:
        ada = subscribers.get(store, "ada@example.org")
    foreign = tokens.Signer([b"x" * 40]).sign("unsubscribe", ada.id, ada.address)
    flipped = token[:-1] + ("A" if token[-1] != "A" else "B")
    other_id = f"{ada.id}.{token.split('.')[1]}"
    confirm_as_unsubscribe = tokens.Signer([KEY.encode()]).sign("confirm", ada.id, ada.address)
    for bad in (flipped, other_id, foreign, confirm_as_unsubscribe, "1.x", "0." + "A" * 43, "9" * 30, "%00"):
        for method in (client.get, client.post):
            answer = method(f"/unsubscribe/{bad}", data=ONE_CLICK)
            assert 400 <= answer.status_code < 500, (bad, answer.status_code)
    assert client.post(path, data={"List-Unsubscribe": "yes"}).status_code == 400
    assert {status(web_config, a) for a in ADDRESSES} == {"active"}


def confirmation_link(smtp_server, address: str) -> str:
    """The line of the confirmation message's text that is the confirmation URL."""
    message = smtp_server.sink.by_recipient()[address][-1].message
    (line,) = [line for line in message.get_content().splitlines() if "/confirm/" in line]
    assert line.startswith("https://digest.example.org/confirm/")
    return line.removeprefix("https://digest.example.org")


@BOTH_BACKENDS
def test_sign_up_then_confirm_makes_an_address_active_once(client, web_config, smtp_server):
    answer = client.post("/subscribe", data={"email": "New.Reader@example.org"})
    assert answer.status_code == 200 and "Check your inbox" in answer.text
    assert status(web_config, "new.reader@example.org") == "unconfirmed"
    path = confirmation_link(smtp_server, "new.reader@example.org")

    assert 'method="post"' in client.get(path).text
    assert status(web_config, "new.reader@example.org") == "unconfirmed"
    assert client.post(path).status_code == 200
    assert status(web_config, "new.reader@example.org") == "active"
    assert client.post(path).status_code == 410  # replayed

    mailer.send(web_config, sleep=no_sleep)
    assert "new.reader@example.org" in {r.recipient for r in smtp_server.sink.received}


@BOTH_BACKENDS
def test_the_sign_up_answer_is_the_same_for_known_and_unknown_addresses(client, web_config, smtp_server):
    known = client.post("/subscribe", data={"email": "ada@example.org"})
    mailer.send(web_config, sleep=no_sleep)
    unknown = client.post("/subscribe", data={"email": "eve@example.org"})
    assert (known.status_code, known.text.replace("ada", "eve")) == (unknown.status_code, unknown.text)


@BOTH_BACKENDS
def test_an_expired_confirmation_is_refused(client, web_config, smtp_server):
    client.post("/subscribe", data={"email": "late@example.org"})
    path = confirmation_link(smtp_server, "late@example.org")
    with Store.open(web_config.state) as store, store.transaction() as db:
        db.execute("UPDATE subscribers SET requested = ? WHERE address = 'late@example.org'",
                   ((NOW - timedelta(days=30)).isoformat(),))
    assert client.post(path).status_code == 410
    assert status(web_config, "late@example.org") == "unconfirmed"


@pytest.mark.parametrize("text", ["a@example.org\r\nBcc: victim@example.org", "a" * 10_000 + "@example.org",
                                  "not an address", ""])
@BOTH_BACKENDS
def test_a_sign_up_of_a_hostile_address_gets_a_clear_400_and_changes_nothing(client, web_config, smtp_server, text):
    answer = client.post("/subscribe", data={"email": text})
    assert answer.status_code == 400 and "address" in answer.text
    with Store.open(web_config.state) as store:
        assert subscribers.every(store) == []
    assert smtp_server.sink.received == []


@BOTH_BACKENDS
def test_a_body_too_large_is_refused_before_it_is_read(client):
    assert client.post("/subscribe", data={"email": "a" * 600_000}).status_code == 413


@BOTH_BACKENDS
def test_a_wsgi_server_finds_the_config_in_the_environment(web_config, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NEWSLETTER_CONFIG", str(web_config.path))
    assert create_app().test_client().get("/").status_code == 200


@BOTH_BACKENDS
def test_the_service_needs_a_web_section(config):
    with pytest.raises(WebError, match=r"config.toml: no \[web\] section"):
        create_app(config.path)


@BOTH_BACKENDS
def test_a_confirmation_the_server_refuses_can_be_asked_for_again_at_once(client, web_config, smtp_server):
    smtp_server.sink.refuse["new@example.org"] = "550 5.1.1 No such user"
    first = client.post("/subscribe", data={"email": "new@example.org"})
    assert first.status_code == 200 and smtp_server.sink.received == []
    del smtp_server.sink.refuse["new@example.org"]
    assert client.post("/subscribe", data={"email": "new@example.org"}).text == first.text
    assert confirmation_link(smtp_server, "new@example.org").startswith("/confirm/")


def confirmations(config: Config) -> list[tuple[str, str, int]]:
    with Store.open(config.state) as store:
        return store.db.execute(
            "SELECT address, state, attempts FROM confirmations JOIN subscribers ON subscribers.id = subscriber_id"
            " ORDER BY confirmations.requested").fetchall()


@BOTH_BACKENDS
def test_a_confirmation_the_mail_server_could_not_take_is_sent_by_the_next_send(web_config, smtp_server):
    # The service starts while the mail server is down: the sign-up is kept, its message queued.
    down = free_port()
    web_config.path.write_text(web_config.path.read_text(encoding="utf-8").replace(
        f"port = {smtp_server.port}", f"port = {down}"), encoding="utf-8")
    answer = create_app(web_config.path).test_client().post("/subscribe", data={"email": "patient@example.org"})
    assert answer.status_code == 200 and "Check your inbox" in answer.text
    assert confirmations(web_config) == [("patient@example.org", "deferred", 1)]
    assert smtp_server.sink.received == []

    web_config.path.write_text(web_config.path.read_text(encoding="utf-8").replace(
        f"port = {down}", f"port = {smtp_server.port}"), encoding="utf-8")
    report = mailer.send(load(web_config.path), sleep=no_sleep)
    assert report.confirmations == (1, 0) and "1 sign-up confirmation sent" in mailer.describe(report)
    path = confirmation_link(smtp_server, "patient@example.org")
    client = create_app(web_config.path).test_client()
    assert client.post(path).status_code == 200
    assert status(web_config, "patient@example.org") == "active"
    # Sent once: a later send has no confirmation left to send.
    assert mailer.send(load(web_config.path), sleep=no_sleep).confirmations == (0, 0)
    assert len(smtp_server.sink.by_recipient()["patient@example.org"]) == 2  # the confirmation, then the digest


@BOTH_BACKENDS
def test_a_confirmation_left_pending_by_a_killed_run_is_sent_again_with_its_message_id(client, web_config, smtp_server):
    client.post("/subscribe", data={"email": "twice@example.org"})
    first = smtp_server.sink.by_recipient()["twice@example.org"][0].message
    with Store.open(web_config.state) as store, store.transaction() as db:
        # As if killed during the hand-over, long enough ago not to be in flight still.
        db.execute("UPDATE confirmations SET state = 'pending', updated = ?", ((NOW - timedelta(hours=1)).isoformat(),))
    assert mailer.send(web_config, sleep=no_sleep).confirmations == (1, 0)
    again = smtp_server.sink.by_recipient()["twice@example.org"][1].message
    assert again["Message-ID"] == first["Message-ID"] and again.get_content() == first.get_content()


@BOTH_BACKENDS
def test_no_confirmation_goes_out_for_an_expired_or_replaced_sign_up(client, web_config, smtp_server):
    smtp_server.sink.refuse["late@example.org"] = "451 4.3.0 Try again later"
    client.post("/subscribe", data={"email": "late@example.org"})
    assert confirmations(web_config) == [("late@example.org", "deferred", 1)]
    with Store.open(web_config.state) as store, store.transaction() as db:
        db.execute("UPDATE subscribers SET requested = ?", ((NOW - timedelta(days=30)).isoformat(),))
        db.execute("UPDATE confirmations SET requested = ?", ((NOW - timedelta(days=30)).isoformat(),))
    del smtp_server.sink.refuse["late@example.org"]
    assert mailer.send(web_config, sleep=no_sleep).confirmations == (0, 0)
    assert confirmations(web_config) == [("late@example.org", "dropped", 1)]
    assert "late@example.org" not in smtp_server.sink.by_recipient()


@BOTH_BACKENDS
def test_a_confirmation_another_process_is_handing_over_is_not_sent_twice(client, web_config, smtp_server):
    smtp_server.sink.refuse["busy@example.org"] = "451 4.3.0 Try again later"
    client.post("/subscribe", data={"email": "busy@example.org"})
    del smtp_server.sink.refuse["busy@example.org"]
    with Store.open(web_config.state) as store, store.transaction() as db:
        # The web service marked it pending a moment ago and is talking to the server.
        db.execute("UPDATE confirmations SET state = 'pending', updated = ?", (datetime.now(UTC).isoformat(),))
    assert mailer.send(web_config, sleep=no_sleep).confirmations == (0, 0)
    assert "busy@example.org" not in smtp_server.sink.by_recipient()


def preferences_path(smtp_server, address: str) -> str:
    """The path of the preferences link in the text of `address`'s message."""
    text = smtp_server.sink.by_recipient()[address][-1].message.get_body(("plain",)).get_content()
    return re.search(r"Choose what you get: https://digest\.example\.org(/preferences/\S+)", text).group(1)


def slice_of(config: Config, address: str) -> Slice:
    with Store.open(config.state) as store:
        return subscribers.get(store, address).slice


@BOTH_BACKENDS
def test_the_preferences_page_from_a_message_sets_the_subscribers_slice(client, web_config, smtp_server):
    mailer.send(web_config, sleep=no_sleep)
    path = preferences_path(smtp_server, "grace@example.org")
    html = smtp_server.sink.by_recipient()["grace@example.org"][0].message.get_body(("html",)).get_content()
    assert f'href="https://digest.example.org{path}"' in html and "preferences.invalid" not in html

    page = client.get(path)
    assert page.status_code == 200 and "What grace@example.org gets of each digest: everything." in page.text
    for field in ('name="min_stability" value="stable"', 'name="project" value="Lumen"',
                  'name="project" value="Tern"', 'name="section" value="Storage"'):
        assert field in page.text, field
    assert slice_of(web_config, "grace@example.org") == Slice()

    saved = client.post(path, data={"min_stability": "stable", "project": ["Tern"], "section": []})
    assert saved.status_code == 200 and "Set-Cookie" not in saved.headers
    assert "Saved: from the next digest on, grace@example.org gets stable features only; projects: Tern." \
        in saved.text
    assert slice_of(web_config, "grace@example.org") == Slice("stable", frozenset({"Tern"}))
    again = client.get(path).text
    assert 'value="stable" checked' in again and 'value="Tern" checked' in again
    assert 'value="Lumen" checked' not in again
    assert slice_of(web_config, "ada@example.org") == Slice()  # nobody else's changed
    client.post(unsubscribe_path(smtp_server, "grace@example.org"), data=ONE_CLICK)
    assert "This address is unsubscribed: no digest goes to it now." in client.get(path).text


@BOTH_BACKENDS
def test_the_preferences_form_takes_back_every_name_it_can_hold(client, web_config, smtp_server):
    """The most names the form accepts, each as long as it accepts, fit in a body the service
    reads; and the page, which lists what a subscriber chose, lists no more than that."""
    mailer.send(web_config, sleep=no_sleep)
    path = preferences_path(smtp_server, "grace@example.org")
    # Characters of four bytes each, percent-encoded: the largest body those names can make.
    names = [f"{n:03d}" + "𝔸" * (preferences.MAX_NAME - 3) for n in range(preferences.MAX_NAMES)]
    saved = client.post(path, data={"min_stability": "beta", "project": names, "section": names})
    assert saved.status_code == 200, saved.text
    assert slice_of(web_config, "grace@example.org").projects == frozenset(names)
    page = client.get(path).text
    assert page.count('name="project"') == preferences.MAX_NAMES  # chosen ones stay, Lumen and Tern have no room


@BOTH_BACKENDS
def test_a_forged_or_foreign_preferences_link_is_refused_in_one_line(client, web_config, smtp_server):
    mailer.send(web_config, sleep=no_sleep)
    path = preferences_path(smtp_server, "grace@example.org")
    token = path.rsplit("/", 1)[1]
    grace = int(token.split(".")[0])
    # Altered; signed with the right key for another purpose; signed with another key.
    for bad in (token[:-1] + ("A" if token[-1] != "A" else "B"),
                tokens.Signer([KEY.encode()]).sign("unsubscribe", grace, "grace@example.org"),
                tokens.Signer([b"x" * 40]).sign("preferences", grace, "grace@example.org")):
        answer = client.post(f"/preferences/{bad}", data={"min_stability": "stable"})
        assert answer.status_code == 404
        assert "<p class=\"intro\">This link is not one of ours, or it was changed on the way.</p>" in answer.text
    bad_form = client.post(path, data={"min_stability": "gamma"})
    assert bad_form.status_code == 400 and "min_stability is stable, beta, or empty for everything." in bad_form.text
    assert client.post(path, data={"project": ["x" * 300]}).status_code == 400
    assert slice_of(web_config, "grace@example.org") == Slice()


@BOTH_BACKENDS
def test_the_archives_copies_link_their_preferences_to_the_site_not_to_a_slot(web_config):
    folder = web_config.archive_dir / "digests"
    copies = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.*"))]
    assert len(copies) == 3  # .html, .txt, .eml
    assert not any(".invalid" in copy for copy in copies)
    (text,) = folder.glob("*.txt")
    assert "Choose what you get: https://digest.example.org/\n" in text.read_text(encoding="utf-8")
