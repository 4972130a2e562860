"""Shapes met in the twenty-third to twenty-sixth held-aside sets, on invented posts: a mail
whose upper-case parts bullet their features' names over indented text, forum topics copied as
text (column and "»" headers), a roundup whose headings stand over headings, a docs page that
marks its article body, a release page's name joined to its byline, a Catalan byline, a summary
part past a changelog's notes, and closing parts in more languages."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import explain, summarize


def test_a_mails_bulleted_names_over_indented_text_under_underlined_parts_are_features():
    text = read("shrike-3.0-announce.mail.txt")
    # The subject's list tag and the sender's "ANNOUNCE:" tag are not the title.
    assert summarize(text).title == "Shrike 3.0 is out"
    # A label in the middle of the name goes, its halves joined; the known problems are a
    # plain list: no features.
    assert features(text) == [
        ("Split panes", None, "EDITING"),
        ("Outline sidebar", "beta", "EDITING"),
        ("Vim key bindings", "deprecated", "EDITING"),
        ("Conflict-free merges", None, "SYNC"),
        ("End-to-end encryption", None, "SYNC"),
    ]


def test_a_forum_topic_with_column_headers_is_its_first_post():
    text = read("shrike-3.0-columns-forum.txt")
    summary = summarize(text)
    # The title is the line above the header that the first paragraph echoes, not the
    # forum's name; the poster is the header's login.
    assert (summary.title, summary.author) == ("Shrike 3.0 is out", "olu_a")
    # The post's indented body is read as a text of its own: the replies and the related
    # topics under it are not the post.
    assert features(text) == [
        ("Split panes", None, "Editing"),
        ("Outline sidebar", "beta", "Editing"),
        ("Conflict-free merges", None, "Sync"),
    ]


def test_a_forum_topic_with_pointed_headers_is_its_first_post():
    text = read("shrike-3.0-board-forum.txt")
    summary = summarize(text)
    # The post's subject under its header repeats the topic's title.
    assert (summary.title, summary.author) == ("Shrike 3.0 is out", "olu_a")
    # The list indented under "the short version:" ends where the numbered parts begin at
    # the margin; the parts lose their numbers; the reply quoting item 1 is not the post.
    assert summary.summary_bullets == ("Split panes", "Syncing without conflicts")
    assert features(text) == [
        ("Split panes", None, None),
        ("Outline sidebar", "beta", None),
        ("Conflict-free merges", None, None),
    ]


def test_one_column_header_alone_is_no_forum_topic():
    # Without a second post's header the text is read as it stands.
    text = read("shrike-3.0-columns-forum.txt").split("    4 Likes")[0]
    assert summarize(text).author != "olu_a"


def test_a_roundup_under_front_matter_whose_headings_stand_over_headings_is_markdown():
    # No heading has prose under it: a site generator's body is Markdown all the same. Each
    # release's version heading groups its features.
    text = read("shrike-monthly-roundup.md")
    assert summarize(text).format == "markdown"
    assert features(text) == [
        ("Split panes", None, "Shrike 3.0.0"),
        ("Outline sidebar", "beta", "Shrike 3.0.0"),
        ("Nested tags", None, "Shrike 3.1.0"),
        ("Legacy sync server", "deprecated", "Shrike 3.1.0"),
        ("shrike-export 0.2: PDF output", None, "Elsewhere"),
    ]


def test_a_docs_page_marking_its_article_body_nests_short_sections_around_code():
    # Each section holds one short paragraph while a code block holds more text: the
    # article is the element marked as the article's body, not the densest block.
    text = read("shrike-3.0-docs-ja.html")
    assert summarize(text).title == "Shrike 3.0 の新機能"
    # Known issues, in the post's language, are no news.
    assert features(text) == [
        ("分割ペイン", None, "編集"),
        ("アウトライン表示", "beta", "編集"),
        ("競合のないマージ", None, "同期"),
    ]


def test_a_release_pages_name_joined_to_its_byline_is_the_title_not_its_tag():
    # The breadcrumb ends in the tag; the release's own name stands by its badge.
    summary = summarize(read("shrike-3.0-release-page.txt"))
    assert (summary.title, summary.author) == ('Shrike "Butcherbird" 3.0', "olu-a")
    # A button the dump joins after the badge goes too.
    text = read("shrike-3.0-release-page.txt").replace("3.0 Latest", "3.0 Latest Compare")
    assert summarize(text).title == 'Shrike "Butcherbird" 3.0'


def test_a_catalan_byline_under_a_lynx_dumps_centered_title():
    summary = summarize(read("shrike-3.0-ca-lynx.txt"))
    # "Publicat per ... el <date>" names the author; the title stands above it, not the
    # row of links over them.
    assert (summary.title, summary.author) == ("Shrike 3.0: les novetats", "Marta Vidal")
    assert summary.summary_bullets == ("finestres dividides;", "sincronització sense conflictes.")
    # A labeled line over code alone, after another feature's text, names one more feature.
    assert features(read("shrike-3.0-ca-lynx.txt")) == [
        ("Finestres dividides", None, "Edició"),
        ("Esquema lateral", "beta", "Edició"),
        ("Sincronització paral·lela", "experimental", "Edició"),
    ]


_CLOSING = ("Conclusão", "Conclusioni", "Mon avis", "Какво следва в изданието", "후원", "Reporting bugs",
            "Како надоградити", "Захвалнице", "既知の問題", "Nota", "Cómo compilar", "Contributed PRs",
            "Reader corner", "Da leggere nel weekend")


def test_closing_parts_and_asides_in_more_languages():
    # Each closes the post (or sets an aside apart) after its two features.
    text = "# Shrike 3.1\n\n## Delt cache [beta]\n\nCachen deles.\n\n## Hurtigere start\n\nStarten er hurtig.\n\n"
    text += "".join(f"## {heading}\n\nKør kommandoen.\n\n" for heading in _CLOSING)
    roles = {role.text: role.role for role in explain(text)}
    assert [heading for heading in _CLOSING if roles[heading] != "skipped"] == []
    assert [f.heading for f in summarize(text).features] == ["Delt cache", "Hurtigere start"]


def test_a_norwegian_in_short_label_introduces_the_highlights():
    text = ("# Shrike 3.1\n\nSkrevet av Ola.\n\n**Kort oppsummert**\n\n1. Cachen deles mellom maskiner.\n"
            "2. Starten er dobbelt så rask.\n\n## Delt cache\n\nCachen deles.\n\n## Raskere start\n\nStarten er rask.\n")
    assert summarize(text).summary_bullets == ("Cachen deles mellom maskiner.", "Starten er dobbelt så rask.")


def test_a_summary_part_past_the_opening_notes_holds_the_highlights():
    text = ("# Release v3.1.0\n\n## Notes\n\nThanks to everyone who filed issues! Grab the latest build.\n\n"
            "## TL;DR\n\nIn this drop:\n\n1. panes split;\n2. merges need no prompt;\n3. tags nest.\n\n"
            "## New Features\n\n### Split panes\n\nTwo notes side by side.\n\n### Nested tags (beta)\n\nTags nest.\n")
    assert summarize(text).summary_bullets == ("panes split;", "merges need no prompt;", "tags nest.")
    assert features(text) == [("Split panes", None, "New Features"), ("Nested tags", "beta", "New Features")]


def test_a_short_last_part_that_a_highlight_names_is_news_not_a_closing_note():
    text = ("# Shrike 3.1\n\nHighlights:\n\n- split panes;\n- Android builds stop here.\n\n"
            "## Editing\n\n### Split panes\n\nTwo notes side by side.\n\n### Nested tags\n\nTags nest.\n\n"
            "## Sync\n\n### Merges\n\nNo prompts.\n\n### Keys (beta)\n\nRotated.\n\n"
            "## Android\n\nNo more updates.\n\n## Thanks\n\nTo every tester.\n")
    assert features(text)[-1] == ("Android", None, None)
    # Unnamed by any highlight, the same short part closes the post with the thanks.
    assert features(text.replace("Android builds", "Mobile builds"))[-1] == ("Keys", "beta", "Sync")


def test_russian_labels_in_their_neuter_forms():
    text = ("# Shrike 3.1\n\n## Новое\n\n### Разделённые панели (стабильно)\n\nДве заметки рядом.\n\n"
            "### Вложенные метки (экспериментально)\n\nМетки вкладываются.\n")
    assert features(text) == [("Разделённые панели", "stable", "Новое"),
                              ("Вложенные метки", "experimental", "Новое")]
