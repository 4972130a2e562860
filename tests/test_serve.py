"""`newsletter serve` as a real process on 127.0.0.1, driven over HTTP (requests) and by a
real browser (Playwright with the system Chromium), with a real SMTP server for the mails."""

import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from helpers import NOW, REPO
from helpers.browser import ARTIFACTS, CHROMIUM, LAUNCH_ARGS
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section, free_port

from newsletter import pipeline
from newsletter.config import Config, load
from newsletter.mail import send as mailer
from newsletter.mail import tokens
from newsletter.state import subscribers
from newsletter.state.store import Store

pytestmark = pytest.mark.slow

KEY = "s" * 40
ONE_CLICK = {"List-Unsubscribe": "One-Click"}
ADDRESSES = ["ada@example.org", "grace@example.org", "linus@example.org"]


def no_sleep(_seconds: float) -> None:
    pass


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO), "TEST_NEWSLETTER_SECRET": KEY, **extra}


def serve_config(config: Config, smtp_port: int, port: int, addresses: list[str]) -> Config:
    """The test config answering at http://127.0.0.1:`port`/, links to the service, a digest built."""
    text = config.path.read_text(encoding="utf-8").replace("https://digest.example.org/", f"http://127.0.0.1:{port}/")
    section = email_section(smtp_port, addresses).replace(
        'unsubscribe_url = "https://digest.example.org/unsubscribe"\n', "")
    config.path.write_text(text + section + '[web]\nsecret_env = "TEST_NEWSLETTER_SECRET"\n', encoding="utf-8")
    config = load(config.path)
    pipeline.build(config, now=NOW)
    return config


def start(config: Config, port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "newsletter", "--config", str(config.path), "serve", "--port", str(port)],
        env=environment(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            requests.get(f"http://127.0.0.1:{port}/", timeout=1)
            return process
        except requests.ConnectionError:
            assert process.poll() is None, "newsletter serve exited"
            time.sleep(0.1)
    process.kill()
    raise AssertionError("newsletter serve did not answer within 30 s")


@pytest.fixture
def service(config, smtp_server, monkeypatch):
    """(config, base URL) of a running `newsletter serve`."""
    monkeypatch.setenv("TEST_NEWSLETTER_SECRET", KEY)
    port = free_port()
    config = serve_config(config, smtp_server.port, port, ADDRESSES)
    process = start(config, port)
    try:
        yield config, f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def link_in(smtp_server, address: str, pattern: str) -> str:
    message = smtp_server.sink.by_recipient()[address][-1].message
    text = message.get_body(("plain",)).get_content().replace("\r\n", "\n")
    match = re.search(pattern, " ".join(message.get("List-Unsubscribe", "").split()) + "\n" + text)
    assert match, text
    return match.group(1)


def status(config: Config, address: str) -> str | None:
    with Store.open(config.state) as store:
        row = subscribers.get(store, address)
    return row.status if row else None


@BOTH_BACKENDS
def test_sign_up_confirm_mail_unsubscribe_over_real_http(service, smtp_server):
    config, base = service
    answer = requests.post(f"{base}/subscribe", data={"email": "reader@example.org"}, timeout=10)
    assert answer.status_code == 200 and "Check your inbox" in answer.text
    confirm = link_in(smtp_server, "reader@example.org", r"(?m)^(http://127\.0\.0\.1:\d+/confirm/\S+)$")
    assert requests.get(confirm, timeout=10).status_code == 200
    assert status(config, "reader@example.org") == "unconfirmed"  # a GET confirms nothing
    assert requests.post(confirm, timeout=10).status_code == 200
    assert requests.post(confirm, timeout=10).status_code == 410  # replayed

    mailer.send(config, sleep=no_sleep)
    assert "reader@example.org" in smtp_server.sink.by_recipient()

    unsubscribe = link_in(smtp_server, "grace@example.org", r"<(http://[^>]+/unsubscribe/[^>]+)>")
    assert requests.get(unsubscribe, timeout=10).status_code == 200
    assert status(config, "grace@example.org") == "active"  # a GET changes nothing
    answer = requests.post(unsubscribe, data=ONE_CLICK, allow_redirects=False, timeout=10)
    assert answer.status_code == 200 and not answer.cookies and "Location" not in answer.headers
    assert requests.post(unsubscribe, data=ONE_CLICK, timeout=10).status_code == 200

    pipeline.build(config, now=NOW.replace(day=3), since=NOW.replace(day=1))
    before = len(smtp_server.sink.received)
    mailer.send(config, sleep=no_sleep)
    assert sorted(r.recipient for r in smtp_server.sink.received[before:]) == [
        "ada@example.org", "linus@example.org", "reader@example.org"]


@BOTH_BACKENDS
def test_hostile_requests_get_a_clear_4xx_and_change_nothing(service, smtp_server):
    config, base = service
    mailer.send(config, sleep=no_sleep)
    unsubscribe = link_in(smtp_server, "ada@example.org", r"<(http://[^>]+/unsubscribe/[^>]+)>")
    token = unsubscribe.rsplit("/", 1)[1]
    with Store.open(config.state) as store:
        ada = subscribers.get(store, "ada@example.org")
    wrong_key = tokens.Signer([b"w" * 40]).sign("unsubscribe", ada.id, ada.address)
    for bad in (token[:-2] + "xx", wrong_key, token.replace(f"{ada.id}.", f"{ada.id + 1}.")):
        answer = requests.post(f"{base}/unsubscribe/{bad}", data=ONE_CLICK, timeout=10)
        assert 400 <= answer.status_code < 500 and "not one of ours" in answer.text
    for text in ("a@example.org\r\nBcc: b@example.org", "a" * 10_000 + "@example.org"):
        answer = requests.post(f"{base}/subscribe", data={"email": text}, timeout=10)
        assert answer.status_code == 400 and "address" in answer.text
    assert {status(config, a) for a in ADDRESSES} == {"active"}
    assert len(smtp_server.sink.received) == len(ADDRESSES)


def test_serve_without_the_key_in_the_environment_exits_with_one_line(config, smtp_server):
    config = serve_config(config, smtp_server.port, 8080, ADDRESSES)
    environ = environment()
    del environ["TEST_NEWSLETTER_SECRET"]
    result = subprocess.run([sys.executable, "-m", "newsletter", "--config", str(config.path), "serve"],
                            env=environ, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr == ("error: the environment variable that web.secret_env names, which holds a signing key,"
                             " is not set\n")


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed (Debian package chromium)")
def test_the_sign_up_form_and_the_confirmation_page_in_a_browser(service, smtp_server):
    sync_api = pytest.importorskip("playwright.sync_api")
    config, base = service
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 375, "height": 800})
        page.goto(f"{base}/")
        page.fill("#email", "browser@example.org")
        page.screenshot(path=str(ARTIFACTS / "signup-375.png"), full_page=True)
        page.click("form.signup button")
        page.wait_for_selector("h1:has-text('Check your inbox')")

        confirm = link_in(smtp_server, "browser@example.org", r"(?m)^(http://\S+/confirm/\S+)$")
        page.goto(confirm)
        assert status(config, "browser@example.org") == "unconfirmed"
        page.screenshot(path=str(ARTIFACTS / "confirm-375.png"), full_page=True)
        page.click("button:has-text('Confirm')")
        page.wait_for_selector("h1:has-text('Subscribed')")
        browser.close()
    assert status(config, "browser@example.org") == "active"


