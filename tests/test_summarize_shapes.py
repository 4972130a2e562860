"""Shapes of release posts beyond the seeds' own: site-generator Markdown extensions,
decorated headings, sub-features and asides, grouping names. Every post here is invented."""

from __future__ import annotations

import pytest
from helpers.linear import assert_linear
from helpers.shapes import SHAPES, features

from newsletter.summarize import explain, split_label, summarize
from newsletter.text.encoding import decode
from newsletter.text.outline import Paragraph
from newsletter.text.parse import parse


def test_heading_attributes_and_extension_lines_stay_out_of_the_text():
    text = ("## Faster sync {#faster-sync}\n\n:::tip\nA tip.\n:::\n\n<Tabs>\n<TabItem value=\"a\">\n\n"
            "Text in a tab.\n\n</TabItem>\n</Tabs>\n\n{style=\"note\"}\n\n"
            "## Quieter logs {collapsible=\"true\"}\n\n{{< figure src=\"a.png\" >}}\n\nText.\n")
    assert features(text) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_leading_emoji_is_decoration_and_a_qualified_label_still_labels():
    assert split_label("🚀 Faster builds (Preview support)") == ("Faster builds", "preview")
    assert split_label("1️⃣ First-class secrets") == ("First-class secrets", None)
    assert split_label("Vault (Generally available)") == ("Vault", "stable")
    assert split_label("Safer defaults (Breaking change)") == ("Safer defaults (Breaking change)", None)


def test_markdown_comment_declares_the_title():
    assert summarize("[//]: # (title: What is new in Lumen 2)\n\n## A\n\nText.\n").title == "What is new in Lumen 2"


def test_comment_inside_a_list_item_is_read_around():
    text = "# T\n\n## A\n\nText.\n\n* one <!--\n--> item\n* two\n"
    assert features(text) == [("A", None, None)]


def test_part_with_its_own_text_over_sub_features_is_both():
    text = ("# T\n\n## Runtime\n\n### Faster collector\n\nThe collector got faster in two ways:\n\n"
            "#### Parallel marking\n\nText.\n\n#### Bigger chunks\n\nText.\n\n### Smaller binaries\n\nText.\n")
    assert features(text) == [("Faster collector", None, "Runtime"), ("Parallel marking", None, "Faster collector"),
                              ("Bigger chunks", None, "Faster collector"), ("Smaller binaries", None, "Runtime")]


def test_asides_instructions_and_closing_parts_hold_no_features():
    text = ("# T\n\n## Gradle plugin\n\nText.\n\n### How to enable it\n\n#### In Gradle\n\nText.\n\n"
            "### Set up the hierarchy\n\nText.\n\n### Example usage\n\nText.\n\n"
            "## Install 2.0\n\n### Check the IDE version\n\nText.\n\n"
            "## Can I help?\n\n### Translations\n\nText.\n")
    assert features(text) == [("Gradle plugin", None, None)]


def test_undecorated_asides_under_decorated_features():
    text = ("# T\n\n## 🚀 Deploy\n\n### 🐳 Compose files\n\nText.\n\n#### 🛠️ Customize services\n\nText.\n\n"
            "#### Most apps need one\n\nText.\n\n### 🔑 Secrets\n\nText.\n")
    assert features(text) == [("Compose files", None, "Deploy"), ("Customize services", None, "Compose files"),
                              ("Secrets", None, "Deploy")]


def test_leaf_features_beside_grouping_parts_and_generic_names():
    text = ("# T\n\n## TL;DR\n\nShort.\n\n## New navigation\n\nText.\n\n## Dashboards\n\n### Empty state\n\nText.\n\n"
            "## Overview video\n\n## Highlights from 1.0\n\n- old one\n- old two\n\n## Other changes\n\n"
            "### Fewer warnings\n\nText.\n")
    assert features(text) == [("New navigation", None, None), ("Empty state", None, "Dashboards"),
                              ("Fewer warnings", None, "Other changes")]


def test_version_bound_upgrade_steps_and_media_only_parts_are_not_features():
    text = ("# T\n\n## Upgrade to 3.1\n\nRun the updater.\n\n## Install hooks\n\nText.\n\n"
            "## Overview video\n\nSee it all in the video below:\n\n## (Beta) Faster sync\n\nText.\n\n"
            "### Current limitations (Preview)\n\nText.\n")
    assert features(text) == [("Install hooks", None, None), ("Faster sync", "beta", None)]


def test_a_single_name_under_a_decorated_feature_is_a_sub_feature():
    text = ("# T\n\n## 🧩 Model\n\n### 🔔 New events\n\nTwo new events:\n\n#### `ResourceAddedEvent`\n\nText.\n\n"
            "#### `ResourceRemovedEvent`\n\nText.\n")
    assert features(text) == [("New events", None, "Model"), ("ResourceAddedEvent", None, "New events"),
                              ("ResourceRemovedEvent", None, "New events")]


def test_table_of_contents_and_pagination_are_navigation():
    text = ("# T\n\n## Table of contents\n\n* [A](#a)\n* [B](#b)\n\n## A\n\nText.\n\n## B\n\nText.\n\n"
            "## ← Previous post · Next post →\n\n### Older release\n\nText.\n")
    assert features(text) == [("A", None, None), ("B", None, None)]


