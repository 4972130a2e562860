import re
import shutil
import ssl
import subprocess
from dataclasses import replace
from datetime import timedelta
from email.headerregistry import Address
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import SMTP, default
from email.utils import format_datetime
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult
from helpers import NOW, run_cli, start_cli, write_config
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import SmtpServer, SmtpSink, email_section, free_port
from helpers.slices import STABLE_ONLY, bodies, give_slices

from newsletter import pipeline
from newsletter.config import Config, load
from newsletter.errors import ConfigError, MailError
from newsletter.mail import send as mailer
from newsletter.mail.smtp import RETRY_DELAYS
from newsletter.models import Digest
from newsletter.publish.digest import render_digest
from newsletter.state.entry_index import EntryIndex
from newsletter.state.store import Store

SUBSCRIBERS = [
    "ada@example.org",
    "Grace Hopper <grace@example.org>",
    "Zoë Ünïcode-Łukasz <zoe@example.org>",
    "linus@example.org",
]
ADDRESSES = ["ada@example.org", "grace@example.org", "zoe@example.org", "linus@example.org"]


def with_sections(config: Config, text: str) -> Config:
    """The test config with more TOML appended, loaded again."""
    config.path.write_text(config.path.read_text(encoding="utf-8") + text, encoding="utf-8")
    return load(config.path)


@pytest.fixture
def mail_config(config: Config, smtp_server) -> Config:
    """Four subscribers on the test SMTP server, and one digest built."""
    config = with_sections(config, email_section(smtp_server.port, SUBSCRIBERS))
    pipeline.build(config, now=NOW)
    return config


def outbox_states(config: Config) -> dict[str, str]:
    store = Store.open(config.state)
    try:
        (head,) = [h for h in store.digests_to_mail()]
        return {recipient: row.state for recipient, row in store.outbox(head.id).items()}
    finally:
        store.close()


def no_sleep(_seconds: float) -> None:
    pass


@BOTH_BACKENDS
def test_every_subscriber_gets_exactly_one_message_with_the_list_headers(mail_config, smtp_server):
    report = mailer.send(mail_config, sleep=no_sleep)

    received = smtp_server.sink.by_recipient()
    assert sorted(received) == sorted(ADDRESSES)
    assert all(len(copies) == 1 for copies in received.values())
    # A session for each of the connections a mailing may use, not one for each message.
    assert len({item.peer for item in smtp_server.sink.received}) <= mail_config.email.connections
    assert [m.sent for m in report.mailings] == [tuple(ADDRESSES)]

    message = received["grace@example.org"][0].message
    assert message["To"] == "Grace Hopper <grace@example.org>"
    assert message["From"] == "Test digest <digest@example.org>"
    assert message["Subject"].startswith("Test digest: ")
    assert message["Date"].datetime == NOW
    assert message["Message-ID"].endswith("@example.org>")
    assert message["List-Unsubscribe"] == (
        "<mailto:unsubscribe@example.org?subject=unsubscribe>,"
        " <https://digest.example.org/unsubscribe?address=grace@example.org>")
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.get_content_type() == "multipart/alternative"
    assert [part.get_content_type() for part in message.iter_parts()] == ["text/plain", "text/html"]
    text, html = (part.get_content().replace("\r\n", "\n") for part in message.iter_parts())
    own = "https://digest.example.org/unsubscribe?address=grace@example.org"
    assert f"Unsubscribe: {own}" in text and f'href="{own}"' in html
    assert "unsubscribe.invalid" not in text + html
    # The digest as archived, but for the subscriber's own unsubscribe link.
    archived = (mail_config.archive_dir / "digests" / "2026-11-02-1.txt").read_text(encoding="utf-8")
    assert text.replace(own, "") == archived.replace("Unsubscribe: https://digest.example.org/", "Unsubscribe: ")
    assert set(outbox_states(mail_config).values()) == {"sent"}


