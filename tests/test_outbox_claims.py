"""Outbox claims, on SQLite and on PostgreSQL: senders that share one mailing take different messages,
a sender holds what it claimed until its lease runs out, and a stopped sender's messages go to
another: queued ones not repeated, the one it was handing over as a possible repeat."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from helpers import NOW
from helpers.postgres import BOTH_BACKENDS
from helpers.servers import email_section
from test_mailer import no_sleep, outbox_states, with_sections

from newsletter import pipeline
from newsletter.config import Config
from newsletter.errors import StoreError
from newsletter.mail import mailing as mailing_module
from newsletter.mail import send as mailer
from newsletter.mail.addressing import Links
from newsletter.mail.mailing import Sender, mail_digest
from newsletter.mail.smtp import Connection
from newsletter.state import outbox_claims
from newsletter.state import subscribers as subscriber_list
from newsletter.state.store import Store

READERS = [f"reader{n:03}@example.org" for n in range(120)]
pytestmark = BOTH_BACKENDS


@pytest.fixture
def queued(config: Config, smtp_server) -> Config:
    """120 subscribers, a digest built, and its mailing queued (a send stopped at once)."""
    config = with_sections(config, email_section(smtp_server.port, READERS))
    pipeline.build(config, now=NOW)
    assert mailer.send(config, should_stop=lambda: True).interrupted
    assert set(outbox_states(config).values()) == {"queued"}
    return config


def digest_id(store: Store) -> int:
    (head,) = store.digests_to_mail()
    return head.id


def claims(config: Config) -> dict[str, tuple[str | None, str]]:
    """recipient -> (claimed_by, state)."""
    with Store.open(config.state) as store:
        return {recipient: (by, state) for recipient, by, state in store.db.execute(
            "SELECT recipient, claimed_by, state FROM outbox")}


def test_two_senders_claim_different_batches_and_neither_claims_its_own_again(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        first = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False)
        second = outbox_claims.claim_batch(store, digest, "b", NOW, alone=False)
        again = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=1000)
    assert len(first) == len(second) == outbox_claims.BATCH
    assert not {c.recipient for c in first} & {c.recipient for c in second}
    assert {c.recipient for c in again} == set(READERS) - {c.recipient for c in first + second}
    assert all(c.state == "queued" for c in first + second + again)


def test_a_claim_holds_until_its_lease_runs_out_unless_the_claimer_is_alone(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        taken = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=1000)
        assert outbox_claims.claim_batch(store, digest, "b", NOW + timedelta(seconds=1), alone=False) == []
        assert outbox_claims.held_elsewhere(store, digest, "b")
        # The lock file's holder knows "a" is dead, however long its lease.
        c_claimed = NOW + outbox_claims.LEASE
        assert len(outbox_claims.claim_batch(store, digest, "c", c_claimed, alone=True)) == outbox_claims.BATCH
        # a's lease is out, c's is not.
        later = NOW + outbox_claims.LEASE + timedelta(seconds=1)
        assert len(outbox_claims.claim_batch(store, digest, "b", later, alone=False, size=1000)) == len(taken) - 50


def test_only_the_holder_marks_a_message_pending(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        (claimed,) = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=1)
        assert subscriber_list.claim(store, digest, claimed.recipient, NOW, "b") == "taken"
        assert subscriber_list.claim(store, digest, claimed.recipient, NOW, "a") is None
    assert claims(queued)[claimed.recipient] == ("a", "pending")


def test_a_release_gives_back_what_the_sender_did_not_finish(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        first, second, third, *_ = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False)
        for done in (first, second):
            subscriber_list.claim(store, digest, done.recipient, NOW, "a")
        store.set_outbox_state(digest, first.recipient, "sent", NOW)
        store.set_outbox_state(digest, second.recipient, "deferred", NOW, "451 try again later")
        outbox_claims.release(store, digest, "a")
        again = outbox_claims.claim_batch(store, digest, "b", NOW, alone=False, size=1000)
    assert {c.recipient for c in again} == set(READERS) - {first.recipient}
    assert {c.recipient: c.state for c in again}[second.recipient] == "deferred"


def test_the_lease_is_renewed_while_the_sender_works(queued, monkeypatch):
    monkeypatch.setattr(outbox_claims, "RENEW_EVERY", timedelta(seconds=0.05))
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        outbox_claims.claim_batch(store, digest, "a", NOW, alone=False)
        renewed = threading.Event()

        def lease_moved() -> bool:
            (until,) = store.db.execute("SELECT min(lease_until) FROM outbox WHERE claimed_by = 'a'").fetchone()
            return datetime.fromisoformat(until) > NOW + outbox_claims.LEASE

        with outbox_claims.kept(lambda: Store.open(queued.state), digest, "a"):
            for _ in range(200):
                if lease_moved():
                    renewed.set()
                    break
                threading.Event().wait(0.02)
    assert renewed.is_set()


def a_sender(config: Config, name: str, **changes) -> Sender:
    assert config.email is not None
    fields = {"config": config, "email": config.email, "connections": [Connection(config.email, None)],
              "links": Links(config), "sleep": no_sleep, "should_stop": lambda: False, "name": name,
              "alone": False, "on_unclaimed": lambda _at: None}
    return Sender(**(fields | changes))


def mail_it(sender: Sender):
    with Store.open(sender.config.state) as store:
        (head,) = store.digests_to_mail()
        try:
            return mail_digest(sender, store, head)
        finally:
            sender.connections[0].close()


def test_two_senders_at_once_share_the_mailing_and_everyone_gets_one_message(queued, smtp_server):
    asked_for_help = threading.Event()
    reports = {}
    senders = [a_sender(queued, name, on_unclaimed=lambda _at: asked_for_help.set()) for name in ("a", "b")]
    threads = [threading.Thread(target=lambda s=sender: reports.update({s.name: mail_it(s)})) for sender in senders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    received = smtp_server.sink.by_recipient()
    assert sorted(received) == READERS
    assert all(len(copies) == 1 for copies in received.values())
    sent = [set(mailing.sent) for mailing, _stopped in reports.values()]
    assert not sent[0] & sent[1] and sent[0] | sent[1] == set(READERS)
    assert asked_for_help.is_set()
    assert set(outbox_states(queued).values()) == {"sent"}


def test_the_messages_of_a_sender_that_died_go_to_another_once_its_lease_is_out(queued, smtp_server, caplog):
    """The dead sender held a batch, one of it pending: the queued ones are sent once, the
    pending one again with its Message-ID, logged; the survivor waits for the lease."""
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        batch = outbox_claims.claim_batch(store, digest, "dead", datetime.now(UTC), alone=False)
        in_flight = batch[0].recipient
        subscriber_list.claim(store, digest, in_flight, NOW, "dead")
        store.db.execute("UPDATE outbox SET lease_until = ? WHERE claimed_by = 'dead'",
                         ((datetime.now(UTC) + timedelta(seconds=2)).isoformat(timespec="microseconds"),))
    waits = []
    mailing, stopped = mail_it(a_sender(queued, "survivor", sleep=lambda s: (waits.append(s),
                                                                             threading.Event().wait(s))))

    assert not stopped and waits
    assert mailing.possible_repeats == (in_flight,)
    assert sorted(mailing.sent) == READERS
    assert sorted(smtp_server.sink.by_recipient()) == READERS
    assert f"{in_flight}: the last run stopped while sending it digest" in caplog.text


def test_a_sender_ending_while_another_holds_a_message_in_hand_over_says_when_its_lease_runs_out(queued):
    """Nobody waits for another's pending message (its holder may live, its answer lost), so
    the last sender asks for one to take it at the end of that lease: its holder may be dead."""
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        (claimed,) = outbox_claims.claim_batch(store, digest, "dead", datetime.now(UTC), alone=False, size=1)
        subscriber_list.claim(store, digest, claimed.recipient, NOW, "dead")
        (lease_until,) = store.db.execute("SELECT lease_until FROM outbox WHERE claimed_by = 'dead'").fetchone()
    asked = []
    mailing, stopped = mail_it(a_sender(queued, "survivor", on_unclaimed=asked.append))

    assert not stopped
    assert sorted(mailing.sent) == sorted(set(READERS) - {claimed.recipient})
    # After the calls for its own next batches: a second past the lease, when a claim may take it.
    assert asked[-1] == datetime.fromisoformat(lease_until) + timedelta(seconds=1)


def test_two_senders_that_each_lost_an_answer_do_not_wait_for_each_other(queued, smtp_server, monkeypatch):
    """Each sender's first message is left pending, answer lost, and stays in its hands until
    its run ends: neither waits for the other's, and both end with everyone else mailed once.
    (One that ends first gives its lost one up: the other, still at it, may send it again.)"""
    lost: dict[str, str] = {}
    guard = threading.Lock()
    real_deliver = mailing_module.deliver

    def deliver(connection, sender, recipient, data, sleep):
        with guard:
            if threading.current_thread().name not in lost:
                lost[threading.current_thread().name] = recipient
                return "unconfirmed", "connection lost after the message"
        return real_deliver(connection, sender, recipient, data, sleep)

    monkeypatch.setattr(mailing_module, "deliver", deliver)
    given_up = threading.Event()
    senders = [a_sender(queued, name, sleep=lambda s: given_up.wait(0.01), should_stop=given_up.is_set)
               for name in ("a", "b")]
    threads = [threading.Thread(target=mail_it, args=(sender,), name=sender.name) for sender in senders]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    stuck = [thread.name for thread in threads if thread.is_alive()]
    given_up.set()
    for thread in threads:
        thread.join()

    assert stuck == []
    assert sorted(lost) == ["a", "b"]
    received = smtp_server.sink.by_recipient()
    assert set(received) >= set(READERS) - set(lost.values())
    assert all(len(copies) == 1 for copies in received.values())
    assert {state for key, (_by, state) in claims(queued).items() if key not in received} == {"pending"}


def test_a_sender_that_lost_its_row_records_nothing_over_the_new_holders_work(queued):
    """a marked the message pending and froze past its lease; b took it, sent it and recorded
    it: a's answer, when it wakes, writes nothing, and the row stays sent."""
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        (claimed,) = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=1)
        key = claimed.recipient
        assert subscriber_list.claim(store, digest, key, NOW, "a") is None
        later = NOW + outbox_claims.LEASE + timedelta(seconds=1)
        assert outbox_claims.claim_batch(store, digest, "b", later, alone=False, size=1) == [
            outbox_claims.Claimed(key, "pending")]
        assert subscriber_list.claim(store, digest, key, later, "b") is None
        assert subscriber_list.record_delivery(store, digest, key, "sent", None, 3, later, "b") == "recorded"
        assert subscriber_list.record_delivery(store, digest, key, "deferred", "451", 3, later, "a") == "taken"
        assert not store.set_outbox_state(digest, key, "deferred", later, "connection lost", holder="a")
        outbox_claims.release(store, digest, "b")
    assert claims(queued)[key] == ("b", "sent")