def test_scrape_furniture_above_the_title_and_a_wrapped_title():
    text = ("Site logo\n\n  • Home\n  • Blog\n  • Docs\n\nOn this post\n\n  • Faster sync\n  • Quieter logs\n\n"
            "Lumen 2.0 released: faster sync, quieter logs, a new planner and a lot\nmore besides\n\n"
            "March 3, 2025 · by Ada Lovelace · in Releases\n\nLumen 2.0 is out with news on sync.\n\n"
            "Faster sync\n\nSync is faster now for every lumen user.\n\nQuieter logs\n\nLogs are quieter now.\n")
    summary = summarize(text)
    assert summary.title == "Lumen 2.0 released: faster sync, quieter logs, a new planner and a lot more besides"
    assert summary.author == "Ada Lovelace"
    assert summary.summary_bullets == ()
    assert features(text) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_list_introduced_as_something_else_is_not_the_highlights():
    text = "# Lumen 2.0\n\nLumen 2.0 supports:\n\n- Python 3.12\n- Python 3.13\n\n## A\n\nText.\n"
    assert summarize(text).summary_bullets == ()
    cued = "# Lumen 2.0\n\nThis release includes:\n\n- Faster sync\n- Quieter logs\n\n## A\n\nText.\n"
    assert summarize(cued).summary_bullets == ("Faster sync", "Quieter logs")


def test_rest_whats_new_page_framing_parts_and_roles():
    assert summarize(summary_text("lumen-3.0-whatsnew.rst")).title == "What's new in Lumen 3.0"
    assert features(summary_text("lumen-3.0-whatsnew.rst")) == [
        ("Faster sync", None, "News"), ("Quieter logs for services", None, "News"),
        ("Plugin API", "experimental", "News")]


def test_rest_release_notes_highlights_after_a_preface():
    summary = summarize(summary_text("lumen-2.0.0-notes.rst"))
    assert summary.title == "Lumen 2.0.0 Release Notes"
    assert summary.summary_bullets == ("A new sync engine, with streams.", "Quieter logs, see lumen.log.")
    assert [(f.heading, f.section) for f in summary.features] == [
        ("Faster sync", "New Features"), ("lumen.log is quieter", "New Features")]