@BOTH_BACKENDS
def test_a_second_send_mails_nobody_again(mail_config, smtp_server):
    mailer.send(mail_config, sleep=no_sleep)
    report = mailer.send(mail_config, sleep=no_sleep)
    assert len(smtp_server.sink.received) == len(ADDRESSES)
    assert mailer.describe(report) == "digest 2026-11-02-1 already mailed to every subscriber"


@BOTH_BACKENDS
def test_a_new_subscriber_gets_the_newest_digest_and_nobody_else_does(mail_config, smtp_server):
    mailer.send(mail_config, sleep=no_sleep)
    newcomer = Address(addr_spec="new@example.org")
    email = replace(mail_config.email, subscribers=(*mail_config.email.subscribers, newcomer))
    mailer.send(replace(mail_config, email=email), sleep=no_sleep)
    assert [item.recipient for item in smtp_server.sink.received] == [*ADDRESSES, "new@example.org"]


@BOTH_BACKENDS
def test_message_ids_are_the_same_in_every_run_and_differ_per_recipient(mail_config, tmp_path: Path):
    first = mailer.write_dry_run(mail_config, tmp_path / "one")
    second = mailer.write_dry_run(mail_config, tmp_path / "two")
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]
    ids = {p.read_bytes().split(b"Message-ID: ")[1].split(b"\r\n")[0] for p in first}
    assert len(ids) == len(ADDRESSES)


@BOTH_BACKENDS
def test_a_dry_run_inside_the_published_archive_is_refused(mail_config):
    with pytest.raises(MailError, match="inside archive.dir, which is published"):
        mailer.write_dry_run(mail_config, mail_config.archive_dir / "preview")


@BOTH_BACKENDS
def test_dry_run_files_of_addresses_that_differ_only_in_quoting_do_not_collide(config, tmp_path: Path):
    config = with_sections(config, email_section(2525, ['"a b"@example.org', "a_b@example.org"]))
    pipeline.build(config, now=NOW)
    written = mailer.write_dry_run(config, tmp_path / "preview")
    assert len({path.name for path in written}) == 2
    assert "a_b@example.org.eml" in {path.name for path in written}


@BOTH_BACKENDS
def test_a_dry_run_writes_eml_files_and_records_nothing(mail_config, smtp_server, tmp_path: Path):
    written = mailer.write_dry_run(mail_config, tmp_path / "preview")
    assert sorted(p.name for p in written) == sorted(f"{a}.eml" for a in ADDRESSES)
    assert all(p.parent == tmp_path / "preview" / "2026-11-02-1" for p in written)
    assert smtp_server.sink.received == []
    store = Store.open(mail_config.state)
    assert store.db.execute("SELECT count(*) FROM outbox").fetchone() == (0,)
    store.close()
    mailer.send(mail_config, sleep=no_sleep)
    assert len(smtp_server.sink.received) == len(ADDRESSES)


@BOTH_BACKENDS
def test_a_temporary_refusal_is_retried_after_a_pause(mail_config, smtp_server):
    smtp_server.sink.data_answers = ["451 4.3.0 Try again later"]
    pauses = []
    report = mailer.send(mail_config, sleep=pauses.append)
    assert pauses == [RETRY_DELAYS[0]]
    assert sorted(smtp_server.sink.by_recipient()) == sorted(ADDRESSES)
    assert len(smtp_server.sink.received) == len(ADDRESSES)
    assert report.mailings[0].deferred == ()


@BOTH_BACKENDS
def test_a_server_that_keeps_answering_4xx_leaves_the_message_for_the_next_send(mail_config, smtp_server):
    smtp_server.sink.data_answers = ["451 4.3.0 Try again later"] * (1 + len(RETRY_DELAYS))
    report = mailer.send(mail_config, sleep=no_sleep)
    assert report.mailings[0].deferred == (("ada@example.org", "451 4.3.0 Try again later"),)
    assert outbox_states(mail_config)["ada@example.org"] == "deferred"
    mailer.send(mail_config, sleep=no_sleep)
    assert sorted(smtp_server.sink.by_recipient()) == sorted(ADDRESSES)
    assert len(smtp_server.sink.received) == len(ADDRESSES)


