"""Shapes met in the forty-third to forty-fifth held-aside sets, on invented posts
(merganser fixtures): a post saved as an Atom entry; a dump's site name over its menu row;
a wiki's page name over the post's own title."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import explain, summarize
from newsletter.text.parse import parse


def test_a_post_saved_as_an_atom_feed_of_one_entry():
    text = read("merganser-3.1-entry.atom")
    summary = summarize(text)
    # The entry's title, not the feed's; its author and its permalink.
    assert (summary.title, summary.author, summary.canonical_url) == (
        "Merganser 3.1: qué trae la nueva versión", "Inés Robledo", "https://merganser.example.org/blog/3-1/")
    assert summary.format == "html"
    # The content's markup is the post: its headings, labels and sections; its code's
    # comment is no heading.
    assert features(text) == [
        ("Colas persistentes", "beta", "Novedades"),
        ("Planificador por prioridades", None, "Novedades"),
        ("merganser.run_all", "deprecated", "Cambios"),
    ]


def test_an_atom_entry_with_escaped_html_content_and_a_feed_of_many_entries():
    entry = ('<entry xmlns="http://www.w3.org/2005/Atom"><title>Merganser 3.2</title>'
             '<author><name>Inés Robledo</name></author>'
             '<content type="html">&lt;h2&gt;Faster queues&lt;/h2&gt;&lt;p&gt;Queues are faster.&lt;/p&gt;'
             '&lt;h2&gt;Smaller wheels&lt;/h2&gt;&lt;p&gt;Wheels are smaller.&lt;/p&gt;</content></entry>')
    document = parse(entry)
    assert (document.format, document.meta["title"], document.meta["author"]) == ("html", "Merganser 3.2", "Inés Robledo")
    assert [f[0] for f in features(entry)] == ["Faster queues", "Smaller wheels"]
    # A feed of two entries is a list of posts, not a post: no entry's title is taken.
    feed = f'<feed xmlns="http://www.w3.org/2005/Atom"><title>Planet</title>{entry}{entry}</feed>'
    assert parse(feed).meta.get("title") != "Merganser 3.2"


def test_a_discussion_whose_posts_head_the_login_over_the_date_and_role():
    text = read("merganser-3.3-discussion.txt")
    summary = summarize(text)
    # The topic's title, not the site's line above it; the first poster, not a reply's.
    assert (summary.title, summary.author) == ("Merganser 3.3 is out 🦆", "ines-r")
    # The post keeps its source's bold: each bold lead names a change, its code marks
    # gone; the sort buttons over the replies and the reply's bold lead are no part of it.
    assert features(text) == [
        ("queue.drain() waits for retries", None, None),
        ("Scheduler: cron expressions with seconds", None, None),
        ("Lighter wheels", None, None),
        # A bold clause its sentence goes on from after a comma, right after them, is one more.
        ("Python 3.9 is no longer supported", None, None),
    ]


def test_a_dumps_site_name_over_its_menu_row_is_not_the_title():
    text = ("Merganser\nBlog • Docs • Guides • Forum • GitHub\n\n━━━━━━━━━━━━━━━━━━━━━━━━\n\n"
            "Merganser 4.0\n\nMay 2, 2026\nInés Robledo and Tomasz Kowal\n\n"
            "Merganser 4.0 is here. It brings persistent queues and a new scheduler.\n\n"
            "Queues\n\nPersistent queues\n\nQueues survive a restart of the server.\n\n"
            "Scheduler\n\nPriorities\n\nUrgent jobs now run before the others.\n")
    assert summarize(text).title == "Merganser 4.0"


def test_a_wikis_page_name_over_the_pages_own_title():
    text = ("   [1]Merganser  [2]Home  [3]Downloads  [4]Wiki\n\n"
            "                             ReleaseNotes402\n\n"
            "   Merganser 4.0.2 Release Notes\n\n"
            "New Features\n\n"
            "  Queue drain timeout\n\n   A drain may now give up after a timeout.\n\n"
            "  Scheduler jitter\n\n   Jobs may start a little apart to spread the load.\n")
    summary = summarize(text)
    assert summary.title == "Merganser 4.0.2 Release Notes"
    # A page name that its title does not spell out is kept: nothing says it is one.
    other = text.replace("ReleaseNotes402", "QueueNotes402")
    assert summarize(other).title == "QueueNotes402"


def test_what_to_remember_introduces_the_highlights_and_tips_and_upgrading_are_no_features():
    text = read("merganser-3.4-fr-w3m.txt")
    summary = summarize(text)
    assert summary.summary_bullets == ("les files survivent à un redémarrage ;", "un planificateur par priorités.")
    # The tip of the month and the upgrade steps are no news.
    assert features(text) == [
        ("Files persistantes", "beta", "Nouveautés"),
        ("Planificateur par priorités", None, "Nouveautés"),
    ]


def test_a_label_naming_the_highlights_outranks_a_sentence_saying_what_the_release_includes():
    summary = summarize(read("merganser-3.5.mail.txt"))
    assert summary.summary_bullets == ("queues drain without losing retried jobs;",
                                       "the scheduler accepts seconds in cron expressions.")
    # With no label after it, the sentence's list is the highlights still.
    alone = read("merganser-3.5.mail.txt").replace("Highlights of this release:", "And more:")
    assert summarize(alone).summary_bullets[0] == "merganser-core, the queue engine, and"


def test_a_changesets_changelog_credits_its_items_and_sorts_them_into_kinds_of_change():
    text = read("merganser-CHANGELOG.md")
    summary = summarize(text)
    # "Major Changes" is one of the release's kinds of change, beside "Minor" and "Patch":
    # no list of highlights.
    assert summary.summary_bullets == ()
    # The commit, the pull request and the thanks before an item's bold name do not hide
    # it: the labeled items are the features.
    assert features(text) == [
        ("queue.peek()", "experimental", "Minor Changes"),
        ("queue.pause()", "beta", "Minor Changes"),
    ]


def test_at_a_glance_in_korean_labels_the_highlights():
    text = ("<div class='post'><h1>Merganser 4.0 출시</h1><p>Merganser 4.0이 출시되었습니다.</p>"
            "<p><strong>한눈에 보기</strong></p><ul><li>영구 큐 기본 활성화</li><li>Node 18 지원 종료</li></ul>"
            "<h2>큐</h2><h3>영구 큐</h3><p>서버를 다시 시작해도 큐가 유지됩니다.</p>"
            "<h3>큐 미리 보기</h3><p>작업을 꺼내지 않고 다음 작업을 봅니다.</p></div>")
    summary = summarize(text)
    assert summary.summary_bullets == ("영구 큐 기본 활성화", "Node 18 지원 종료")
    assert [f[0] for f in features(text)] == ["영구 큐", "큐 미리 보기"]


def test_two_parts_naming_their_features_and_nothing_more():
    text = read("merganser-3.6-ca.md")
    assert features(text) == [
        ("Cues persistents", None, "Novetats"),
        ("Planificador per prioritats", None, "Novetats"),
        ("Node 20 com a mínim", None, "Canvis"),
        ("Eliminada l'API antiga de cues", None, "Canvis"),
    ]
    # A part may name one feature beside a part naming two (a dialect over its one change).
    assert [f[0] for f in features(text.replace("### Node 20 com a mínim\n\n", ""))] == [
        "Cues persistents", "Planificador per prioritats", "Eliminada l'API antiga de cues"]
    # One part of bare names alone may be a page whose text was lost: no news is read in it.
    one_part = text[:text.index("## Canvis")] + text[text.index("## Com actualitzar"):]
    assert features(one_part) == []


def test_a_scrapes_line_that_a_highlight_names_is_a_feature_whatever_its_text_says():
    text = ("Merganser 3.8 released\n\nMerganser 3.8 is out today, with three changes worth a word.\n\n"
            "The headline items:\n\n1. Drain timeouts are on by default\n2. Persistent queues\n\n"
            "Features\n\n"
            "Persistent queues (beta)\nQueues survive a restart of the server.\n\n"
            "Drain timeouts\nA stuck job no longer holds a shutdown forever.\n\n"
            "Lighter wheels\nThe wheels drop bundled test data.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ("Drain timeouts are on by default", "Persistent queues")
    assert [f.heading for f in summary.features] == ["Persistent queues", "Drain timeouts", "Lighter wheels"]


def test_a_rest_changelog_whose_version_headings_are_links_reads_as_rest():
    text = read("merganser-changelog.rst")
    assert parse(text).format == "text"
    summary = summarize(text)
    assert summary.title == "Changelog"
    # Plain changelog items are no features, and a version's heading reads as its text,
    # not as code with its link's address.
    assert features(text) == []
    assert all("https://" not in role.text for role in explain(text))


def test_a_copied_release_page_glues_a_tagged_features_name_to_its_text():
    text = ("v3.9.0 Latest\n@ines-r ines-r released this May 3\n\nFeatures\n\n"
            "Persistent queues\n\nQueues survive a restart of the server.\n\n"
            "[Beta] Priority scheduling\nSet priority: high to run a job before the others.\n\n"
            "Full Changelog: v3.8.0...v3.9.0\n")
    assert features(text) == [("Persistent queues", None, "Features"), ("Priority scheduling", "beta", "Features")]


def test_a_bare_name_over_an_aside_among_features_is_one_more():
    text = ("<html><body><article><h1>Merganser 4.0: tot el que cal saber</h1><p>Merganser 4.0 ja és aquí.</p>"
            "<h2>Cues persistents</h2><p>Les cues sobreviuen a un reinici del servidor.</p>"
            "<h2>Planificador reescrit</h2>"
            "<h2>Node 20 com a requisit mínim</h2><h4>Un consell</h4><p>Actualitzeu primer a la 3.9.</p>"
            "<h2>Com actualitzar</h2><p>Seguiu la guia.</p></article></body></html>")
    assert [f[0] for f in features(text)] == ["Cues persistents", "Planificador reescrit", "Node 20 com a requisit mínim"]


def test_a_heading_inside_a_component_named_for_an_explanation_is_an_aside():
    text = ("---\ntitle: Merganser 4.1\n---\n\nMerganser 4.1 is out.\n\n"
            "## Priority scheduling [beta]\n\nUrgent jobs run first.\n\n"
            '<DetailedExplanation title="Why not a second queue?">\n\n'
            "#### Two queues drift apart\n\nA second queue needs its own workers.\n\n</DetailedExplanation>\n\n"
            "## Lighter wheels\n\nThe wheels are half the size.\n")
    assert features(text) == [("Priority scheduling", "beta", None), ("Lighter wheels", None, None)]


def test_parts_counted_in_chinese_numerals_go_without_them():
    text = ("<html><body><article><h1>Merganser 4.0 发布</h1><p>Merganser 4.0 正式发布。</p>"
            "<h2>一、队列</h2><h3>持久化队列（预览）</h3><p>重启后队列不丢失。</p>"
            "<h3>优先级调度</h3><p>紧急任务优先执行。</p>"
            "<h2>二、部署</h2><h3>更小的安装包</h3><p>安装包缩小一半。</p></article></body></html>")
    assert features(text) == [
        ("持久化队列", "preview", "队列"),
        ("优先级调度", None, "队列"),
        ("更小的安装包", None, "部署"),
    ]
    # A count that does not run in order is part of the headings' names.
    assert features(text.replace("二、部署", "三、部署"))[2] == ("更小的安装包", None, "三、部署")
