"""The benchmark harness stays runnable: its corpus is what it claims, and a quick run of
the summarizer row writes both result files. No figure is asserted: timings are the
harness's business, not the test suite's."""

import json
import sys

import pytest

from bench import corpus, run


def test_the_corpus_is_deterministic_and_shaped_like_release_posts(tmp_path):
    written = corpus.write_corpus(tmp_path / "a", 3, seed=11, form="newsletter")
    corpus.write_corpus(tmp_path / "b", 3, seed=11, form="newsletter")
    posts = sorted((tmp_path / "a").iterdir())
    assert [p.read_bytes() for p in posts] == [p.read_bytes() for p in sorted((tmp_path / "b").iterdir())]
    assert written == sum(p.stat().st_size for p in posts)
    for path in posts:
        text = path.read_text(encoding="utf-8")
        assert 10_000 <= len(text.encode()) <= 42_000
        assert text.startswith("---\ntitle: ")
        assert "\nHighlights:\n- " in text and "\n## " in text and "\n### " in text
        assert "```" in text and "](https://" in text


def test_pelican_gets_the_same_body_under_its_own_header():
    post = corpus.make_post(seed=3, index=5)
    pelican, ours = corpus.to_pelican(post), corpus.to_newsletter(post)
    assert pelican.startswith(f"Title: {post.title}\nDate: ")
    assert pelican.endswith(post.body) and ours.endswith(post.body)


@pytest.mark.slow
def test_a_quick_summarizer_row_writes_both_result_files(tmp_path):
    status = run.main([
        "--quick", "--only", "summarizer", "--no-peers", "--tool-python", sys.executable,
        "--work", str(tmp_path / "work"), "--out", str(tmp_path),
    ])
    assert status == 0
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    (row,) = results["rows"]
    assert (row["benchmark"], row["size"], row["error"]) == ("summarizer", 20, "")
    assert row["ours"]["median"] > 0 and row["peer"] is None
    assert "summarizer throughput" in (tmp_path / "RESULTS.md").read_text(encoding="utf-8")