@BOTH_BACKENDS
def test_a_permanent_refusal_is_recorded_and_reported_and_the_batch_goes_on(mail_config, smtp_server):
    smtp_server.sink.refuse["grace@example.org"] = "550 5.1.1 No such user"
    report = mailer.send(mail_config, sleep=no_sleep)
    assert report.mailings[0].failed == (("grace@example.org", "550 5.1.1 No such user"),)
    assert "1 refused" in mailer.describe(report)
    assert sorted(smtp_server.sink.by_recipient()) == sorted(set(ADDRESSES) - {"grace@example.org"})
    assert outbox_states(mail_config)["grace@example.org"] == "failed"
    # Refused for good: the next send does not try again.
    del smtp_server.sink.refuse["grace@example.org"]
    mailer.send(mail_config, sleep=no_sleep)
    assert "grace@example.org" not in smtp_server.sink.by_recipient()


@BOTH_BACKENDS
def test_a_dropped_connection_is_opened_again(mail_config, smtp_server):
    sink = smtp_server.sink
    keep_mail = sink.handle_MAIL
    closed = []

    async def close_once_after_two(server, session, envelope, address, mail_options):
        # 421 makes the client drop the connection, as a server going away does.
        if len(sink.received) == 2 and not closed:
            closed.append(session.peer)
            return "421 4.3.2 Service shutting down"
        return await keep_mail(server, session, envelope, address, mail_options)

    sink.handle_MAIL = close_once_after_two
    report = mailer.send(mail_config, sleep=no_sleep)
    assert report.mailings[0].sent == tuple(ADDRESSES)
    assert len(sink.received) == len(ADDRESSES)
    assert len({item.peer for item in sink.received}) == 2


@BOTH_BACKENDS
def test_no_line_of_a_message_is_longer_than_998_characters(config, smtp_server, posts_dir: Path):
    long_line = " ".join(["Überlänge-ohne-Umbruch"] * 300)
    (posts_dir / "long.md").write_text(f"# Long lines\n\n- {long_line}\n\n{long_line}\n", encoding="utf-8")
    config = with_sections(config, email_section(smtp_server.port, SUBSCRIBERS))
    pipeline.build(config, now=NOW)
    html = (config.archive_dir / "digests" / "2026-11-02-1.html").read_text(encoding="utf-8")
    assert max(len(line) for line in html.splitlines()) > 998  # what the message must carry
    mailer.send(config, sleep=no_sleep)

    assert smtp_server.sink.received
    for item in smtp_server.sink.received:
        assert max(len(line) for line in item.raw.split(b"\r\n")) <= 998
        decoded = item.message.get_body(("html",)).get_content()
        assert max(len(line) for line in decoded.splitlines()) > 998  # and read back whole


@BOTH_BACKENDS
def test_post_text_cannot_reach_the_unsubscribe_slot(config, smtp_server, posts_dir: Path):
    """The slot where each reader's own unsubscribe link goes is random per rendering: a
    post that guesses at it keeps its own text, and no reader's address leaks into it."""
    guess = "https://unsubscribe.invalid/subscriber"
    (posts_dir / "guess.md").write_text(f"# Guess\n\nHighlights:\n\n- See [the notes]({guess}) and {guess}\n",
                                        encoding="utf-8")
    config = with_sections(config, email_section(smtp_server.port, SUBSCRIBERS))
    pipeline.build(config, now=NOW)
    mailer.send(config, sleep=no_sleep)

    for item in smtp_server.sink.received:
        text = item.message.get_body(("plain",)).get_content()
        html = item.message.get_body(("html",)).get_content()
        assert guess in text and guess in html
        assert text.count("address=") == 1 and html.count("address=") == 1