def summary_text(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def test_legacy_encoded_post_opening_with_its_title_line_and_two_headings():
    text = ("Lumen 2.0 发布：更快的同步与更安静的日志\n\n"
            "Lumen 团队很高兴地宣布 Lumen 2.0 正式发布。本次发布带来了许多改进，下面是主要内容。\n\n"
            "## 更快的同步\n\n同步现在以流的方式进行，大型仓库的同步速度提升了三倍。\n\n"
            "## 更安静的日志\n\n默认情况下，服务输出的日志更少了。\n")
    summary = summarize(decode(text.encode("gbk")))
    assert (summary.title, summary.language) == ("Lumen 2.0 发布：更快的同步与更安静的日志", "zh")
    assert features(text) == [("更快的同步", None, None), ("更安静的日志", None, None)]


def test_text_dump_part_listing_the_headings_below_it_is_their_section():
    summary = summarize(summary_text("lumen-2.0-dump.txt"))
    assert (summary.title, summary.author, summary.summary_bullets) == ("Lumen 2.0 is out", "Ada Lovelace", ())
    assert [(f.heading, f.section) for f in summary.features] == [
        ("Faster collector", "Runtime"), ("Smaller binaries", "Runtime"),
        ("Quieter logs", "Tools"), ("Better errors", "Tools")]


def test_page_title_is_the_h1_its_title_repeats_not_the_site_name():
    html = ("<html><head><title>Lumen Blog | Lumen 2.0 released</title></head><body>"
            "<div class='hero'><h1>Lumen Blog</h1><h1>Lumen 2.0 released</h1></div><div class='post'>"
            "<p>Lumen 2.0 is out with many improvements for everyone who syncs.</p>"
            "<h2>Faster sync</h2><p>Sync is faster now for large repositories and small ones.</p>"
            "<h2>Quieter logs</h2><p>Logs are quieter.</p></div></body></html>")
    assert summarize(html).title == "Lumen 2.0 released"


def test_html_fragment_without_page_or_title():
    html = ("<div class='section' id='lumen-2-0'><h2>Lumen 2.0<a class='headerlink' href='#lumen-2-0'>¶</a></h2>"
            "<p>Released March 2025.</p><h3>New features</h3><h4>Faster sync</h4><p>Sync is faster.</p>"
            "<h4>(Beta) Quieter logs</h4><p>Logs are quieter.</p><h3>Bug fixes</h3><ul><li>A crash.</li></ul></div>")
    summary = summarize(html)
    assert summary.title == "Lumen 2.0"
    assert features(html) == [("Faster sync", None, "New features"), ("Quieter logs", "beta", "New features")]


def test_contents_and_link_rows_near_the_top_are_not_highlights():
    contents = "# Lumen 2.0\n\n- [Faster sync](#faster-sync)\n- [Quieter logs](#quieter-logs)\n\n" \
               "## Faster sync\n\nText.\n\n## Quieter logs\n\nText.\n"
    links = "# Lumen 2.0\n\n- [English docs](https://lumen.dev/en)\n- [Changelog](https://lumen.dev/log)\n\n" \
            "## Faster sync\n\nText.\n"
    assert summarize(contents).summary_bullets == summarize(links).summary_bullets == ()


def test_an_unlabeled_list_is_the_highlights_only_in_a_scrape_that_lost_the_label():
    markdown = "# Lumen 2.0\n\n- Sync is faster for everyone\n- Logs are quieter\n\n## Faster sync\n\nText.\n"
    scrape = "Lumen 2.0\n\n  • Sync is faster for everyone\n  • Logs are quieter\n\nFaster sync\n\nSync is faster.\n"
    assert summarize(markdown).summary_bullets == ()
    assert summarize(scrape).summary_bullets == ("Sync is faster for everyone", "Logs are quieter")


def test_explain_names_the_features_summarize_reports():
    for name in ("lumen-3.0-whatsnew.rst", "lumen-2.0.0-notes.rst", "lumen-2.0-dump.txt"):
        text = summary_text(name)
        explained = [role.text for role in explain(text) if role.role.startswith("feature")]
        assert explained == [feature.heading for feature in summarize(text).features]


@pytest.mark.parametrize("make", [
    lambda k: ("## a" + " " * 1000 * k + "{#x\n") * 300,
    lambda k: "[//]: # (a: b)\n" * 12_500 * k,
    lambda k: "🚀" * 50_000 * k + " x\n\n## " + "🚀" * 25_000 * k + " y\n\nText.\n",
    lambda k: "Title\n=====\n\n" + (":ref:`" + " " * 750 * k + "a <x>` ``" + " " * 500 * k + "\n\n") * 200,
    lambda k: "<html><head><title>" + "x" * 25_000 * k + "</title></head><body>" + "<h1>xxxxx</h1>" * 5000 * k + "</body></html>",
    lambda k: ("x" * 70 + "\n" + "y" * 50 + "\n\n") * 5000 * k,
    lambda k: "## " + "←" * 25_000 * k + "\n\nText.\n",
    lambda k: ("GEP-1: A heading at the margin\n  Its indented text, which runs on.\n\n") * 1250 * k,
    lambda k: "   Sign in\n\n" * 5000 * k + "Title\n\nText.\n",
    lambda k: "Title\n=====\n\n" + ("A sub-heading\n\nSome text, and :" + "a:" * 1250 * k + "\n\n") * 100,
    lambda k: "Title\n\n" + ("1.1 A numbered heading\n\nText.\n\n2. A part\n\n") * 2500 * k,
    lambda k: "Some text of the post.\n\n" * 10_000 * k + "1.1 A heading\n\nText.\n\n2.1 Another\n\nText.\n",
    lambda k: ":title: T\n" + ":tags: " + "a" * 25_000 * k + "\n" + ":date: x\n" * 5000 * k,
    lambda k: "Home › " * 7500 * k + "\n\nTitle\n\nText.\n",
    lambda k: "Title\n=====\n\n" + ".. note::\n\n   - a\n   - b\n\n" * 2500 * k,
    lambda k: "---\ntitle: T\n---\n\n" + "# A\n\nText.\n\n" * 5000 * k,
    lambda k: "<p>x</p>\n" + "# A\n\nText.\n\n" * 5000 * k,
    lambda k: "<html><head><script type='application/ld+json'>[" + "{}," * 7500 * k + "{}]</script></head><body><p>x</p></body></html>",
    lambda k: "# T\n\n## " + "x - " * 10_000 * k + "\n\nText.\n\n## " + "<span>a</span> " * 10_000 * k + "\n\nText.\n",
], ids=["heading-attributes", "comment-fields", "emoji", "rest-roles", "many-h1", "wrapped-lines", "arrows",
        "margin-headings", "page-chrome", "underlined-colons", "numbered-headings", "prose-over-numbers", "rest-fields", "breadcrumb",
        "rest-notes", "front-matter-atx", "fragment-atx", "json-ld", "dashes-and-spans"])
def test_new_shapes_stay_linear_on_hostile_posts(make):
    assert_linear(summarize, make)


def test_headings_inside_call_out_boxes_are_asides():
    text = ("# Lumen 3.0\n\n<Note>\n\n### Lumen 3.0 is now stable!\n\nText.\n\n</Note>\n\n## Faster sync\n\nText.\n\n"
            ":::tip Watch out\n#### A tip heading\nCareful.\n:::\n\n## Quieter logs\n\nText.\n")
    assert features(text) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_lynx_link_numbers_are_not_part_of_the_text():
    text = ("Lumen 2.0 is out\n\nby Ada Lovelace\n\nLumen 2.0 brings news for the runtime, see [1]the notes.\n\n"
            "[2]Faster sync\n\nSync is faster now for large repositories, and arr[0]x stays.\n\n"
            "References\n\n   1. https://lumen.dev/notes\n   2. https://lumen.dev/sync\n")
    assert features(text) == [("Faster sync", None, None)]


def test_scrape_first_part_heading_is_no_caption_and_a_late_colon_groups_nothing():
    text = ("Lumen 2.0 is out\n\nby Ada Lovelace\n\nLumen 2.0 brings inference of types and faster sync.\n\n"
            "Inference of types\n\nThere are several updates here, so let's break them down.\n\n"
            "A type system? In Lumen?\n\nMore text on the type system of it.\n\n"
            "It now warns like this:\n\nFaster sync\n\nSync is faster now for large repositories.\n")
    assert features(text) == [("Inference of types", None, None), ("Faster sync", None, None)]


def test_rest_with_bold_and_bracketed_code_is_still_rest():
    text = (".. currentmodule:: lumen\n\n=====================\nLumen 3.0 Release Notes\n=====================\n\n"
            "**Note:** read this. Use ``lumen.get[int](x)`` now.\n\nNew features\n============\n\n"
            "Faster sync\n-----------\n\nText.\n")
    summary = summarize(text)
    assert (summary.format, summary.title) == ("text", "Lumen 3.0 Release Notes")
    assert features(text) == [("Faster sync", None, "New features")]


def test_release_boilerplate_parts_are_not_features():
    text = ("# Lumen 3.0\n\n## Release theme and logo\n\nText.\n\n## Stable now\n\n### Faster sync\n\nText.\n\n"
            "## Availability\n\nText.\n\n## Release team\n\nText.\n\n## Project velocity\n\nText.\n\n"
            "## Ecosystem updates\n\nText.\n\n## Upcoming release webinar\n\nText.\n\n### Get involved\n\nText.\n\n"
            "## 업그레이드 방법\n\nText.\n")
    assert features(text) == [("Faster sync", None, "Stable now")]


def test_scrape_heading_naming_a_kind_of_change_groups_the_headings_after_it():
    text = ("Lumen 3.0 is out\n\nby Ada Lovelace\n\nLumen 3.0 brings a lot.\n\n"
            "Improvements that graduated to stable in 3.0\n\nA selection of what is now stable.\n\n"
            "Faster sync for everyone\n\nSync is faster now for everyone.\n\n"
            "Deprecations and removals\n\nWhat goes away.\n\nRemoval of the old sync\n\nThe old sync is removed.\n")
    assert [(f.heading, f.section) for f in summarize(text).features] == [
        ("Faster sync for everyone", "Improvements that graduated to stable in 3.0"),
        ("Removal of the old sync", "Deprecations and removals")]


def test_a_list_in_a_call_out_box_or_a_translated_contents_list_is_not_the_highlights():
    text = ("# Lumen 3.0\n\n<Note>\n\n### Now stable! {/*now-stable*/}\n\nSince the RC we added.\n\n"
            "- **Faster sync**: see below.\n\n</Note>\n\nIn this post, the news.\n\n"
            "- [What is new](#new)\n- [Improvements in 3.0](#improvements)\n- [Upgrading](#upgrading)\n\n"
            "## What is new\n\n### Faster sync\n\nText.\n\n## Improvements to 3.0\n\n### Quieter logs\n\nText.\n\n"
            "## Upgrading\n\nText.\n")
    assert summarize(text).summary_bullets == ()
    assert Paragraph("Now stable!") in parse(text).blocks


@pytest.mark.parametrize("cue", ["This release features:", "The main new features are:", "本次更新内容：", "새로운 기능:"])
def test_more_ways_to_introduce_the_highlights(cue):
    text = f"# Lumen 3.0\n\nLumen 3.0 is out.\n\n{cue}\n\n- Faster sync\n- Quieter logs\n\n## Faster sync\n\nText.\n"
    assert summarize(text).summary_bullets == ("Faster sync", "Quieter logs")


def test_mdx_exported_meta_declares_title_and_author():
    text = ("import { Callout } from 'site/components'\n\nexport const meta = {\n  title: \"Pike 6.0 is here\",\n"
            "  author: 'Ana Ruiz',\n}\n\nPike 6.0 is out.\n\n## Faster builds\n\nText.\n\n## Smaller bundles\n\nText.\n")
    summary = summarize(text)
    assert (summary.title, summary.author) == ("Pike 6.0 is here", "Ana Ruiz")
    assert features(text) == [("Faster builds", None, None), ("Smaller bundles", None, None)]


def test_breaking_changes_group_at_the_top_and_frame_details_under_a_feature():
    text = ("# T\n\n## New features\n\n### Faster sync\n\nText.\n\n#### Breaking change\n\nText.\n\n"
            "#### What's new\n\nText.\n\n## Breaking changes\n\n### Dropped Python 3.8\n\nText.\n")
    assert features(text) == [("Faster sync", None, "New features"), ("Dropped Python 3.8", None, "Breaking changes")]


def test_page_with_the_site_name_in_h1_and_the_post_title_in_h2():
    summary = summarize(summary_text("quartz-4.2-blog.html"))
    assert (summary.title, summary.author) == ("Quartz 4.2 released", "Ana Ruiz")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Work-stealing scheduler", "beta", None), ("Cron expressions with seconds", None, None)]


def test_aside_cue_words_name_asides_only_as_the_whole_heading_or_before_a_colon():
    text = ("# T\n\n## Faster sync\n\nText.\n\n### Example usage\n\nText.\n\n### Examples gallery redesigned\n\nText.\n\n"
            "### Important fix for large files\n\nText.\n\n### Important notes\n\nText.\n")
    assert features(text) == [("Examples gallery redesigned", None, "Faster sync"),
                              ("Important fix for large files", None, "Faster sync")]


def test_headings_and_lists_in_an_html_call_out_box_are_asides():
    prose = "<p>" + "Sync is faster now for every repository, large or small. " * 3 + "</p>"
    html = ("<h1>Lumen 3.0</h1><div class='admonition note'><h3>Now stable!</h3><ul><li>Since the RC: sync</li>"
            f"</ul></div><h2>Faster sync</h2>{prose}<blockquote><h4>A quoted heading</h4><p>Quote.</p>"
            f"</blockquote><h2>Quieter logs</h2>{prose}")
    assert features(html) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_heading_attributes_a_renderer_left_as_text_are_dropped():
    prose = "<p>" + "Sync is faster now for every repository, large or small. " * 3 + "</p>"
    html = f"<h1>Lumen 3.0</h1><h2>Faster sync {{#faster-sync}}</h2>{prose}<h2>Quieter logs</h2>{prose}"
    assert features(html) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_raw_post_read_as_text_drops_shortcodes_and_heading_attributes_and_media_intros_group_nothing():
    text = ("Lumen 3.0 is out\n\nby Ada Lovelace\n\nLumen 3.0 brings news for everyone who syncs.\n\n"
            "Overview video\n\nSee it all in the video below:\n\n"
            "Faster sync {#faster-sync}\n\nSync is faster now for every repository.\n\n"
            "{{ asciinema(id=\"sync\") }}\n\nQuieter logs\n\nLogs are quieter now for every service.\n")
    assert features(text) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_a_call_out_box_left_open_closes_at_the_next_part():
    text = "# Lumen 3.0\n\n:::tip\nA tip.\n\n## Faster sync\n\nText.\n\n## Quieter logs\n\nText.\n"
    assert features(text) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_a_wrapper_named_like_a_note_that_holds_the_post_is_no_call_out_box():
    prose = "<p>" + "Sync is faster now for every repository, large or small. " * 3 + "</p>"
    html = f"<div class='release-note'><h1>Lumen 3.0</h1><h2>Faster sync</h2>{prose}<h2>Quieter logs</h2>{prose}</div>"
    assert features(html) == [("Faster sync", None, None), ("Quieter logs", None, None)]


def test_rest_with_tilde_underlined_headings_is_not_read_as_markdown_fences():
    text = ("=====================\nOsprey 4.2 release notes\n=====================\n\n"
            "Welcome to Osprey 4.2, with **two** new parts.\n\nWhat's new\n==========\n\n"
            "Smaller wheels\n--------------\n\nWheels are smaller.\n\nMinor features\n--------------\n\n"
            "osprey.net\n~~~~~~~~~~\n\n* Timeouts can be set per host.\n\nosprey.cli\n~~~~~~~~~~\n\n"
            "* The ``run`` command takes ``--quiet``.\n")
    summary = summarize(text)
    assert (summary.format, summary.title) == ("text", "Osprey 4.2 release notes")
    assert features(text) == [("Smaller wheels", None, "What's new"), ("osprey.net", None, "Minor features"),
                              ("osprey.cli", None, "Minor features")]


def test_a_cued_list_under_the_first_feature_heading_is_its_detail_not_the_highlights():
    text = ("---\ntitle: Osprey 5 is out\n---\n\nOsprey 5 is out, with a new engine.\n\n## Notable changes\n\n"
            "### Engine update\n\nThe engine moves to 3.1. This version brings several new features, including:\n\n"
            "- Faster parsing\n- A smaller heap\n\n### Quieter logs\n\nLogs are quieter.\n")
    assert summarize(text).summary_bullets == ()
    assert features(text) == [("Engine update", None, "Notable changes"), ("Quieter logs", None, "Notable changes")]


def test_plain_text_with_underlined_parts_and_sub_headings_standing_alone():
    summary = summarize(summary_text("tern-2.0-announce.txt"))
    assert (summary.format, summary.title) == ("text", "Tern 2.0 released")
    assert summary.summary_bullets == ("a cost-based query planner;", "uploads that stream instead of buffering;",
                                       "a plugin API with typed hooks.")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Cost-based query planner", None, "New features"), ("Streamed uploads", "beta", "New features"),
        ("tern.plugins.register()", None, "New features"),
        ("Removed: the legacy config loader", None, "Breaking changes")]


