"""The shortcuts a mailing takes per message write the bytes the email package and smtplib
would have written."""

import re
from email.headerregistry import Address
from email.policy import SMTP

from hypothesis import given
from hypothesis import strategies as st

from newsletter.config.reader import parse_address, parsed_by_header
from newsletter.mail.message import header
from newsletter.mail.smtp import data_lines

HEADER_NAMES = ["To", "From", "Message-ID", "List-Unsubscribe", "List-Unsubscribe-Post", "Subject"]
# Printable ASCII, spaces and tabs, weighted towards what addresses and links are made of.
HEADER_TEXT = (st.text(st.sampled_from("ab.@<>:;,=?&/_-+ \t\"()\\[]%'é") | st.characters(min_codepoint=32, max_codepoint=126))
               | st.text(st.sampled_from("ab.@<>-_+"), max_size=12))


def email_package(name: str, value: object) -> bytes:
    return SMTP.fold_binary(*SMTP.header_store_parse(name, value))


@given(st.sampled_from(HEADER_NAMES), HEADER_TEXT)
def test_a_header_is_written_as_the_email_package_writes_it(name, text):
    try:
        expected = email_package(name, text)
    except Exception as exc:  # the package refuses some texts; the header must refuse them too
        expected = type(exc)
    try:
        assert header(name, text) == expected
    except Exception as exc:
        assert type(exc) is expected


def test_the_headers_of_a_mailing_are_written_as_the_email_package_writes_them():
    values = [
        ("To", Address(addr_spec="reader1@example.org")),
        ("To", Address("Grace Hopper", "grace", "example.org")),
        ("To", Address("Zoë Ünïcode", "zoe", "example.org")),
        ("To", "undisclosed-recipients:;"),
        ("Message-ID", "<2026-11-26-1.0123456789abcdef01234567@bench.example.org>"),
        ("List-Unsubscribe", "<mailto:unsubscribe@bench.example.org?subject=unsubscribe>,"
                             " <https://bench.example.org/unsubscribe?address=reader1@example.org>"),
        ("List-Unsubscribe", "<mailto:u@x.org?subject=unsubscribe>"),
        ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"),
        ("Subject", "Digest =?utf-8?q?x?= of the week"),
        ("Subject", "x" * 80),
    ]
    for name, value in values:
        assert header(name, value) == email_package(name, value), (name, value)


@given(st.binary(max_size=200) | st.lists(st.sampled_from([b"\r\n", b".", b"\n", b"\r", b"a", b".."])).map(b"".join))
def test_message_data_is_quoted_as_smtplib_quotes_it(data):
    # smtplib's rule for bytes: a "." that starts a line is doubled, then the data ends in a
    # line break and the "." line.
    quoted = re.sub(rb"(?m)^\.", b"..", data)
    expected = quoted + (b"" if quoted.endswith(b"\r\n") else b"\r\n") + b".\r\n"
    assert data_lines(data) == expected


@given(st.text(st.sampled_from("ab.@-_+"), max_size=12) | HEADER_TEXT)
def test_a_bare_subscriber_address_is_read_as_the_header_parser_reads_it(text):
    assert parse_address(text) == parsed_by_header(text)


def test_an_address_the_header_parser_trips_over_is_no_address():
    assert parse_address(".:") is None