def test_message_ids_need_the_state_database_secret_to_be_guessed(mail_config, tmp_path: Path):
    """A Message-ID is derived with a secret kept in the state database, so it cannot be
    used to test a guessed address; the same database gives the same ids every run."""
    [first] = [p.read_bytes() for p in mailer.write_dry_run(mail_config, tmp_path / "one") if "ada@" in p.name]
    mail_config.state.path.unlink()
    for extra in mail_config.state.path.parent.glob(mail_config.state.path.name + "-*"):
        extra.unlink()
    pipeline.build(mail_config, now=NOW)
    [second] = [p.read_bytes() for p in mailer.write_dry_run(mail_config, tmp_path / "two") if "ada@" in p.name]
    message_id = re.compile(rb"Message-ID: (.*)\r\n")
    assert message_id.search(first).group(1) != message_id.search(second).group(1)


@BOTH_BACKENDS
def test_non_ascii_names_and_subjects_are_encoded_and_read_back(config, smtp_server):
    config = with_sections(config, email_section(smtp_server.port, SUBSCRIBERS))
    config = load(_retitled(config.path, "Neuigkeiten für Zoë — Ausgabe"))
    pipeline.build(config, now=NOW)
    mailer.send(config, sleep=no_sleep)

    (item,) = smtp_server.sink.by_recipient()["zoe@example.org"]
    headers = item.raw.split(b"\r\n\r\n")[0]
    assert headers.isascii()
    message = item.message
    assert message["Subject"].startswith("Neuigkeiten für Zoë — Ausgabe: ")
    assert message["To"].addresses[0].display_name == "Zoë Ünïcode-Łukasz"


@BOTH_BACKENDS
def test_each_message_reads_back_as_the_digest_composed_for_that_subscriber_alone(config, tmp_path: Path):
    """The digest is encoded once and each subscriber's parts are put into the bytes; what a
    subscriber gets must read back as a plain EmailMessage of the digest rendered for them."""
    config = with_sections(config, email_section(free_port(), SUBSCRIBERS))
    config = load(_retitled(config.path, "Neuigkeiten für Zoë — Ausgabe"))
    pipeline.build(config, now=NOW)
    written = {p.stem: p.read_bytes() for p in mailer.write_dry_run(config, tmp_path)}

    for subscriber in ("ada@example.org", "zoe@example.org"):
        (recipient,) = [a for a in config.email.subscribers if a.addr_spec == subscriber]
        fast, plain = written[subscriber], composed_one_by_one(config, recipient).as_bytes()
        assert readable(BytesParser(policy=default).parsebytes(fast)) == \
            readable(BytesParser(policy=default).parsebytes(plain))
        head, body = fast.split(b"\r\n\r\n", 1)
        assert head.isascii() and body.isascii()
        assert max(len(line) for line in body.split(b"\r\n")) <= 76  # quoted-printable's limit
    assert b"To: =?utf-8?" in written["zoe@example.org"]  # the name in an encoded word


def composed_one_by_one(config: Config, recipient: Address) -> EmailMessage:
    """The straightforward message: the digest rendered with the subscriber's own
    unsubscribe address, built and encoded by the email package."""
    own = f"https://digest.example.org/unsubscribe?address={recipient.addr_spec}"
    store = Store.open(config.state)
    try:
        (head,) = store.digests_to_mail()
        # Its entries are read from the database as the digest is rendered.
        digest = Digest(head.id, head.name, head.created, EntryIndex(store).digest_entries(head.id))
        rendered = render_digest(config, digest)
    finally:
        store.close()
    rendered = replace(rendered, html=rendered.html.replace(rendered.unsubscribe_slot, own),
                       text=rendered.text.replace(rendered.unsubscribe_slot, own))
    message = EmailMessage(policy=SMTP)
    message["Subject"] = rendered.subject
    message["From"] = config.email.sender
    message["To"] = recipient
    message["Date"] = format_datetime(digest.created)
    with Store.open(config.state) as store:
        message["Message-ID"] = mailer.message_id(config.email, store.message_key(), head, recipient)
    message["List-Unsubscribe"] = f"<mailto:unsubscribe@example.org?subject=unsubscribe>, <{own}>"
    message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(rendered.text, cte="quoted-printable")
    message.add_alternative(rendered.html, subtype="html", cte="quoted-printable")
    return message