def test_a_subject_word_several_highlights_share_does_not_make_a_scrape_heading_a_group():
    text = ("Tern 2.0 is out\n\nby the Tern maintainers\n\nTern 2.0 brings two new interfaces.\n\n"
            "  • Query API for lookups by key\n  • Stream API with backpressure\n\n"
            "Query API\n\nThe query interface looks rows up by key.\n\n"
            "(Beta) Stream API with backpressure\n\nStreams now slow their producers down.\n")
    assert [(f.heading, f.section) for f in summarize(text).features] == [
        ("Query API", None), ("Stream API with backpressure", None)]


def test_mail_announcement_with_headings_over_indented_text_under_capitalized_groups():
    summary = summarize(summary_text("gannet-4.0-announce.txt"))
    assert (summary.format, summary.title) == ("text", "Gannet 4.0.0 is released")
    assert len(summary.summary_bullets) == 3
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("GEP-310: Locality-aware job placement", "preview", "SCHEDULER AND WORKERS"),
        ("GEP-322: Let workers drain before a restart", None, "SCHEDULER AND WORKERS"),
        ("GEP-331: Report queue wait times per job class and per tenant in the metrics endpoint", "preview",
         "SCHEDULER AND WORKERS"),
        ("GEP-305: Per-tenant queue priorities", None, "QUEUES"),
        ("GEP-340: Drop the XML job format in 5.0", "deprecated", "DEPRECATIONS")]


