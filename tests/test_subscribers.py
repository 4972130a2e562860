"""Subscribers in the state database: suppression before every message, signed links,
bounces, and the [web] config that turns the links to the service."""

from datetime import timedelta

import pytest
from click.testing import CliRunner
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section

from newsletter import pipeline
from newsletter.cli import cli
from newsletter.config import Config, load
from newsletter.errors import ConfigError, WebError
from newsletter.mail import send as mailer
from newsletter.mail import tokens
from newsletter.state import subscribers
from newsletter.state.store import Store

ADDRESSES = ["ada@example.org", "grace@example.org", "linus@example.org"]
KEY = "k" * 40
OLD_KEY = "o" * 40
WEB = '[web]\nsecret_env = "TEST_NEWSLETTER_SECRET"\nprevious_secret_envs = ["TEST_NEWSLETTER_OLD_SECRET"]\n'


def no_sleep(_seconds: float) -> None:
    pass


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    monkeypatch.setenv("TEST_NEWSLETTER_SECRET", KEY)
    monkeypatch.setenv("TEST_NEWSLETTER_OLD_SECRET", OLD_KEY)


def configured(config: Config, text: str) -> Config:
    config.path.write_text(config.path.read_text(encoding="utf-8") + text, encoding="utf-8")
    return load(config.path)


@pytest.fixture
def file_config(config: Config, smtp_server) -> Config:
    """Subscribers in a file the operator keeps, mail on the test server, a digest built."""
    (config.path.parent / "subscribers.txt").write_text("\n".join(ADDRESSES) + "\n", encoding="utf-8")
    section = email_section(smtp_server.port, []).replace("subscribers = []", 'subscribers_file = "subscribers.txt"')
    config = configured(config, section)
    pipeline.build(config, now=NOW)
    return config


def leave(config: Config, address: str, status: subscribers.SubscriberStatus = "unsubscribed") -> None:
    with Store.open(config.state) as store:
        row = subscribers.get(store, address)
        assert row is not None
        assert subscribers.set_status(store, row.id, status, "test", NOW)


@BOTH_BACKENDS
def test_an_unsubscribed_address_from_the_operators_file_is_never_mailed_again(file_config, smtp_server):
    mailer.send(file_config, sleep=no_sleep)
    leave(file_config, "grace@example.org")
    with Store.open(file_config.state) as store:
        subscribers.add(store, "new@example.org", "test", NOW)
    pipeline.build(file_config, now=NOW + timedelta(days=1), since=NOW - timedelta(days=1))

    mailer.send(file_config, sleep=no_sleep)

    second = [item.recipient for item in smtp_server.sink.received[len(ADDRESSES):]]
    assert second == ["ada@example.org", "linus@example.org", "new@example.org"]
    assert (file_config.path.parent / "subscribers.txt").read_text(encoding="utf-8").split() == ADDRESSES


@BOTH_BACKENDS
def test_re_listing_or_adding_never_resubscribes(file_config):
    mailer.send(file_config, sleep=no_sleep)
    leave(file_config, "grace@example.org")
    leave(file_config, "linus@example.org", "complained")
    with Store.open(file_config.state) as store:
        subscribers.ensure_listed(store, ADDRESSES, NOW)
        assert subscribers.import_addresses(store, ADDRESSES, "import", NOW) == []
        (grace, changed) = subscribers.add(store, "Grace@Example.org", "operator", NOW)
        assert (grace.status, changed) == ("unsubscribed", False)
        assert subscribers.get(store, "linus@example.org").status == "complained"
        assert list(subscribers.recipients(store, ADDRESSES)) == ["ada@example.org"]
        assert len(subscribers.every(store)) == len(ADDRESSES)  # nothing deleted


@BOTH_BACKENDS
def test_a_sign_up_mails_a_confirmation_unless_one_went_out_a_moment_ago_or_the_address_joined(file_config):
    with Store.open(file_config.state) as store:
        subscribers.ensure_listed(store, ADDRESSES, NOW)
        subscribers.add(store, "joined@example.org", "operator", NOW)
        assert subscribers.request_sign_up(store, "joined@example.org", NOW, "<c@example.org>") is None
        # Active only through the config, which may stop listing it: asked to confirm.
        assert subscribers.request_sign_up(store, "ada@example.org", NOW, "<c@example.org>").requested == NOW
        assert subscribers.request_sign_up(store, "ada@example.org", NOW + timedelta(minutes=1), "<c@example.org>") is None
        again = subscribers.request_sign_up(store, "ada@example.org", NOW + timedelta(minutes=10), "<c@example.org>")
        assert (again.status, again.requested) == ("active", NOW + timedelta(minutes=10))
        new = subscribers.request_sign_up(store, "new@example.org", NOW, "<c@example.org>")
        assert (new.status, new.origin) == ("unconfirmed", "sign-up")
        assert subscribers.confirm(store, new, NOW) and not subscribers.confirm(store, new, NOW)