def test_a_message_whose_claim_lapsed_during_its_hand_over_is_logged_as_a_possible_repeat(
        queued, smtp_server, monkeypatch, caplog):
    real_deliver = mailing_module.deliver
    taken = []

    def deliver_while_another_takes_it(connection, sender, recipient, data, sleep):
        if not taken:  # the first message: its lease lapses and "b" claims it meanwhile
            with Store.open(queued.state) as store:
                store.db.execute("UPDATE outbox SET claimed_by = 'b' WHERE recipient = ?", (recipient,))
            taken.append(recipient)
        return real_deliver(connection, sender, recipient, data, sleep)

    monkeypatch.setattr(mailing_module, "deliver", deliver_while_another_takes_it)
    mailing, stopped = mail_it(a_sender(queued, "a"))

    assert not stopped
    assert mailing.possible_repeats == tuple(taken)
    assert claims(queued)[taken[0]] == ("b", "pending")
    assert f"{taken[0]}: its claim lapsed while it was handed over and another sender took it" in caplog.text


def test_a_sender_marks_nothing_pending_on_a_lease_about_to_run_out(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        first, second = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=2)
        assert subscriber_list.claim(store, digest, first.recipient, NOW + timedelta(seconds=1), "a") is None
        nearly_out = NOW + outbox_claims.LEASE - outbox_claims.MARGIN / 2
        assert subscriber_list.claim(store, digest, second.recipient, nearly_out, "a") == "taken"
    assert claims(queued)[second.recipient] == ("a", "queued")