def test_lynx_dump_of_a_page_with_buttons_and_menus_above_the_title_and_an_indented_body():
    summary = summarize(summary_text("puffin-2.1-lynx.txt"))
    assert (summary.title, summary.author) == ("Puffin 2.1 is here", "Lena Okafor")
    assert summary.summary_bullets == ("Offline maps (beta) that work without a connection",
                                       "A renderer that draws large scenes twice as fast", "A plugin store inside the app")
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("Offline maps", "beta", "Maps"), ("Map styles", None, "Maps"), ("Faster renderer", None, "Rendering"),
        ("Plugin store", None, "Plugins")]


def test_w3m_dump_with_site_menu_a_dateline_byline_and_highlights_after_a_sentence():
    summary = summarize(summary_text("skua-3.2-w3m.txt"))
    assert (summary.format, summary.title, summary.author) == ("text", "3.2: Quiet nights!", "Priya Raman")
    assert summary.summary_bullets == ("Quiet hours mute notifications at night.", "Scenes can be set per room.",
                                       "Sensor history can be exported as CSV.")
    # A sub-part naming the same thing as the feature above it does not make that a group.
    assert [(f.heading, f.section) for f in summary.features] == [
        ("Quiet hours", None), ("Quiet hours from old schedules", None), ("Per-room scenes", None),
        ("Sensor history export", None)]