@BOTH_BACKENDS
def test_two_hundred_one_click_posts_during_a_send(config, smtp_server, monkeypatch):
    """Every unsubscribe is honoured, no message reaches an address after its POST
    returned, the others get theirs, and the server answers no 5xx."""
    monkeypatch.setenv("TEST_NEWSLETTER_SECRET", KEY)
    everyone = [f"reader{n:03}@example.org" for n in range(220)]
    leaving = everyone[10:210]
    port = free_port()
    config = serve_config(config, smtp_server.port, port, everyone)
    signer = tokens.signer(config.web)
    with Store.open(config.state) as store:
        subscribers.ensure_listed(store, everyone, NOW)
        links = {a: tokens.link(config, "unsubscribe", signer.sign("unsubscribe", subscribers.get(store, a).id, a))
                 for a in leaving}

    arrived: dict[str, float] = {}
    sink = smtp_server.sink
    returned = 0
    counting = threading.Lock()
    half_returned = threading.Event()

    def slowly(count: int) -> None:
        arrived[sink.received[count - 1].recipient] = time.monotonic()
        if count == 20:
            # Hold the send until half the unsubscribes are in, so the other half race the
            # send however fast or slow this machine is.
            half_returned.wait(timeout=60)
        time.sleep(0.01)

    sink.on_data = slowly
    process = start(config, port)
    try:
        sending = threading.Thread(target=mailer.send, args=(config,), kwargs={"sleep": no_sleep})
        sending.start()
        while len(sink.received) < 15:  # readers 10 to 14 are mailed before they leave
            time.sleep(0.01)

        def unsubscribe(address: str) -> tuple[str, int, float]:
            nonlocal returned
            answer = requests.post(links[address], data=ONE_CLICK, timeout=60)
            with counting:
                returned += 1
                if returned == len(leaving) // 2:
                    half_returned.set()
            return address, answer.status_code, time.monotonic()

        with ThreadPoolExecutor(max_workers=40) as pool:
            answers = list(pool.map(unsubscribe, leaving))
        sending.join(timeout=120)
    finally:
        process.terminate()
        process.wait(timeout=10)

    assert {code for _, code, _ in answers} == {200}
    assert {status(config, a) for a in leaving} == {"unsubscribed"}
    late = [a for a, _, returned in answers if a in arrived and arrived[a] > returned]
    assert late == []
    assert set(everyone) - set(leaving) <= set(arrived)
    assert 0 < len(set(leaving) & set(arrived)) < len(leaving)  # the race did happen


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="Chromium is not installed (Debian package chromium)")
def test_the_preferences_page_round_trip_in_a_browser_on_a_phone_in_light_and_dark(service, smtp_server):
    sync_api = pytest.importorskip("playwright.sync_api")
    config, base = service
    mailer.send(config, sleep=no_sleep)
    link = link_in(smtp_server, "ada@example.org", r"(?m)^Choose what you get: (http://\S+/preferences/\S+)$")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        for scheme, background in (("light", "rgb(246, 248, 250)"), ("dark", "rgb(13, 17, 23)")):
            page = browser.new_page(viewport={"width": 375, "height": 800}, color_scheme=scheme,
                                    java_script_enabled=False)
            page.goto(link)
            page.screenshot(path=str(ARTIFACTS / f"preferences-375-{scheme}.png"), full_page=True)
            assert page.evaluate("getComputedStyle(document.body).backgroundColor") == background
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.close()
        page = browser.new_page(viewport={"width": 375, "height": 800}, java_script_enabled=False)
        page.goto(link)
        page.check("input[name=min_stability][value=beta]")
        page.check("input[name=project][value=Tern]")
        page.click("button:has-text('Save')")
        page.wait_for_selector("text=Saved: from the next digest on")
        assert page.is_checked("input[name=project][value=Tern]")
        browser.close()
    with Store.open(config.state) as store:
        chosen = subscribers.get(store, "ada@example.org").slice
    assert (chosen.min_stability, chosen.projects, chosen.sections) == ("beta", frozenset({"Tern"}), frozenset())
