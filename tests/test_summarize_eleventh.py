"""Shapes met in the eleventh held-aside set, on invented posts: features as the terms of a
definition list or as cards with their tag over the heading, Arabic labels, closing parts
told by where they stand, a component's one-item list, short highlights that name the
parts, a dump's title under the site's header, a reST title overlined with asterisks."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import explain, split_label, summarize
from newsletter.text.parse import parse


def roles(text: str) -> dict[str, tuple[str, str]]:
    return {role.text: (role.role, role.reason) for role in explain(text)}


def test_the_terms_of_a_definition_list_that_is_a_parts_body_are_its_features():
    text = read("bittern-2.0-terms.html")
    # Right under the heading, or under the sentence introducing it; labels inside the term
    # (an edge badge or brackets) go as on any heading.
    assert features(text) == [
        ("Fair queues", None, "New in the scheduler"),
        ("Retry budgets", "experimental", "New in the scheduler"),
        ("Cron triggers", "preview", "New in the scheduler"),
        ("bittern sweep", "deprecated", "Removed"),
    ]


def test_a_definition_list_after_the_parts_prose_stays_text():
    blocks = parse(read("bittern-2.0-terms.html")).blocks
    headings = [block.text for block in blocks if type(block).__name__ == "Heading"]
    assert "Tenant" not in headings
    assert "Glossary" in headings


def test_a_definition_list_whose_terms_lack_descriptions_stays_text():
    text = "<h1>Bittern 2.0</h1><h2>Changes</h2><dl><dt>Fair queues</dt><dt>Cron triggers</dt></dl>"
    assert [block.text for block in parse(text).blocks] == ["Bittern 2.0", "Changes", "Fair queues", "Cron triggers"]


def test_a_cards_tag_standing_before_its_heading_labels_it_and_a_category_link_does_not():
    text = read("bittern-2.0-ar.html")
    assert features(text) == [
        ("طوابير عادلة", "beta", "الجديد"),
        ("ميزانيات إعادة المحاولة", "experimental", "الجديد"),
        ("عميل أخف", None, "الجديد"),
        ("الأمر bittern sweep", "deprecated", "الإزالة"),
    ]
    # The category link opening the third card stays a paragraph of the page.
    assert "أخبار" in [block.text for block in parse(text).blocks]


@pytest.mark.parametrize(("label", "stability"), [
    ("(تجريبي)", "experimental"), ("[مهمل]", "deprecated"), ("(بيتا)", "beta"), ("[مستقر]", "stable"),
    ("(معاينة)", "preview"),
])
def test_maturity_labels_in_arabic(label, stability):
    assert split_label(f"مزامنة أسرع {label}") == ("مزامنة أسرع", stability)


def test_a_short_part_between_the_parts_of_features_and_the_thanks_closes_the_post_whatever_its_words():
    text = read("bittern-2.0-sk.md")
    assert features(text) == [
        ("Spravodlivé fronty", None, "Plánovač"),
        ("Rozpočty opakovaní", "experimental", "Plánovač"),
        ("Ľahší klient", None, "Klient"),
    ]
    # Its words are in no list: it stands, a line long, between the parts and the thanks.
    assert roles(text)["Prechod na novú verziu"] == ("skipped", "closing part: a line before the post's closing part")
    assert roles(read("bittern-2.0-ar.html"))["كيفية الانتقال"][0] == "skipped"


def test_a_part_after_the_groups_that_tells_or_lists_its_news_or_stands_apart_from_the_close_stays_a_feature():
    told = "A scheduler that no longer lets one tenant starve the others, however many jobs it sends. " * 2
    text = ("# Bittern 2.0\n\n## Scheduler\n\n### Fair queues\n\nText.\n\n## Client\n\n### Lighter client\n\nText.\n\n"
            f"## Better scheduling\n\n{told}\n\n## Smaller binaries\n\nBinaries are a third smaller.\n\n"
            "## Platforms\n\n- Linux on RISC-V\n- FreeBSD 14\n\n## Kernel 6.11\n\n"
            "## Rolling out\n\nMove one node at a time.\n\n## Thanks\n\nThanks to all who tested it.\n")
    headings = [heading for heading, _, _ in features(text)]
    # Told at length, listed, a bare name among bare names, or a line away from the close:
    # news. A line right before the thanks: the post's close.
    assert headings == ["Fair queues", "Lighter client", "Better scheduling", "Smaller binaries", "Platforms",
                        "Kernel 6.11"]


def test_a_post_with_one_part_of_features_keeps_the_parts_after_it():
    text = "# Bittern 2.0\n\n## New\n\n### Fair queues\n\nText.\n\n## Faster start\n\nIt starts at once.\n"
    assert features(text) == [("Fair queues", None, "New"), ("Faster start", None, None)]


def test_a_components_one_item_list_beside_groups_of_features_is_no_summary():
    text = read("bittern-2.0-notes.rst")
    summary = summarize(text)
    assert summary.summary_bullets == ()
    # The overline and underline of asterisks frame the title; none of them stays on it.
    assert summary.title == "Bittern 2.0 Release Notes"
    assert ("Lighter client", "experimental", "Client") in features(text)


def test_short_highlights_that_each_name_a_part_below_are_the_summary():
    summary = summarize(read("bittern-2.0-sk.md"))
    assert summary.summary_bullets == ("spravodlivé fronty,", "rozpočty opakovaní pre úlohy,", "ľahší klient.")


def test_short_names_that_name_no_part_below_are_no_summary():
    text = ("# Bittern 2.0\n\nBittern 2.0 comes in three editions this year, for every size of team:\n\n"
            "- Community\n- Team\n- Enterprise\n\n## Fair queues\n\nText.\n\n## Lighter client\n\nText.\n")
    assert summarize(text).summary_bullets == ()


def test_a_dumps_title_and_dated_byline_under_the_sites_header():
    summary = summarize(read("bittern-2.0-w3m.txt"))
    assert (summary.title, summary.author) == ("Bittern 2.0 is out", "Ada Quill")
    assert [f.heading for f in summary.features] == ["Fair queues", "Lighter client"]


def test_an_undated_pair_of_short_lines_under_a_header_is_no_title():
    text = ("Bittern\n\n• Home\n• Blog\n\nSign in\nRegister\n\nBittern 2.0 brings fair queues. It is out today.\n\n"
            "Fair queues\n\nQueues are fair now.\n")
    assert summarize(text).title != "Sign in"


@pytest.mark.parametrize("make", [
    lambda k: "<h1>T</h1>" + ("<h2>Part</h2><dl>" + "<dt>Term</dt><dd>Text.</dd>" * 20 + "</dl>") * 100 * k,
    lambda k: "<h1>T</h1><h2>New</h2>" + '<div class="card"><span>(beta)</span><h3>Card</h3><p>Text.</p></div>'
    * 3000 * k,
    lambda k: "# T\n\n" + "## Group\n\n### Feature\n\nText.\n\n" * 600 * k + "## Closing\n\nA line.\n\n" * 600 * k,
], ids=["terms", "cards", "closing-parts"])
def test_eleventh_set_rules_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


def test_a_component_part_stating_its_own_change_among_parts_that_only_group_is_a_feature():
    text = ("# Bittern 2.0\n\n## New queues\n\n### Fair queue\n\nText.\n\n### Delay queue\n\nText.\n\n"
            "## New commands\n\n### bittern drain\n\nText.\n\n"
            "## Sync\n\nSync left beta and now keeps a journal.\n\n### --mode flag\n\nText.\n\n### --lock (deprecated)\n\n"
            "Text.\n")
    assert features(text)[-3:] == [("Sync", None, None), ("--mode flag", None, "Sync"), ("--lock", "deprecated", "Sync")]
    # A part named by a sentence groups what stands under it, however it opens.
    sentence = text.replace("## Sync\n", "## Sync now keeps a journal of every run\n")
    assert "Sync now keeps a journal of every run" not in [heading for heading, _, _ in features(sentence)]


def test_an_invitation_to_try_and_a_two_word_projects_description_close_the_post():
    text = ("# Bittern 2.0\n\n## Fair queues (beta)\n\nText.\n\n## Try it out!\n\nRun the installer.\n\n"
            "## About Open Bittern\n\nOpen Bittern is a job scheduler for small teams.\n")
    assert features(text) == [("Fair queues", "beta", None)]