def test_a_boilerplate_part_over_parts_with_text_of_their_own_groups_them():
    text = ("# Wren 3.0\n\n## Faster sync\n\nSync is faster.\n\n## Ecosystem\n\n### Editor plugin\n\n"
            "The new editor plugin highlights wren files.\n\n## Release team\n\nThanks to the team.\n\n"
            "## Downloads\n\nInstallers are on the site.\n\n### Checksums\n\n```\nab12  wren-3.0.tar.gz\n```\n")
    assert features(text) == [("Faster sync", None, None), ("Editor plugin", None, "Ecosystem")]


def test_a_label_may_say_how_early_or_open_it_is():
    assert split_label("Offline sync (early preview)") == ("Offline sync", "preview")
    assert split_label("[Developer Preview] Plugin host") == ("Plugin host", "preview")
    assert split_label("Shared caches (open beta)") == ("Shared caches", "beta")
    assert split_label("Map tiles (early access)") == ("Map tiles (early access)", None)


def test_closing_parts_about_the_project_links_downloads_and_a_call_to_action_are_not_features():
    text = ("# Wren 3.0\n\n## Faster sync\n\nSync is faster.\n\n## (Beta) Shared caches\n\nCaches are shared.\n\n"
            "## Migrating\n\nRun the migration tool.\n\n## Call to action!\n\nTry it and tell us.\n\n"
            "## About Wren\n\nWren is a sync engine.\n\n## Useful links\n\n- [Docs](https://wren.dev)\n\n"
            "## More about the features\n\nSee the notes.\n\n## Where to download\n\nFrom the site.\n")
    assert features(text) == [("Faster sync", None, None), ("Shared caches", "beta", None)]
    korean = "# Wren 3.0\n\n## 빠른 동기화\n\n동기화가 빨라졌습니다.\n\n## Wren란\n\nWren은 동기화 엔진입니다.\n"
    assert features(korean) == [("빠른 동기화", None, None)]


def test_breaking_changes_under_a_part_of_changes_groups_the_features_below_it():
    text = ("---\ntitle: Wren 4.0\n---\n\n## Faster sync\n\nSync is faster.\n\n## Changes since Wren 3\n\n"
            "### Breaking changes\n\n#### New default port\n\nThe port is 7000.\n\n"
            "#### Config keys renamed\n\nKeys use dashes.\n\n### Deprecations\n\n#### (Deprecated) Old sync API\n\n"
            "Use the new one.\n\n## Shared caches\n\nCaches are shared.\n\n### Breaking changes\n\nNone here.\n")
    assert features(text) == [
        ("Faster sync", None, None), ("New default port", None, "Breaking changes"),
        ("Config keys renamed", None, "Breaking changes"), ("Old sync API", "deprecated", "Deprecations"),
        ("Shared caches", None, None)]


def test_group_headings_with_hash_under_a_title_in_front_matter():
    text = ("---\ntitle: \"Wren 4.0 출시\"\nlang: ko\n---\n\nWren 4.0이 출시되었습니다.\n\n# 동기화\n\n"
            "## 빠른 동기화 (개발자 프리뷰)\n\n동기화가 빨라졌습니다.\n\n## (미리 보기) 공유 캐시\n\n캐시를 공유합니다.\n\n"
            "# 도구\n\n## 새 편집기 플러그인\n\n플러그인이 생겼습니다.\n")
    summary = summarize(text)
    assert summary.title == "Wren 4.0 출시"
    assert [(f.heading, f.stability, f.section) for f in summary.features] == [
        ("빠른 동기화", "preview", "동기화"), ("공유 캐시", "preview", "동기화"), ("새 편집기 플러그인", None, "도구")]


def test_a_chinese_date_line_does_not_end_the_opening_before_its_highlights():
    text = ("Wren 4.0 版本发布\n\n2025 年 3 月 4 日\n\nWren 4.0 现已发布。本次发布包含多项更新。\n\n要点：\n\n"
            "• 同步速度提升一倍\n• 新增共享缓存\n\n\n同步\n\n更快的同步\n\n同步速度提升了一倍，大型仓库尤其明显。\n")
    summary = summarize(text)
    assert summary.title == "Wren 4.0 版本发布"
    assert summary.summary_bullets == ("同步速度提升一倍", "新增共享缓存")