def readable(message: EmailMessage) -> tuple:
    """What a reader gets of a message: its headers decoded (in any order; the boundary
    aside), and each part's type, charset and decoded text."""
    headers = sorted((name, str(value)) for name, value in message.items() if name != "Content-Type")
    parts = [(part.get_content_type(), part.get_content_charset(), part.get_content())
             for part in message.iter_parts()]
    return headers, message.get_content_type(), parts


def _retitled(path: Path, title: str) -> Path:
    text = path.read_text(encoding="utf-8").replace('title = "Test digest"', f'title = "{title}"')
    path.write_text(text.replace('from = "Test digest', f'from = "{title}'), encoding="utf-8")
    return path


@BOTH_BACKENDS
def test_a_digest_without_posts_is_not_mailed_unless_configured(mail_config, smtp_server):
    mailer.send(mail_config, sleep=no_sleep)  # the first digest, with posts
    smtp_server.sink.received.clear()
    store = Store.open(mail_config.state)
    store.add_digest(store.digest_name(NOW + timedelta(hours=1)), [], NOW + timedelta(hours=1))
    store.close()
    pipeline.build(mail_config, now=NOW + timedelta(hours=1))  # writes the empty digest's files

    report = mailer.send(mail_config, sleep=no_sleep)
    assert "carries no posts" in mailer.describe(report)
    assert smtp_server.sink.received == []

    mail_config = with_sections(mail_config, "send_empty = true\n")
    mailer.send(mail_config, sleep=no_sleep)
    assert len(smtp_server.sink.received) == len(ADDRESSES)


@BOTH_BACKENDS
def test_the_password_comes_from_the_named_environment_variable(mail_config, monkeypatch):
    config = with_sections(mail_config, 'username = "digest"\npassword_env = "TEST_SMTP_SECRET"\n')
    monkeypatch.delenv("TEST_SMTP_SECRET", raising=False)
    # Not named: a password put in password_env by mistake would be printed.
    with pytest.raises(MailError, match=r"^the environment variable that email.password_env names, .* is not set$"):
        mailer.send(config, sleep=no_sleep)


@BOTH_BACKENDS
def test_a_server_that_cannot_be_reached_stops_the_batch(mail_config, smtp_server):
    text = mail_config.path.read_text(encoding="utf-8")
    mail_config.path.write_text(text.replace(f"port = {smtp_server.port}", "port = 9"), encoding="utf-8")
    with pytest.raises(MailError, match="connection to 127.0.0.1:9 failed"):
        mailer.send(load(mail_config.path), sleep=no_sleep)
    assert set(outbox_states(mail_config).values()) <= {"queued", "deferred"}


# -- config ---------------------------------------------------------------------


def test_invalid_addresses_are_reported_at_config_load(tmp_path: Path):
    (tmp_path / "subscribers.txt").write_text(
        "# readers\nada@example.org\n\nbob@@example.org\nGrace <grace@example.org>  # since 2026\n",
        encoding="utf-8")
    path = write_config(tmp_path, email_section(25, ["a@example.org", "b@example.org", "c@example.org", "x@"],
                                                 subscribers_file='"subscribers.txt"'))
    with pytest.raises(ConfigError) as error:
        load(path)
    assert str(error.value).splitlines() == [
        f"{path}: email.subscribers[3]: 'x@' is not a valid address",
        f"{path}: email.subscribers_file: {tmp_path / 'subscribers.txt'}:4: 'bob@@example.org'"
        " is not a valid address",
    ]