@BOTH_BACKENDS
def test_an_unsubscribe_during_a_mailing_stops_the_messages_not_yet_sent(file_config, smtp_server):
    smtp_server.sink.on_data = lambda count: count == 1 and leave(file_config, "linus@example.org")
    report = mailer.send(file_config, sleep=no_sleep)
    assert [item.recipient for item in smtp_server.sink.received] == ["ada@example.org", "grace@example.org"]
    assert report.mailings[0].dropped == ("linus@example.org",)
    assert "1 left the list meanwhile" in mailer.describe(report)


@BOTH_BACKENDS
def test_permanent_refusals_in_a_row_mark_an_address_bounced(file_config, smtp_server):
    config = configured(file_config, "bounce_limit = 2\n")
    smtp_server.sink.refuse["grace@example.org"] = "550 5.1.1 No such user"
    reports = []
    for day in range(3):
        pipeline.build(config, now=NOW + timedelta(days=day), since=NOW - timedelta(days=1))
        reports.append(mailer.send(config, sleep=no_sleep))

    # The first send mails the fixture's digest and the first one built here.
    mailings = [mailing for report in reports for mailing in report.mailings]
    assert [m.failed for m in mailings] == [(("grace@example.org", "550 5.1.1 No such user"),)] * 2 + [(), ()]
    assert [m.bounced for m in mailings] == [(), ("grace@example.org",), (), ()]
    assert "1 now marked bounced" in mailer.describe(reports[0])
    with Store.open(config.state) as store:
        grace = subscribers.get(store, "grace@example.org")
        assert (grace.status, grace.how) == ("bounced", "2 refusals in a row, the last: 550 5.1.1 No such user")
        # A delivery in between resets the count.
        for state in ("failed", "sent", "failed"):
            store.db.execute("UPDATE outbox SET state = 'pending', claimed_by = 'me'"
                             " WHERE digest_id = 1 AND recipient = 'ada@example.org'")
            assert subscribers.record_delivery(store, 1, "ada@example.org", state, "550", 2, NOW, "me") == "recorded"
        assert subscribers.get(store, "ada@example.org").bounces == 1


# -- signed links -----------------------------------------------------------------


def test_a_token_verifies_only_for_its_purpose_subscriber_address_and_key():
    signer = tokens.Signer([KEY.encode()])
    token = signer.sign("unsubscribe", 7, "ada@example.org")
    assert signer.verify("unsubscribe", token, 7, "ada@example.org")
    assert not signer.verify("confirm", token, 7, "ada@example.org")
    assert not signer.verify("unsubscribe", token, 7, "eve@example.org")
    assert not signer.verify("unsubscribe", token.replace("7.", "8.", 1), 8, "ada@example.org")
    assert not signer.verify("unsubscribe", token[:-1] + ("A" if token[-1] != "A" else "B"), 7, "ada@example.org")
    assert not tokens.Signer([OLD_KEY.encode()]).verify("unsubscribe", token, 7, "ada@example.org")
    # After a rotation the old key still verifies what it signed.
    assert tokens.Signer([OLD_KEY.encode(), KEY.encode()]).verify("unsubscribe", token, 7, "ada@example.org")
    assert tokens.subscriber_id_of("7.../") is None and tokens.subscriber_id_of(token) == 7


@BOTH_BACKENDS
def test_a_missing_or_short_key_is_one_line_naming_the_key_not_the_variable(config, monkeypatch, smtp_server):
    config = configured(config, email_section(smtp_server.port, ADDRESSES) + WEB)
    monkeypatch.delenv("TEST_NEWSLETTER_SECRET")
    with pytest.raises(WebError) as caught:
        tokens.signer(config.web)
    assert str(caught.value) == ("the environment variable that web.secret_env names, which holds a signing key,"
                                 " is not set")
    monkeypatch.setenv("TEST_NEWSLETTER_SECRET", "short")
    with pytest.raises(WebError, match="web.secret_env names is shorter than 32 characters"):
        tokens.signer(config.web)


