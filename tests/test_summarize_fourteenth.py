"""Shapes met in the fourteenth held-aside set, on invented posts (jacana-5.0 fixtures): a
code fence inside a call-out box, Hindi labels and cues, a mailing-list announcement whose
features stand over indented text under underlined parts, a browser copy of a release page
whose headings sit right above their text, and labels CJK qualifies without a space."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import split_label, summarize


def test_a_fence_in_a_call_out_box_holds_no_heading():
    summary = summarize(read("jacana-5.0-hi.md"))
    # The "# ..." comment in the box's shell fence neither heads a part nor ends the post.
    assert features(read("jacana-5.0-hi.md")) == [
        ("डिस्क कैश", "experimental", "नई सुविधाएँ"),
        ("प्लगइन API", "beta", "नई सुविधाएँ"),
        ("jacana-old आदेश", "deprecated", "नई सुविधाएँ"),
    ]
    # "मुख्य बातें:" (the main points) introduces the list; its items end in a danda.
    assert summary.summary_bullets == ("पूरे पाठ की खोज अब दोगुनी तेज़ है।", "डिस्क पर एक नया कैश।",
                                       "प्लगइन के लिए सरल API।")


def test_a_mails_features_over_indented_text_under_underlined_parts():
    summary = summarize(read("jacana-5.0-announce.txt"))
    assert features(read("jacana-5.0-announce.txt")) == [
        ("Batch scheduler rewrite", None, "Changes in 5.0"),
        ("Remote cache support", "experimental", "Changes in 5.0"),
        ("Legacy job files", "deprecated", "Changes in 5.0"),
    ]
    # "ships, among many others:" introduces what the release brings, not the mirrors' list.
    assert summary.summary_bullets == ("SQLite 3.47 and zstd 1.5", "A rewritten scheduler for batch jobs",
                                       "Python 3.13 bindings for every module")


def test_a_hanging_indent_under_underlined_parts_is_one_paragraph():
    text = ("Notes\n=====\n\nNews\n----\n\n"
            "[1] Counted are not only the commits but the reports and reviews that\n"
            "    the tracker records.\n\nMore text here.\n")
    assert not [f for f in features(text) if f[0].startswith("[1]")]


def test_a_copied_release_page_with_headings_right_above_their_text():
    summary = summarize(read("jacana-5.0-release.txt"))
    assert features(read("jacana-5.0-release.txt")) == [
        ("Ordered batch scheduler", None, "New features"),
        ("Remote cache", "preview", "New features"),
        ("Job templates", "beta", "New features"),
        ("Legacy job files", "deprecated", "Deprecations"),
    ]
    assert summary.summary_bullets == ("Faster start-up on large worker pools", "Fewer rebuilds across machines")
    # The tag and commit indented under the byline are a row of the page, no headings.
    assert (summary.title, summary.author) == ("v5.0.0", "rmehta")


def test_a_wrapped_paragraph_is_no_heading_over_its_text():
    # Its first line is filled to the column: the next word would not have fit.
    text = ("Notes for the release\n\nThe scheduler now starts jobs in the order that they were\n"
            "queued.\n\nCaches are shared across the hosts of one pool of busy\nworkers.\n")
    assert not [f for f in features(text) if f[0].startswith(("The scheduler", "Caches"))]


def test_labels_in_hindi_norwegian_and_cjk_with_an_unspaced_qualifier():
    assert split_label("खोज सूचकांक (प्रायोगिक)") == ("खोज सूचकांक", "experimental")
    assert split_label("[बीटा] प्लगइन") == ("प्लगइन", "beta")
    assert split_label("Gammel eksport (utfaset)") == ("Gammel eksport", "deprecated")
    assert split_label("全局缓存（实验特性）") == ("全局缓存", "experimental")


def test_closing_parts_in_more_languages_are_no_features():
    for closing in ("Slik oppgraderer du", "다음 단계", "All resolved issues", "Helpful links for new users",
                    "अपग्रेड कैसे करें", "धन्यवाद"):
        text = (f"# Jacana 5.0\n\n## New features\n\n### Remote cache (beta)\n\nShared caches.\n\n"
                f"## {closing}\n\nSee the docs.\n")
        assert [f[0] for f in features(text)] == ["Remote cache"], closing


def test_reading_a_copy_with_glued_headings_and_boxed_fences_is_linear():
    def make(k: int) -> str:
        parts = "".join(f"Part {i} title\nThe text of part {i} says what changed in it.\n\n" for i in range(60 * k))
        return f"Jacana 5.0\n\n{parts}"

    assert_linear(summarize, make)

    def make_boxes(k: int) -> str:
        box = ":::tip Try it\n\n```sh\n# a comment\nrun it\n```\n\n:::\n\n"
        return "# Jacana 5.0\n\n" + box * (60 * k) + "## News\n\nText.\n"

    assert_linear(summarize, make_boxes)
