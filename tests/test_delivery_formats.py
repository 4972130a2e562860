"""Each delivery's message stays within its service's documented limits however large the
digest, says what it left out with a link to the full digest, and lets no post's text act
as markup (a mention, a link, a tag)."""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest
from helpers import NOW
from helpers.posts import large_entry

from newsletter.deliver import discord, matrix, slack, webhook
from newsletter.deliver.content import DigestView, fit_lines
from newsletter.publish.views import entry_view

FULL = "https://digest.example.org/digests/2026-11-02-1.html"
HOSTILE = "<!channel> @everyone <script>alert(1)</script> [click](javascript:alert(1)) *bold* <@123>"


def digest_of(posts: int) -> DigestView:
    views = [entry_view(large_entry(number), "https://digest.example.org/") for number in range(posts)]
    views[0] = replace(views[0], title=HOSTILE + " " + "very long title " * 40, bullets=(HOSTILE, *views[0].bullets))
    return DigestView("2026-11-02-1", NOW, "Digest: " + "many releases " * 30, FULL, tuple(views))


@pytest.fixture(scope="module")
def big() -> DigestView:
    return digest_of(80)


def test_slack_keeps_to_50_blocks_and_3000_characters_a_section(big):
    blocks = slack.body(big)["blocks"]
    assert len(blocks) == slack.MAX_BLOCKS
    assert len(blocks[0]["text"]["text"]) <= 150
    sections = [block["text"]["text"] for block in blocks if block["type"] == "section"]
    assert all(len(text) <= 3000 for text in sections)
    assert sections[-1] == f"…and 33 more posts: <{FULL}|read the full digest>"
    assert "<!channel>" not in json.dumps(blocks) and "&lt;!channel&gt;" in sections[0]


def test_discord_keeps_to_10_embeds_6000_characters_and_2000_of_content(big):
    message = discord.body(big)
    embeds = message["embeds"]
    assert 1 <= len(embeds) <= discord.MAX_EMBEDS
    assert all(len(e["title"]) <= 256 and len(e.get("description", "")) <= 4096 for e in embeds)
    assert sum(len(e["title"]) + len(e.get("description", "")) for e in embeds) <= 6000
    assert len(message["content"]) <= 2000
    assert message["content"].endswith(f"{80 - len(embeds)} more posts in the full digest: <{FULL}>")
    assert message["allowed_mentions"] == {"parse": []}
    # Markup in a post's words is shown as written.
    assert r"\[click\](javascript:alert(1)) \*bold\* \<@123\>" in embeds[0]["description"]


def test_a_discord_digest_that_fits_is_shown_whole():
    message = discord.body(digest_of(3))
    assert len(message["embeds"]) == 3
    assert message["content"].endswith(f"Full digest: <{FULL}>")


def test_a_post_address_with_characters_a_url_may_not_hold_is_encoded():
    digest = digest_of(1)
    odd = replace(digest, entries=(replace(digest.entries[0], url="https://example.org/a b|c>d/é"),))
    expected = "https://example.org/a%20b%7Cc%3Ed/%C3%A9"
    assert discord.body(odd)["embeds"][0]["url"] == expected
    assert f"*<{expected}|" in slack.body(odd)["blocks"][2]["text"]["text"]


def test_matrix_keeps_its_event_small_and_its_html_clean(big):
    content = matrix.body(big)
    assert len(json.dumps(content, ensure_ascii=False).encode("utf-8")) <= matrix.CONTENT_BYTES < 65536
    html = content["formatted_body"]
    assert "<script" not in html and "javascript:" not in html.replace("[click](javascript:alert(1))", "")
    assert set(re.findall(r'href="([a-z]+):', html)) == {"https"}
    assert "&lt;script&gt;" in html
    shown = html.count("<p><strong><a") - 1  # the digest's own title is one
    assert content["body"].endswith(f"…and {80 - shown} more posts: {FULL}")


def test_a_webhook_carries_every_post_in_full(big):
    payload = webhook.body(big)
    assert len(payload["entries"]) == 80
    assert payload["entries"][1]["bullets"] == list(big.entries[1].bullets)
    assert sum(len(s["features"]) for s in payload["entries"][1]["sections"]) == 60


@pytest.mark.parametrize(("lines", "limit", "fitted"), [
    (["title", "one", "two"], 100, "title\none\ntwo"),
    (["title", "one", "two"], 11, "title\none\n…"),
    (["title", "one", "two"], 13, "title\none\ntwo"),
    (["a long title"], 5, "a lo…"),
])
def test_lines_are_kept_whole_or_left_out(lines, limit, fitted):
    assert fit_lines(lines, limit) == fitted
