"""Shapes met in the eighteenth held-aside set, on invented posts (dotterel fixtures): a
w3m dump that glues its headings, a release page's summary under a lead-in sentence, a
mail that hangs its features' text, changelog categories of plain lists, heading anchors
before a label, heading ids that read like widget names, Malay and Serbian words."""

from __future__ import annotations

from helpers.linear import assert_linear
from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.rest_inline import rest_inline


def test_a_w3m_dump_with_a_menu_row_and_glued_headings():
    text = read("dotterel-4.0-w3m.txt")
    summary = summarize(text)
    # The byline's "[ mastodon ]" is the icon linking to the author's profile: no part of
    # the name. With the byline found, the title above it is too, and the menu row over the
    # rule is the page's, not the highlights.
    assert (summary.title, summary.author) == ("Dotterel 4.0", "Ines Marwick")
    assert summary.summary_bullets == ("Jobs start in half the time on busy queues.",
                                       "Plugins load from any directory the config names.")
    # "Cron expressions with seconds" ends the run of the code above it, right before the
    # next part's line: a feature with no text, not a group. "Removal of the XML job format"
    # is glued over a one-line paragraph, which has no width of its own.
    assert features(text) == [
        ("Fair-share queues", None, "Scheduling"),
        ("Plugin loader", "beta", "Scheduling"),
        ("Cron expressions with seconds", None, "Scheduling"),
        ("Removal of the XML job format", None, "Removals"),
    ]


def test_a_release_page_summary_under_a_lead_in_sentence():
    text = read("dotterel-4.0-release-page.txt")
    summary = summarize(text)
    # "What's new" heads a sentence ending in a colon over the list: the list is the
    # summary, though its items are short names the headings below do not share.
    assert summary.summary_bullets == ("Queues can be shared between tenants", "New plugin loader",
                                       "Go 1.24 support")
    # A backslash inside a name is the name's; only Markdown's escapes go.
    assert ("Jobs\\Legacy\\XmlReader", "deprecated", "Deprecations") in features(text)


def test_a_list_a_sentence_introduces_under_the_title_is_not_a_summary_by_the_title_alone():
    text = ("# What's new in Dotterel 4.0\n\nDotterel 4.0 is a minor release; it supports:\n\n- Linux 6.1 or later\n"
            "- macOS 14 or later\n\n## Fair-share queues\n\nEach tenant gets its slice of workers.\n")
    assert summarize(text).summary_bullets == ()


def test_a_mail_whose_features_hang_their_text():
    text = read("dotterel-4.0-announce.txt")
    # "Tenant quotas" shares no word with its text, but the hanging indent marks it a
    # heading; a part ends with a feature that has no text, right over the next part.
    assert features(text) == [
        ("Fair-share queues", None, "NEW FEATURES"),
        ("Tenant quotas", None, "NEW FEATURES"),
        ("Cron expressions with seconds", "experimental", "NEW FEATURES"),
        ("XmlReader", "deprecated", "CHANGES"),
        ("scheduler.max_jobs default raised to 64", None, "CHANGES"),
    ]


def test_plain_lists_beside_parts_of_features_are_categories():
    rst = ("===========\nRelease 4.0\n===========\n\nFeatures added\n--------------\n\nFair-share queues\n~~~~~~~~~~~~~~~~~\n\n"
           "Each tenant gets its slice.\n\nPlugin loader (beta)\n~~~~~~~~~~~~~~~~~~~~\n\nPlugins load at start-up.\n\n"
           "Deprecated\n----------\n\nXmlReader (deprecated)\n~~~~~~~~~~~~~~~~~~~~~~\n\nUse TOML.\n\n"
           "Bugs fixed\n----------\n\n* #101: Fix a crash on empty queues.\n* #102: Fix ``:ref:`` links.\n\n"
           "Testing\n-------\n\n* Tests run in parallel.\n")
    assert features(rst) == [("Fair-share queues", None, "Features added"), ("Plugin loader", "beta", "Features added"),
                             ("XmlReader", "deprecated", "Deprecated")]
    # Between parts of features, a part of its own with a list is news told as a list.
    between = ("# Dotterel 4.0\n\n## New\n\n### Queues\n\nQueues are shared.\n\n### Plugins (beta)\n\nPlugins load.\n\n"
               "## Python 3.14 support\n\n- wheels for 3.14\n- free-threaded builds\n\n## Removed\n\n"
               "### XmlReader (deprecated)\n\nUse TOML.\n")
    assert ("Python 3.14 support", None, None) in features(between)
    # A notebook's closing list of links stands so too.
    notebook = ("# Dotterel 4.0 er udgivet\n\n## Nye funktioner\n\n### Køer\n\nKøerne deles.\n\n### Plugins (beta)\n\n"
                "Plugins indlæses.\n\n## Ændringer\n\n### XmlReader (forældet)\n\nBrug TOML.\n\n## Videre\n\n"
                "- [Dokumentation](https://example.org/docs)\n- [Forum](https://example.org/forum)\n")
    assert [heading for heading, _, _ in features(notebook)] == ["Køer", "Plugins", "XmlReader"]