def test_a_rest_note_listing_minimum_versions_is_not_the_highlights():
    text = ("=================\nWhat's new in 4.0\n=================\n\nThese are the changes in wren 4.0.\n\n"
            ".. note::\n\n   wren 4.0 raises the minimum supported versions:\n\n   - Python 3.10\n   - zlib 1.3\n\n"
            "Enhancements\n------------\n\nFaster sync\n^^^^^^^^^^^\n\nSync is faster.\n")
    summary = summarize(text)
    assert summary.summary_bullets == ()
    assert [(f.heading, f.section) for f in summary.features] == [("Faster sync", "Enhancements")]


def test_a_dump_numbering_its_headings_keeps_its_sections_without_the_numbers():
    text = ("Wren Project\n\n  • Home\n  • Download\n  • News\n\n4.0.0 Release Notes\n\nDownloads\n\n"
            "Wren is a sync engine for small teams and big repositories alike.\n\nTable of Contents\n\n"
            "  • 1. Sync\n      ◦ 1.1 Faster Pulls\n      ◦ 1.2 Shared Caches\n  • 2. Tools\n"
            "      ◦ 2.1 zlib 1.3\n\nSupport Table\n\nA check mark means the platform is supported.\n\n"
            "1. Sync\n\n1.1 Faster Pulls\n\nPulls are twice as fast on large repositories.\n\n"
            "1.2 Shared Caches\n\nTeams can share one cache over the network.\n\n2. Tools\n\n"
            "2.1 zlib 1.3\n\nThe bundled library was updated.\n")
    summary = summarize(text)
    assert summary.title == "4.0.0 Release Notes"
    assert summary.summary_bullets == ()
    assert [(f.heading, f.section) for f in summary.features] == [
        ("Faster Pulls", "Sync"), ("Shared Caches", "Sync"), ("zlib 1.3", "Tools")]


def test_an_underlined_title_after_an_opening_paragraph_titles_the_post_and_groups_nothing():
    text = ("The latest release of Wren, 4.0, is now available at the usual places. It has\n"
            "310 commits from 41 people.\n\nThe tarballs are at:\n\n    https://example.org/wren/\n\n"
            "--------------------------------------------------\n\nWren 4.0 Release Notes\n"
            "======================\n\nFaster sync\n-----------\n\nSync is faster on large repositories.\n\n"
            "Shared caches\n-------------\n\nTeams can share one cache.\n")
    summary = summarize(text)
    assert summary.title == "Wren 4.0 Release Notes"
    assert [(f.heading, f.section) for f in summary.features] == [("Faster sync", None), ("Shared caches", None)]
    # A part name standing alone at the top is not a title.
    grouped = text.replace("Wren 4.0 Release Notes\n======================", "New features\n============")
    assert summarize(grouped).title is None


_PARTS_HTML = ("<h2>Faster sync</h2><p>Sync is faster now than it was.</p>"
               "<h2>Shared caches</h2><p>Caches are shared among the team.</p>")