def test_the_renewal_opens_its_database_again_after_a_failure_and_keeps_deferred_rows(queued, monkeypatch):
    monkeypatch.setattr(outbox_claims, "RENEW_EVERY", timedelta(seconds=0.02))
    opened = []

    def open_store() -> Store:
        opened.append(True)
        if len(opened) == 1:
            raise StoreError("the database is gone for a moment")
        return Store.open(queued.state)

    with Store.open(queued.state) as store:
        digest = digest_id(store)
        first, second = outbox_claims.claim_batch(store, digest, "a", NOW, alone=False, size=2)
        store.set_outbox_state(digest, second.recipient, "deferred", NOW, "451 later", holder="a")
        with outbox_claims.kept(open_store, digest, "a") as lease:
            for _ in range(200):
                leases = dict(store.db.execute("SELECT recipient, lease_until FROM outbox WHERE claimed_by = 'a'"))
                if datetime.fromisoformat(min(leases.values())) > NOW + outbox_claims.LEASE:
                    break
                threading.Event().wait(0.02)
        assert not lease.lapsing()
    assert len(opened) == 2
    assert sorted(leases) == [first.recipient, second.recipient]
    assert datetime.fromisoformat(min(leases.values())) > NOW + outbox_claims.LEASE


def test_a_sender_that_cannot_renew_its_leases_stops_before_they_lapse(queued, smtp_server, monkeypatch, caplog):
    monkeypatch.setattr(outbox_claims, "RENEW_EVERY", timedelta(seconds=0.01))
    monkeypatch.setattr(outbox_claims, "GIVE_UP_AFTER", timedelta(seconds=0.05))

    def unreachable(*_args) -> None:
        raise StoreError("the database is unreachable")

    monkeypatch.setattr(outbox_claims, "renew", unreachable)
    real_deliver = mailing_module.deliver

    def slow_deliver(*args):
        threading.Event().wait(0.1)
        return real_deliver(*args)

    monkeypatch.setattr(mailing_module, "deliver", slow_deliver)
    mailing, stopped = mail_it(a_sender(queued, "a"))
    assert stopped
    assert 0 < len(mailing.sent) < 3
    assert "could not be renewed for a while; stopping" in caplog.text