def test_subscribers_file_lines_comments_and_duplicates(tmp_path: Path):
    (tmp_path / "subscribers.txt").write_text(
        "# readers\nada@example.org\n\nGrace <grace@example.org>  # since 2026\nADA@example.org\n",
        encoding="utf-8")
    path = write_config(tmp_path, email_section(25, ["ada@example.org"], subscribers_file='"subscribers.txt"'))
    assert [str(a) for a in load(path).email.subscribers] == [
        "ada@example.org", "Grace <grace@example.org>"]


@pytest.mark.parametrize("key, value, problem", [
    ("security", '"tls"', "email.security: must be one of starttls, ssl, none (got 'tls')"),
    ("password_env", '"hunter2!"', "email.password_env: must be the NAME of an environment variable"),
    ("unsubscribe_url", '"http://example.org/u"', "email.unsubscribe_url: must be an https URL"),
    ("from", '"digest"', "email.from: 'digest' is not a valid address"),
    ("port", "0", "email.port: must be a port number"),
])
def test_email_settings_are_checked(tmp_path: Path, key: str, value: str, problem: str):
    body = email_section(25, ["a@example.org"])
    body = "\n".join(line for line in body.splitlines() if not line.startswith(f"{key} ="))
    path = write_config(tmp_path, f"{body}\n{key} = {value}\n")
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        load(path)


# -- a killed process -------------------------------------------------------------


def start_send(config: Config) -> subprocess.Popen:
    return start_cli("--config", str(config.path), "send")


def send_killed_at(config: Config, sink, hook: str, kept: int) -> None:
    """Run `newsletter send` and SIGKILL it from the server's `hook` ("on_mail": at a MAIL
    FROM, "on_data": after keeping a message, before acknowledging it) once `kept` are kept."""
    running: list[subprocess.Popen] = []
    setattr(sink, hook, lambda count: count == kept and running[0].kill())
    running.append(start_send(config))
    running[0].communicate(timeout=60)
    setattr(sink, hook, None)
    assert running[0].returncode == -9


def send_to_the_end(config: Config) -> str:
    sender = start_send(config)
    _, stderr = sender.communicate(timeout=60)
    assert sender.returncode == 0, stderr
    return stderr


READERS = [f"reader{n}@example.org" for n in range(8)]


@BOTH_BACKENDS
@pytest.mark.slow
def test_a_sender_killed_mid_batch_and_started_again_serves_everyone_once(config, smtp_server):
    config = with_sections(config, email_section(smtp_server.port, READERS))
    pipeline.build(config, now=NOW)
    # Killed as it starts its 4th message: three were acknowledged, the 4th not handed over.
    send_killed_at(config, smtp_server.sink, "on_mail", 3)
    assert len(smtp_server.sink.received) == 3

    stderr = send_to_the_end(config)
    assert "digest 2026-11-02-1: 5 sent, 0 refused, 0 deferred" in stderr
    received = smtp_server.sink.by_recipient()
    assert sorted(received) == sorted(READERS)
    assert all(len(copies) == 1 for copies in received.values())