@BOTH_BACKENDS
def test_with_web_every_message_carries_its_own_signed_link_to_the_service(config, smtp_server):
    section = email_section(smtp_server.port, ADDRESSES).replace(
        'unsubscribe_url = "https://digest.example.org/unsubscribe"\n', "")
    config = configured(config, section + WEB)
    pipeline.build(config, now=NOW)
    mailer.send(config, sleep=no_sleep)

    signer = tokens.signer(config.web)
    with Store.open(config.state) as store:
        grace = subscribers.get(store, "grace@example.org")
    message = smtp_server.sink.by_recipient()["grace@example.org"][0].message
    own = tokens.link(config, "unsubscribe", signer.sign("unsubscribe", grace.id, "grace@example.org"))
    assert own.startswith("https://digest.example.org/unsubscribe/")
    header = " ".join(message["List-Unsubscribe"].split())
    assert header == f"<mailto:unsubscribe@example.org?subject=unsubscribe>, <{own}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    text, html = (part.get_content() for part in message.iter_parts())
    assert f"Unsubscribe: {own}" in text and f'href="{own}"' in html
    assert "grace" not in own


@pytest.mark.parametrize("text, problem", [
    ('[web]\nsecret_env = "a secret value"\n', "web.secret_env: must be the NAME of an environment variable"),
    ("[web]\n", "web.secret_env: is required"),
    ('[web]\nsecret_env = "S"\nconfirm_days = 0\n', "web.confirm_days: must be an integer of at least 1"),
    ('[web]\nsecret_env = "S"\nprevious_secret_envs = "OLD"\n', "web.previous_secret_envs: must be a list"),
    ('[web]\nsecret_env = "S"\n', "web: needs an \\[email\\] section"),
])
@BOTH_BACKENDS
def test_web_config_mistakes_are_named(config, text, problem):
    with pytest.raises(ConfigError, match=problem):
        configured(config, text)


@BOTH_BACKENDS
def test_with_web_the_site_must_be_https_except_on_this_machine(config, smtp_server):
    plain = config.path.read_text(encoding="utf-8").replace("https://digest.example.org/", "http://digest.example.org/")
    config.path.write_text(plain, encoding="utf-8")
    with pytest.raises(ConfigError, match="site.url: must be an https URL when \\[web\\] is set"):
        configured(config, email_section(smtp_server.port, ADDRESSES) + WEB)
    config.path.write_text(plain.replace("http://digest.example.org/", "http://127.0.0.1:8080/"), encoding="utf-8")
    assert configured(config, email_section(smtp_server.port, ADDRESSES) + WEB).web is not None


# -- newsletter subscribers -------------------------------------------------------


def subscribers_command(config: Config, *args: str):
    return CliRunner().invoke(cli, ["--config", str(config.path), "subscribers", *args])


@BOTH_BACKENDS
def test_the_subscribers_command_lists_adds_removes_imports_and_exports(file_config, tmp_path):
    added = subscribers_command(file_config, "add", "New@Example.org")
    assert added.exit_code == 0 and "new@example.org: active, without confirmation" in added.output
    assert subscribers_command(file_config, "remove", "grace@example.org").exit_code == 0
    listing = subscribers_command(file_config).output.splitlines()
    assert listing[0] == "address\tstatus\tsince\tslice"
    assert [line.split("\t")[:2] for line in listing[1:]] == [
        ["ada@example.org", "active"], ["grace@example.org", "unsubscribed"],
        ["linus@example.org", "active"], ["new@example.org", "active"]]

    (tmp_path / "more.txt").write_text("# more\nGrace@example.org\nzoe@example.org  # a friend\nada@example.org\n",
                                       encoding="utf-8")
    imported = subscribers_command(file_config, "import", str(tmp_path / "more.txt"))
    assert "1 added without confirmation, 1 subscribed already, 1 known and kept as they stand" in imported.output
    assert subscribers_command(file_config, "export").output.split() == [
        "ada@example.org", "linus@example.org", "new@example.org", "zoe@example.org"]

    (file_config.path.parent / "subscribers.txt").write_text("ada@example.org\n", encoding="utf-8")
    assert "linus@example.org\tunlisted\t" in subscribers_command(file_config).output
    assert "linus@example.org" not in subscribers_command(file_config, "export").output


@BOTH_BACKENDS
def test_the_operator_cannot_resubscribe_someone_who_left(file_config):
    subscribers_command(file_config, "remove", "grace@example.org")
    result = subscribers_command(file_config, "add", "grace@example.org")
    assert result.exit_code == 1
    assert result.output.startswith("error: grace@example.org unsubscribed on ")
    assert "only they can subscribe again" in result.output
    assert subscribers_command(file_config, "add", "not-an-address").output == (
        "error: 'not-an-address' is not an email address\n")
