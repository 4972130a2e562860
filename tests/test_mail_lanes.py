"""A mailing over several SMTP connections at once (email.connections): each subscriber
still gets one message, and a killed run leaves only messages in flight to be sent again."""

import threading
import time

import pytest
from helpers import NOW
from helpers.servers import email_section
from test_mailer import READERS, no_sleep, outbox_states, send_killed_at, send_to_the_end, with_sections

from newsletter import pipeline
from newsletter.mail import send as mailer
from newsletter.mail.lanes import in_lanes

LANES = 4
MANY_READERS = [f"reader{n}@example.org" for n in range(40)]


def no_resources(_number: int):
    return threading.Lock()  # any context manager: these lanes hold nothing


def test_every_item_is_handled_once_and_the_lanes_run_at_the_same_time():
    # Each of the first two items waits for the other's lane: one lane alone would time out.
    both_started = threading.Barrier(2, timeout=30)
    handled: list[int] = []

    def handle(_lane, item: int) -> None:
        if item < 2:
            both_started.wait()
        handled.append(item)

    assert in_lanes(range(100), 2, no_resources, handle, should_stop=lambda: False) is False
    assert sorted(handled) == list(range(100))


def test_a_failing_lane_stops_the_others_and_its_error_is_raised():
    handled: list[int] = []

    def handle(_lane, item: int) -> None:
        if item == 0:
            raise RuntimeError("the server refuses the sender")
        time.sleep(0.001)  # a message's hand-over: the others are still at work when it fails
        handled.append(item)

    with pytest.raises(RuntimeError, match="refuses the sender"):
        in_lanes(range(1000), 3, no_resources, handle, should_stop=lambda: False)
    # The others stopped after the item each had in hand.
    assert len(handled) < 500


def test_asked_to_stop_the_lanes_take_no_more_items():
    handled: list[int] = []
    assert in_lanes(range(100), 3, no_resources, lambda _lane, item: handled.append(item),
                    should_stop=lambda: len(handled) >= 10) is True
    assert 10 <= len(handled) < 100


def test_over_several_connections_everyone_gets_one_message_and_the_report_keeps_their_order(config, smtp_server):
    config = with_sections(config, email_section(smtp_server.port, MANY_READERS, connections=str(LANES)))
    pipeline.build(config, now=NOW)
    report = mailer.send(config, sleep=no_sleep)

    received = smtp_server.sink.by_recipient()
    assert sorted(received) == sorted(MANY_READERS)
    assert all(len(copies) == 1 for copies in received.values())
    assert len({item.peer for item in smtp_server.sink.received}) <= LANES
    assert report.mailings[0].sent == tuple(MANY_READERS)
    assert set(outbox_states(config).values()) == {"sent"}


@pytest.mark.slow
def test_a_sender_killed_over_several_connections_repeats_only_messages_in_flight(config, smtp_server):
    config = with_sections(config, email_section(smtp_server.port, READERS, connections=str(LANES)))
    pipeline.build(config, now=NOW)
    # Killed once the server has kept three messages, before it acknowledges the third.
    send_killed_at(config, smtp_server.sink, "on_data", 3)
    stderr = send_to_the_end(config)

    received = smtp_server.sink.by_recipient()
    assert sorted(received) == sorted(READERS)
    repeated = {address: copies for address, copies in received.items() if len(copies) > 1}
    # At most one message in flight on each connection; each repeat is the same message,
    # Message-ID and all, and is logged as a possible repeat.
    assert 1 <= len(repeated) <= LANES
    for address, copies in repeated.items():
        assert len(copies) == 2 and copies[0].raw == copies[1].raw
        assert f"{address}: the last run stopped while sending it digest" in stderr