def test_a_rest_literal_shows_a_role_as_written():
    assert rest_inline("``:kbd:`` role styling and :doc:`the guide <guide>`") == ":kbd: role styling and the guide"
    # Shown so at a heading's start, it opens a phrase: an emoji's shortcode opens a name.
    rst = ("============\nDotterel 4.0\n============\n\nFeatures added\n--------------\n\n"
           "``:kbd:`` role styling\n~~~~~~~~~~~~~~~~~~~~~~\n\nKeys render as keys.\n\n"
           "Typed options (beta)\n~~~~~~~~~~~~~~~~~~~~\n\nOptions carry types.\n")
    assert features(rst) == [(":kbd: role styling", None, "Features added"),
                             ("Typed options", "beta", "Features added")]
    assert features("# Dotterel 4.0\n\n## :rocket: Faster queues\n\nQueues are faster.\n") == [
        ("Faster queues", None, None)]


def test_a_heading_anchor_before_its_label_and_an_id_that_reads_like_a_widget():
    mdx = ("---\ntitle: Dotterel 4.0\n---\n\n## Scheduler\n\n### Fair-share queues {#fair}\n\nTenants share.\n\n"
           "### Plugin loader {#plugins} (Experimental)\n\nPlugins load.\n")
    assert features(mdx) == [("Fair-share queues", None, "Scheduler"), ("Plugin loader", "experimental", "Scheduler")]
    # A heading's id is the slug of its text: "social" names no share buttons there.
    html = ("<html><head><title>Dotterel 4.0</title></head><body><article><h1>Dotterel 4.0</h1>"
            "<p>Dotterel 4.0 is out with a new scheduler and more.</p><h2 id='sched'>Scheduler</h2>"
            "<h3 id='fair'>Fair-share queues</h3><p>Tenants share workers.</p>"
            "<h3 id='social'>Social cards with <code>cairo</code> (deprecated)</h3><p>Cards use Pillow.</p>"
            "<div class='share'><h3>Share this post</h3></div></article></body></html>")
    assert features(html) == [("Fair-share queues", None, "Scheduler"),
                              ("Social cards with cairo", "deprecated", "Scheduler")]


def test_malay_labels_and_malay_and_serbian_closing_parts():
    malay = ("# Dotterel 4.0\n\n### [Eksperimen] Pelebaran baris gilir\n\nBaris gilir dikongsi.\n\n"
             "### Pembaca XML (lapuk)\n\nGuna TOML.\n\n### Cara menaik taraf\n\nJalankan alat migrasi.\n")
    assert features(malay) == [("Pelebaran baris gilir", "experimental", None), ("Pembaca XML", "deprecated", None)]
    serbian = ("---\ntitle: Dotterel 4.0\n---\n\n## Новине\n\n### Праведни редови (бета)\n\nРедови се деле.\n\n"
               "## Надоградња\n\nПокрените алат.\n\n## Захвалност\n\nХвала свима.\n")
    assert features(serbian) == [("Праведни редови", "beta", "Новине")]


def test_reading_a_dump_with_glued_trailing_headings_is_linear():
    part = ("Scheduling\n\nFair-share queues\nEach tenant gets its slice of workers even when one floods the queue.\n"
            "# dotterel.toml\nplugin_dirs=[\"/opt/plugins\"]\nCron expressions with seconds\n\n")
    assert_linear(summarize, lambda k: "Dotterel 4.0\n\n" + part * 300 * k)
