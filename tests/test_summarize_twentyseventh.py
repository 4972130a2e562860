"""Shapes met in the twenty-seventh and twenty-eighth held-aside sets, on invented posts: a
lynx dump of a changelog whose features' names are indented over text hanging deeper, a mail
that frames its part's name and bullets items over their own text, a dump that indents every
line (its parts' names too), forum topics whose title no line of the post echoes or that a
breadcrumb names, and bylines naming a login or a person on the date."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_dumps_indented_feature_names_over_deeper_text_are_features_of_their_groups():
    text = read("nightjar-0.9.2-lynx.txt")
    summary = summarize(text)
    # The byline names a login in lower case beside the date; the title stands above it,
    # not the skip link and the site's name joined over the menu.
    assert (summary.title, summary.author) == ("Nightjar 0.9.2 is released", "mheron")
    # A group's name bracketing a word ("(peers)") after a feature's text is a group still:
    # the line under it is indented deeper. The version line and the bugfix list are none.
    assert features(text) == [
        ("Shared answer cache", None, "Major features (resolver)"),
        ("Cache warming on start", "beta", "Major features (resolver)"),
        ("Faster handshake", None, "Major features (peers)"),
    ]


def test_a_mails_framed_part_and_items_over_their_own_text_are_features():
    text = read("nightjar-tools-2.1-announce.mail.txt")
    # "== Changes ==" names the part; the items with a paragraph hanging under them, even
    # the last of a run of one-line items, are its features; the one-line items are not.
    assert features(text) == [
        ("njctl: watch: print peer names as they join", None, "Changes"),
        ("njctl: dump: machine-readable output", "experimental", "Changes"),
        ("contrib: drop the old systemd-resolved hook", None, "Changes"),
    ]
    # The item bracketing a label is a feature, not a summary of the post.
    assert summarize(text).summary_bullets == ()


def test_a_dump_that_indents_every_line_names_its_parts_at_the_bodys_indent():
    text = read("nightjar-1.4-indented-lynx.txt")
    summary = summarize(text)
    # The byline names a person on the date, with no "by", beside a comment count.
    assert (summary.title, summary.author) == ("Nightjar 1.4 is out with a new resolver", "Mara Heron")
    # The pager and the footer, rows of links set apart by bars, are no parts.
    assert features(text) == [
        ("A shared answer cache", None, None),
        ("Peer names in the watch view", None, None),
        ("Cache warming on start", "beta", None),
    ]


def test_a_forum_topics_title_is_its_longest_line_when_the_post_echoes_none():
    text = read("nightjar-1.4-tagged-forum.txt")
    summary = summarize(text)
    # The category and its tags, set apart in columns as the menu is, are not the title.
    assert (summary.title, summary.author) == ("Nightjar 1.4: shared cache, peer names and more", "mheron")
    assert features(text) == [
        ("Shared answer cache", None, "New features"),
        ("Peer names in the watch view", None, "New features"),
    ]


def test_a_forum_breadcrumbs_last_step_repeated_under_a_label_is_the_title():
    text = read("nightjar-1.4-board-forum.txt")
    summary = summarize(text)
    # Not the line with the forum's word for a topic and its pager.
    assert summary.title == "Nightjar 1.4 rilasciato"
    assert summary.summary_bullets == ("cache condivisa tra i resolver", "nomi dei peer nella vista watch")
    # The first numbered part, right under the dashed summary list, is a part too.
    assert features(text) == [
        ("Cache condivisa", None, None),
        ("Nomi dei peer", "experimental", None),
    ]


def test_a_blog_pages_post_title_in_an_h3_and_changes_grouped_under_a_sentence():
    text = read("nightjar-2.0-blogger.html")
    summary = summarize(text)
    # The <h1> names the site; the <title> repeats the post's <h3>, the longer.
    assert summary.title == "Nightjar 2.0 and 1.9.3 released"
    # The sentence introduces the groups, not a list: "Major changes" is the first of them,
    # not a summary; of its bold-led items only the labeled one names a feature.
    assert summary.summary_bullets == ()
    assert features(text) == [("Cache warming on start", "beta", "Major changes")]


def test_a_highlights_sub_part_after_a_warning_list_holds_the_summary():
    text = read("nightjar-3.0-changes.adoc")
    # The numbered list under "What's New" warns; the "Highlights" part after it is the
    # summary.
    assert summarize(text).summary_bullets == ("A shared answer cache", "Peer names in the watch view")
    assert features(text) == [
        ("Shared answer cache", None, "Resolver"),
        ("Cache warming on start", "beta", "Resolver"),
        ("Peer names in the watch view", None, "Peers"),
    ]


def test_bold_lead_ins_that_are_a_posts_only_parts_are_its_features():
    text = read("nightjar-4.0-lead-ins.md")
    # Each bold sentence opening a paragraph names a feature, labeled or not, without its
    # stop; the one saying how to upgrade closes the post.
    assert features(text) == [
        ("A shared answer cache", None, None),
        ("Peer names in the watch view", None, None),
        ("Cache warming on start", "beta", None),
        ("The --compat mode", "deprecated", None),
    ]
    # The list among the features lists minor changes: it is no summary.
    assert summarize(text).summary_bullets == ()


def test_a_pages_outline_numbers_are_markup_not_names():
    text = read("nightjar-5.0-numbered.html")
    # "1." and "1.1" number the parts as the heading levels do: neither features nor
    # sections keep them, and the numbered "Upgrading" closes the post.
    assert features(text) == [
        ("Shared answer cache", None, "Resolver"),
        ("Cache warming on start", "beta", "Resolver"),
        ("gRPC transport", "experimental", "Peers"),
    ]


def test_the_authors_conclusion_closes_a_post_in_any_of_a_few_languages():
    text = read("nightjar-5.1-review.pt.md")
    # "Minha conclusão" after the last labeled feature is the post's close, not news.
    assert features(text) == [
        ("Cache de respostas compartilhado", None, None),
        ("Aquecimento do cache na partida", "preview", None),
    ]


def test_a_roundups_release_line_echoing_the_intro_groups_the_features_under_it():
    text = read("nightjar-roundup-w3m.txt")
    # "Nightjar Server 5.2" repeats words of the paragraph above it, as a caption would, but
    # names a release and ranks above the line under it: it groups features. (The intro's own heading, "This
    # month in Nightjar", still reads as a feature: not addressed here.)
    assert features(text)[1:] == [
        ("Shared answer cache", None, "Nightjar Server 5.2"),
        ("Cache warming on start", "beta", "Nightjar Server 5.2"),
        ("Peer names in the watch view", None, "Nightjar Server 5.3"),
        ("Machine-readable dump", None, "Command line tools 2.4"),
    ]


def test_a_copied_pages_long_feature_name_led_by_an_emoji_is_a_heading():
    text = read("nightjar-6.0-release-copy.txt")
    # Glued to its text with no blank line, the long name opening with an emoji is one
    # more feature, as its shorter peers are.
    assert features(text) == [
        ("Shared answer cache", None, None),
        ("Peer names in the watch view", None, None),
        ("gRPC transport between peers and relays for large meshes", None, None),
        ("Machine-readable dump", "experimental", None),
    ]


def test_coming_up_closes_a_post():
    text = read("nightjar-6.1-notes.md")
    assert features(text) == [
        ("Shared answer cache", None, None),
        ("Machine-readable dump", "experimental", None),
    ]