def test_a_subscriber_another_sender_queued_is_mailed_not_dropped(queued, smtp_server, monkeypatch):
    """Someone joined after this sender read the list, and another sender queued their
    message: this sender reads the list again rather than drop the row as unknown."""
    joined = "late@example.org"
    with Store.open(queued.state) as store:
        subscriber_list.add(store, joined, "joined meanwhile", NOW)
        store.queue_mailing(digest_id(store), {joined: "<late@example.org>"}, NOW)
    real_recipients = mailing_module.recipients
    reads = []

    def read_before_they_joined(email, store):
        reads.append(True)
        listed = real_recipients(email, store)
        return listed if len(reads) > 1 else {key: r for key, r in listed.items() if key != joined}

    monkeypatch.setattr(mailing_module, "recipients", read_before_they_joined)
    mailing, _stopped = mail_it(a_sender(queued, "a"))
    assert joined in mailing.sent
    assert len(smtp_server.sink.by_recipient()[joined]) == 1


def test_a_row_another_sender_holds_is_not_dropped_by_one_that_does_not_know_its_address(queued):
    with Store.open(queued.state) as store:
        digest = digest_id(store)
        held, free = (c.recipient for c in outbox_claims.claim_batch(store, digest, "b", NOW, alone=False, size=2))
        outbox_claims.release(store, digest, "b")
        outbox_claims.claim_batch(store, digest, "b", NOW, alone=False, size=1)
        for key in (held, free):
            outbox_claims.drop_unheld(store, digest, key, "a", NOW + timedelta(seconds=1), "no longer a subscriber")
    assert claims(queued)[held] == ("b", "queued")
    assert claims(queued)[free] == (None, "dropped")