@BOTH_BACKENDS
@pytest.mark.slow
def test_a_message_in_flight_when_the_sender_dies_is_sent_again_with_the_same_message_id(config, smtp_server):
    """The one window left open: the server kept the message, the sender died before
    recording it. The repeat carries the same Message-ID, so receivers can drop it. Every
    other reader gets the stable features only: the repeat, a copy rendered for that slice,
    is kept from the first run, byte for byte."""
    config = with_sections(config, email_section(smtp_server.port, READERS))
    pipeline.build(config, now=NOW)
    give_slices(config, dict.fromkeys(READERS[::2], STABLE_ONLY))
    send_killed_at(config, smtp_server.sink, "on_data", 3)
    stderr = send_to_the_end(config)
    assert "reader2@example.org: the last run stopped while sending it digest 2026-11-02-1" in stderr

    received = smtp_server.sink.by_recipient()
    repeated = received.pop("reader2@example.org")
    assert len(repeated) == 2
    assert repeated[0].raw == repeated[1].raw  # the very same message, Message-ID and all
    assert sorted(received) == sorted(set(READERS) - {"reader2@example.org"})
    assert all(len(copies) == 1 for copies in received.values())
    sliced = [bodies(copies[0].message)[0] for reader, copies in received.items() if reader in READERS[::2]]
    assert sliced and not any("[Beta]" in text for text in [*sliced, bodies(repeated[0].message)[0]])
    assert all("[Beta]" in bodies(received[reader][0].message)[0] for reader in READERS[1::2])


# -- TLS and login ----------------------------------------------------------------


@pytest.fixture
def tls_smtp_server(tmp_path: Path):
    """An SMTP server on 127.0.0.1 that insists on STARTTLS (a self-signed certificate for
    127.0.0.1) and on a login, user "digest" with password "s3cret"."""
    if shutil.which("openssl") is None:
        pytest.skip("no openssl command to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    logins = []

    def authenticate(server, session, envelope, mechanism, auth_data):
        logins.append((auth_data.login, auth_data.password))
        # handled=False: the server, not this function, answers (235, or 535 on a refusal).
        return AuthResult(success=auth_data.login == b"digest" and auth_data.password == b"s3cret",
                          handled=False)

    sink = SmtpSink()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port, tls_context=context,
                            require_starttls=True, authenticator=authenticate, auth_require_tls=True)
    controller.start()
    try:
        yield SmtpServer(sink, port), cert, logins
    finally:
        controller.stop()


def tls_config(config: Config, port: int) -> Config:
    body = email_section(port, SUBSCRIBERS).replace('security = "none"', 'security = "starttls"')
    return with_sections(config, body + 'username = "digest"\npassword_env = "TEST_SMTP_SECRET"\n')


@BOTH_BACKENDS
@pytest.mark.slow
def test_starttls_and_a_login_with_the_password_from_the_environment(config, tls_smtp_server, monkeypatch):
    server, cert, logins = tls_smtp_server
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust the test certificate
    monkeypatch.setenv("TEST_SMTP_SECRET", "s3cret")
    config = tls_config(config, server.port)
    pipeline.build(config, now=NOW)
    mailer.send(config, sleep=no_sleep)
    assert logins == [(b"digest", b"s3cret")]
    assert sorted(server.sink.by_recipient()) == sorted(ADDRESSES)


@BOTH_BACKENDS
@pytest.mark.slow
def test_an_untrusted_certificate_or_a_wrong_password_stops_the_batch(config, tls_smtp_server, monkeypatch):
    server, cert, _ = tls_smtp_server
    monkeypatch.setenv("TEST_SMTP_SECRET", "wrong")
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    config = tls_config(config, server.port)
    pipeline.build(config, now=NOW)
    with pytest.raises(MailError, match="certificate is not trusted"):
        mailer.send(config, sleep=no_sleep)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    with pytest.raises(MailError, match="login refused: 535"):
        mailer.send(config, sleep=no_sleep)
    assert server.sink.received == []


