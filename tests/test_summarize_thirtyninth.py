"""Shapes met in the thirty-ninth and fortieth held-aside sets, on invented posts: a wiki
page's dump titled by the line over the wiki's tagline, and a changelog of several versions
whose newest entry is what it announces."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize


def test_a_wiki_pages_dump_is_titled_by_the_line_over_the_wikis_tagline():
    text = read("tamarind-wiki-4.0.w3m.txt")
    summary = summarize(text)
    # The wiki's name above its menus is the site's, not the page's.
    assert summary.title == "Tamarind 4.0 Changes"
    assert summary.summary_bullets == (
        "Split view for long documents",
        "Spell checking in twelve languages",
        "Cloud folders sync in the background",
    )
    assert features(text) == [
        ("Split view", None, "Editor"),
        ("Spell checking", "beta", "Editor"),
        ("Background sync for cloud folders", None, "Storage"),
    ]


def test_a_date_over_a_line_naming_a_source_is_no_wikis_page_name():
    for source in ("From the release page:", "From the release page"):
        text = f"Lumen 2.0 released!\n\nMarch 4, 2026\n\n{source}\n\nThis is Lumen 2.0.\n\nParsing\n\nFaster.\n"
        # "From X:" quotes what follows; a date over a line is no page's name.
        assert summarize(text).title == "Lumen 2.0 released!"


def test_a_changelog_of_versions_is_titled_and_summed_up_by_its_newest_entry():
    text = read("quokka-CHANGELOG.md")
    summary = summarize(text)
    # The legend lines that open it are sentences, not a title line of their own.
    assert summary.title == "3.4.0"
    # The newest entry's highlights, past its date heading; the older entry's are its own.
    assert summary.summary_bullets == (
        "Snapping now works on rotated shapes.",
        "The palette remembers the last ten colours.",
    )
    # Dates under the entries and the older entry's highlights part are not features;
    # plain list items under category parts are not either.
    assert features(text) == []


def test_a_summary_sub_part_that_ends_the_post_holds_no_highlights():
    # Found by the property test: a summary part last in the post, under a second top heading.
    assert summarize("# 1\n#0\n##SUMMARY").summary_bullets == ()


def test_a_bare_label_over_the_names_of_the_parts_below_is_the_summary():
    text = read("wicklow-812.mail.txt")
    # The list names the parts in their order, but under a label rather than a sentence
    # walking through the page it is the post's own summary, not its contents.
    assert summarize(text).summary_bullets == ("Scripts run in a sandbox", "Tile cache on disk")
    assert features(text) == [
        ("Scripts run in a sandbox", None, None),
        ("Tile cache on disk", None, None),
        ("Quieter log output", None, None),
    ]


def test_a_post_under_front_matter_whose_parts_are_bold_lead_ins_is_markdown():
    text = read("brindle-2.4-leads.md")
    # No heading, no fence, no link: the bold lead-ins are its one sign of Markdown, and a
    # site generator's front matter says the rest. The thanks lead-in is not a part.
    assert summarize(text).format == "markdown"
    assert features(text) == [
        ("Modo offline para mapas", None, None),
        ("Busca por voz", "beta", None),
        ("Tema escuro automático", None, None),
        ("Importação de GPX antiga", "deprecated", None),
    ]


def test_closing_parts_in_more_words_are_not_features():
    for closing in ("What’s next", "Getting the update", "Até a próxima", "Ci vediamo al prossimo numero",
                    "フィードバック", "See you in Lisbon"):
        text = (f"# Lumen 2.1\n\nWhat changed.\n\n## Faster sync (beta)\n\nText.\n\n## Dark theme\n\nText.\n\n"
                f"## {closing}\n\nA few words to close.\n")
        assert features(text) == [("Faster sync", "beta", None), ("Dark theme", None, None)], closing


def test_a_dumps_line_naming_a_short_name_with_its_version_shares_it_with_its_text():
    text = ("                        Lumen 4.2: Smaller Downloads\n\n   Posted on May 2, 2026 by Ada Byron\n\n"
            "   Lumen 4.2 is a short release with three changes worth a word.\n\n   Delta updates\n\n"
            "   Updates now download only the changed parts of each package.\n\n   Faster startup\n\n"
            "   Startup is twice as fast on older laptops.\n\n   Go 1 dropped\n\n"
            "   Builds on the old toolchain stop here: Go 1 is past its end of life.\n")
    # "Go 1" is the one name the line and its text share: a feature, not a caption.
    assert features(text) == [("Delta updates", None, None), ("Faster startup", None, None),
                              ("Go 1 dropped", None, None)]


def test_a_short_line_opening_a_part_over_a_features_line_groups_the_parts_features():
    text = read("ostrava-9.2-notes.txt")
    # The contents list names the parts; "Calendar" stands within the first of them.
    assert features(text) == [
        ("Week view with shift colours", None, "Calendar"),
        ("Printing a month on one page", None, "Calendar"),
        ("Reorder points per site", None, "Stock"),
        ("PostgreSQL 13 is no longer supported", None, "For administrators"),
    ]


def test_a_releases_name_over_a_line_of_news_and_bare_names_is_their_section():
    text = ("# Lumen this month\n\nTwo releases.\n\n## Lumen Core 2.4\n\n### Faster sync (beta)\n\nText.\n\n"
            "### Dark theme\n\nText.\n\n## Lumen Server 1.0\n\nThe server reached 1.0 this month.\n\n"
            "### Range requests\n\n### Health endpoint\n\n## Thanks to our sponsors\n\nThank you.\n")
    # A roundup's release group says a line of its own: its bare sub-headings are its features.
    assert features(text) == [
        ("Faster sync", "beta", "Lumen Core 2.4"),
        ("Dark theme", None, "Lumen Core 2.4"),
        ("Range requests", None, "Lumen Server 1.0"),
        ("Health endpoint", None, "Lumen Server 1.0"),
    ]


def test_a_bare_component_ending_a_heading_shows_its_name_as_the_badge():
    text = ("---\ntitle: Lumen 2.1\n---\n\nimport { Beta } from './Beta';\n\nWhat changed.\n\n"
            "## Faster sync <Beta />\n\nText.\n\n## Dark theme <Sparkle />\n\nText.\n")
    # A component named for a maturity label is the label; one named otherwise is no word.
    assert features(text) == [("Faster sync", "beta", None), ("Dark theme", None, None)]


def test_a_note_named_for_what_it_is_about_is_an_aside():
    text = ("<h1>Lumen release notes (May 2026)</h1><h2>Editor</h2><h3>Split view</h3><p>Two panes.</p>"
            "<h3>Beta environment note</h3><p>These reach the beta environment on May 30.</p>"
            "<h2>Storage</h2><h3>Smaller pages</h3><p>Pages take less room.</p>")
    # The label word is the note's subject, not a feature's label.
    assert features(text) == [("Split view", None, "Editor"), ("Smaller pages", None, "Storage")]


def test_a_bold_line_stating_a_value_is_no_heading():
    text = ("---\ntitle: Lumen 2.1\n---\n\nWhat changed.\n\n**Image tag: 2.1.0**\n\nPull it as usual.\n\n"
            "## Faster sync\n\nText.\n\n## Dark theme\n\nText.\n")
    assert features(text) == [("Faster sync", None, None), ("Dark theme", None, None)]


def test_a_change_named_as_a_question_with_its_issues_number_is_a_heading_line():
    text = ("Lumen Maps 7.0\n\nThe quest release.\n\n🎉 New quests\n\n"
            "Does this gate have a lock? (#512)\nasks whether a gate can be locked, where gates are mapped.\n\n"
            "Is this path lit at night? (#518)\nasks whether footpaths have street lights at night.\n\n"
            "✨ Enhancements\n\n📷 Photos in notes (#530)\nPhotos can be attached to notes.\n\n"
            "🗺️ Brighter map at dusk\nRoads have more contrast in the evening.\n")
    # The question is the change's name, its issue's number after it: no sentence.
    assert features(text) == [
        ("Does this gate have a lock? (#512)", None, "New quests"),
        ("Is this path lit at night? (#518)", None, "New quests"),
        ("Photos in notes (#530)", None, "Enhancements"),
        ("Brighter map at dusk", None, "Enhancements"),
    ]
