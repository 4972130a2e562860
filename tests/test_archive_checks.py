"""The archive checks themselves catch what they look for: a check that cannot fail
proves nothing."""

import pytest
from helpers import NOW
from helpers.archive import assert_nothing_active

from newsletter import pipeline


@pytest.mark.parametrize("planted", [
    "<script>alert(1)</script>",
    '<iframe src="https://evil.example/"></iframe>',
    '<img src="x.png" onerror="alert(1)">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="java&#x09;script:alert(1)">x</a>',
    '<a href=" JAVASCRIPT:alert(1)">x</a>',
    '<img src="data:text/html,x">',
    "<style>body { background: url(PWNED) }</style>",
    '<p style="background:url(PWNED)">x</p>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
    "<svg><circle/></svg>",
])
def test_active_content_planted_in_the_index_is_caught(config, planted: str):
    pipeline.build(config, now=NOW)
    index = config.archive_dir / "index.html"
    index.write_text(index.read_text(encoding="utf-8").replace("</body>", planted + "</body>"), encoding="utf-8")
    with pytest.raises(AssertionError):
        assert_nothing_active(config.archive_dir)


def test_an_injected_header_in_a_digest_message_is_caught(config):
    pipeline.build(config, now=NOW)
    [eml] = (config.archive_dir / "digests").glob("*.eml")
    eml.write_bytes(b"Bcc: victim@example.org\r\n" + eml.read_bytes())
    with pytest.raises(AssertionError):
        assert_nothing_active(config.archive_dir)


def test_a_clean_archive_passes(config):
    pipeline.build(config, now=NOW)
    assert_nothing_active(config.archive_dir)