@BOTH_BACKENDS
@pytest.mark.slow
def test_send_dry_run_from_the_command_line(mail_config, smtp_server, tmp_path: Path):
    result = run_cli("--config", str(mail_config.path), "send", "--dry-run", "--out", str(tmp_path / "preview"),
                     timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().endswith(f"4 messages written to {tmp_path / 'preview'}; nothing sent")
    assert len(list((tmp_path / "preview" / "2026-11-02-1").glob("*.eml"))) == len(ADDRESSES)
    assert smtp_server.sink.received == []


# -- which digests a send mails ---------------------------------------------------------


def add_post(config: Config, name: str, title: str) -> None:
    folder = config.sources[0].path
    (folder / name).write_text(f"---\ntitle: {title}\n---\n\n# {title}\n\n## (Beta) Orbit planner\n\nPlans orbits.\n",
                               encoding="utf-8")


def digest_subjects(smtp_server, address: str) -> list[str]:
    return [item.message["Subject"] for item in smtp_server.sink.by_recipient().get(address, [])]


@BOTH_BACKENDS
def test_two_builds_before_one_send_mail_both_digests_in_the_order_made(mail_config, smtp_server):
    add_post(mail_config, "orrery-2.md", "Orrery 2.0")
    pipeline.build(mail_config, now=NOW + timedelta(hours=1))
    report = mailer.send(mail_config, sleep=no_sleep)
    assert [m.digest for m in report.mailings] == ["2026-11-02-1", "2026-11-02-2"]
    assert len(digest_subjects(smtp_server, "ada@example.org")) == 2
    # Mailed: a later send has nothing left.
    assert [m.sent for m in mailer.send(mail_config, sleep=no_sleep).mailings] == [()]


@BOTH_BACKENDS
def test_a_digest_made_after_the_clock_went_back_is_mailed(mail_config, smtp_server):
    mailer.send(mail_config, sleep=no_sleep)
    add_post(mail_config, "orrery-2.md", "Orrery 2.0")
    name = pipeline.build(mail_config, now=NOW - timedelta(days=3)).new_digest
    report = mailer.send(mail_config, sleep=no_sleep)
    assert [m.digest for m in report.mailings if m.sent] == [name]
    assert len(digest_subjects(smtp_server, "ada@example.org")) == 2


def test_a_digest_name_is_never_given_twice_even_after_the_state_is_lost(mail_config):
    archive = mail_config.archive_dir
    first = (archive / "digests" / "2026-11-02-1.html").read_bytes()
    mail_config.state.path.unlink()
    report = pipeline.build(mail_config, now=NOW + timedelta(hours=1))
    assert report.new_digest == "2026-11-02-2"
    assert (archive / "digests" / "2026-11-02-1.html").read_bytes() == first


@BOTH_BACKENDS
def test_digests_built_before_mail_was_configured_are_not_sent_as_a_backlog(config, smtp_server):
    pipeline.build(config, now=NOW)
    add_post(config, "orrery-2.md", "Orrery 2.0")
    newest = pipeline.build(config, now=NOW + timedelta(hours=1)).new_digest
    mail_config = with_sections(config, email_section(smtp_server.port, SUBSCRIBERS))
    report = mailer.send(mail_config, sleep=no_sleep)
    assert [m.digest for m in report.mailings] == [newest]
    assert len(digest_subjects(smtp_server, "ada@example.org")) == 1


@BOTH_BACKENDS
def test_a_message_stored_whose_answer_was_lost_is_not_sent_again_in_the_same_run(mail_config, smtp_server, caplog):
    smtp_server.sink.lose_answers = 1
    report = mailer.send(mail_config, sleep=no_sleep)
    # Stored once, and not sent again in this run: everyone else got theirs.
    assert sorted(r.recipient for r in smtp_server.sink.received) == sorted(ADDRESSES)
    [(address, reason)] = report.mailings[0].deferred
    assert address == "ada@example.org" and "lost after the message was sent" in reason
    assert "it may have arrived: not sent again in this run" in caplog.text
    assert outbox_states(mail_config)["ada@example.org"] == "pending"
    # The next send sends it again, with the same Message-ID, as a possible repeat.
    report = mailer.send(mail_config, sleep=no_sleep)
    assert report.mailings[0].possible_repeats == ("ada@example.org",)
    first, again = smtp_server.sink.by_recipient()["ada@example.org"]
    assert first.message["Message-ID"] == again.message["Message-ID"]