@pytest.mark.parametrize(("text", "title"), [
    # Front matter keys some generators use for the title.
    ("---\nheading: Wren 4.0 is here\n---\n\n## Faster sync\n\nSync is faster.\n", "Wren 4.0 is here"),
    ("---\nlinkTitle: Wren 4.0\n---\n\nIntro.\n\n## Faster sync\n\nSync is faster.\n", "Wren 4.0"),
    # reST bibliographic fields opening the page.
    (":title: Wren 4.0 released\n:date: 2025-03-04\n\nIntro text.\n\nFaster sync\n-----------\n\nSync is faster.\n\n"
     "Shared caches\n-------------\n\nText.\n", "Wren 4.0 released"),
    # The site's name before the post's in <title>, named by og:site_name.
    ("<html><head><title>Wren Blog | Wren 4.0 is here</title><meta property='og:site_name' content='Wren Blog'>"
     f"</head><body><div>{_PARTS_HTML}</div></body></html>", "Wren 4.0 is here"),
    # The site's name in the only <h1>; og:title names the post's <h2>.
    ("<html><head><title>Wren</title><meta property='og:title' content='Wren 4.0 is here'></head><body>"
     "<header><h1>Wren</h1></header><article><h2>Wren 4.0 is here</h2><p>The intro of the post is here.</p>"
     "<h3>Faster sync</h3><p>Sync is faster now than it was.</p></article></body></html>", "Wren 4.0 is here"),
    # A text dump opening with the blog's name over the post's title.
    ("Wren Blog\n\nWren 4.0 is here\n\nMarch 4, 2025\n\nWren 4.0 brings faster sync and shared caches to every "
     "team.\n\nFaster sync\n\nSync is faster on large repositories now.\n\nShared caches\n\nTeams can share one "
     "cache over the network.\n", "Wren 4.0 is here"),
    # Markdown opening with a raw HTML block (a centered logo) is still Markdown.
    ("<p align=\"center\"><img src=\"logo.png\" alt=\"Wren\"></p>\n\n# Wren 4.0 is here\n\nIntro.\n\n"
     "## Faster sync\n\nSync is faster.\n", "Wren 4.0 is here"),
    # ... or by its words alone.
    (f"<html><head><title>Wren Blog | Wren 4.0 is here</title></head><body><div>{_PARTS_HTML}</div></body></html>",
     "Wren 4.0 is here"),
    # Other separators between the post's title and the site's name.
    (f"<html><head><title>Wren 4.0 is here » Wren</title></head><body><div>{_PARTS_HTML}</div></body></html>",
     "Wren 4.0 is here"),
    # The headline declared as structured data, over a site-wide <title>.
    (f"<html><head><title>Blog</title></head><body><div><p itemprop='headline'>Wren 4.0 is here</p>{_PARTS_HTML}"
     "</div></body></html>", "Wren 4.0 is here"),
    ("<html><head><title>Blog</title><script type='application/ld+json'>{\"@type\": \"BlogPosting\", "
     f"\"headline\": \"Wren 4.0 is here\"}}</script></head><body><div>{_PARTS_HTML}</div></body></html>",
     "Wren 4.0 is here"),
    # A marker where the site puts its table of contents, above the title.
    ("[[_TOC_]]\n\n# Wren 4.0 is here\n\nIntro.\n\n## Faster sync\n\nSync is faster.\n", "Wren 4.0 is here"),
    ("* TOC\n{:toc}\n\n# Wren 4.0 is here\n\nIntro.\n\n## Faster sync\n\nSync is faster.\n", "Wren 4.0 is here"),
    # A dump opening with a breadcrumb or a skip link over the title.
    ("Home › Blog › Releases\n\nWren 4.0 is here\n\nMarch 4, 2025\n\nWren 4.0 brings faster sync to every team."
     "\n\nFaster sync\n\nSync is faster on large repositories now.\n\nShared caches\n\nTeams share one cache.\n",
     "Wren 4.0 is here"),
    ("Skip to main content\n\nWren 4.0 is here\n\nMarch 4, 2025\n\nWren 4.0 brings faster sync to every team."
     "\n\nFaster sync\n\nSync is faster on large repositories now.\n\nShared caches\n\nTeams share one cache.\n",
     "Wren 4.0 is here"),
])
def test_title_shapes(text, title):
    assert summarize(text).title == title


def test_captions_call_out_titles_tips_and_getting_the_release_are_not_features():
    text = ("# Wren 4.0\n\n## Full-width notes\n\n![Notes at full width](wide.png)\n\n"
            "**Figure 1: The same note, before and after.**\n\nThe setting is remembered.\n\n"
            "## Key rotation\n\nKeys can rotate.\n\n<Callout type=\"warning\">\n  **Heads up**\n\n"
            "  Keep the old key until sessions expire.\n</Callout>\n\n### Tips for large teams\n\nRotate weekly.\n\n"
            "## **[Experiment] Sync doctor**\n\nFinds slow syncs.\n\n## Get it\n\nWith pip.\n\n"
            "## Download Wren 4.0\n\nFrom the site.\n")
    assert features(text) == [("Full-width notes", None, None), ("Key rotation", None, None),
                              ("Sync doctor", "experimental", None)]
    japanese = "# Wren 4.0\n\n## 新しい同期モード\n\n同期が速くなりました。\n\n### 移行のヒント\n\nまず警告を確認します。\n"
    assert features(japanese) == [("新しい同期モード", None, None)]
    chinese = "# Wren 4.0\n\n## 更快的同步\n\n同步更快了。\n\n## 下载 Wren 4.0\n\n从官网下载。\n"
    assert features(chinese) == [("更快的同步", None, None)]


def test_an_example_in_the_singular_under_a_feature_is_an_aside():
    text = ("# Wren 4.0\n\n## Redirects for static files\n\nStatic files may redirect.\n\n"
            "### Example <code>_redirects</code> file\n\nA sample.\n\n## Examples gallery\n\nNew samples.\n")
    assert features(text) == [("Redirects for static files", None, None), ("Examples gallery", None, None)]


@pytest.mark.parametrize("heading", [
    "Faster sync <Badge type=\"warning\" text=\"beta\" />",  # VitePress
    "Faster sync <span class=\"badge\">Beta</span>",
    "Faster sync <sup>beta</sup>",
    "Faster sync ![beta](https://img.example.org/badge/beta.svg)",
])
def test_a_label_without_brackets_as_a_badge(heading):
    # A code span names code, and a label word leading a name is no label.
    text = (f"# Wren 4.0\n\nIntro.\n\n## {heading}\n\nSync is faster.\n\n## Support for `preview`\n\nText.\n\n"
            "## Stable Diffusion: faster\n\nText.\n")
    assert features(text) == [("Faster sync", "beta", None), ("Support for preview", None, None),
                              ("Stable Diffusion: faster", None, None)]


@pytest.mark.parametrize("cue", ["Key takeaways:", "What you need to know:", "In a nutshell:",
                                 "This release contains:", "Top changes:", "このリリースの内容："])
def test_more_labels_introduce_the_highlights(cue):
    text = (f"# Wren 4.0\n\nWren 4.0 is out today.\n\n{cue}\n\n- Sync is twice as fast\n- Caches can be shared\n\n"
            "## Faster sync\n\nSync is faster.\n\n## Shared caches\n\nText.\n")
    assert summarize(text).summary_bullets == ("Sync is twice as fast", "Caches can be shared")
