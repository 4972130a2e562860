"""Shapes met in the thirty-fifth and thirty-sixth held-aside sets, on invented posts: a forum
topic whose post header shows the poster's full name beside the login and a date with a
joining word ("12 de mar.") and a line of counts under the post, a mail whose part names are
indented with their text hanging two columns deeper, a box fenced with ":::" in a post's
opening, a lynx dump whose centered title is ranked above the part names it guessed at its
margin, a mail's highlights part sorted under "[Category]" lines, a release page copied as text
whose highlights lost their bullets under their heading, a mail signed with its author's name on
a line of its own, closing parts named at more length ("Known issues with X", "Obtaining X"), and a dump whose title line, repeating the breadcrumb's last
step, has the dateline joined to it."""

from __future__ import annotations

from helpers.shapes import features, read

from newsletter.summarize import summarize
from newsletter.text.forum_thread import forum_thread
from newsletter.text.unmarked_items import unmarked_lists


def test_a_forum_header_with_the_full_name_and_a_joined_date_opens_the_first_post():
    text = read("quillmoor-4.2-forum.txt")
    summary = summarize(text)
    # The topic's title stands above the header; the full name in brackets names the poster.
    assert (summary.title, summary.author) == ("Quillmoor 4.2 chega com sincronização offline", "Renata Souza")
    # The replies and the likes count are not the post.
    assert features(text) == [
        ("Sincronização offline", "beta", "Novidades"),
        ("Editor de tabelas", None, "Novidades"),
    ]


def test_a_login_alone_still_names_the_poster_and_a_bracketed_number_is_no_name():
    thread = forum_thread("Forum\n\nRelease 2.0 of the tool\n\n ada            Oct 2\n\nWe released 2.0 today, "
                          "with a lot of changes.\n\n ----------\n\n bob            Oct 3\n\nThanks!\n")
    assert thread is not None and thread[0]["author"] == "ada"
    # A number in brackets beside a login (a post count) is no name: no header is read there.
    assert forum_thread("Forum\n\n ada (42)       Oct 2\n\nWe released 2.0 today.\n\n bob      Oct 3\n\nOk\n") is None


def test_a_dump_title_repeating_the_breadcrumb_may_carry_its_dateline():
    text = read("hollin-3.1-w3m.txt")
    summary = summarize(text)
    assert summary.title == "Version 3.1.0"
    assert summary.summary_bullets == ("export au format OpenDocument ;",
                                       "recherche plus rapide dans les grands carnets.")
    # The breadcrumb is the page's header, not a feature.
    assert features(text) == [
        ("Export OpenDocument", None, "Nouveautés"),
        ("Recherche indexée", "beta", "Nouveautés"),
    ]


def test_the_counts_under_a_forum_post_are_not_the_post():
    thread = forum_thread(read("quillmoor-4.2-forum.txt"))
    assert thread is not None
    body = thread[1]
    assert body.rstrip().endswith("Obrigada a todos os que testaram.")
    assert "310 visitas" not in body and "8 gostos" not in body


def test_a_mail_part_name_indented_over_text_hanging_two_columns_deeper_is_a_feature():
    text = read("marlpit-7.0-mail.txt")
    # A wrapped "*) Bugfix:" item hangs its text so too, and stays an item.
    assert features(text) == [
        ("Routing: weighted failover groups", None, "New Features"),
        ("cli: route trace command", None, "New Features"),
        ("mod_legacy_queue", None, "Removed Modules"),
    ]


def test_a_fenced_box_titled_by_a_heading_does_not_end_the_opening():
    text = read("sedgeford-2.4.qmd")
    summary = summarize(text)
    # The box's heading is an aside: the list the sentence under it introduces is the summary.
    assert summary.summary_bullets == ("Notebooks can be exported as slide decks.",
                                       "The kernel starts twice as fast on large projects.")
    assert features(text) == [("Slide decks", None, "Export"), ("Faster start", None, "Kernel")]


def test_a_lynx_title_centered_above_parts_at_the_margin_is_the_title_not_the_site_link():
    text = read("tarnbeck-5.0-lynx.txt")
    assert summarize(text).title == "Tarnbeck 5.0 ist erschienen"
    # The title is no feature of the post.
    assert features(text) == [
        ("Schnellere Matrizen", None, "Rechenkern"),
        ("Import von HDF5", None, "Dateiformate"),
    ]


def test_a_highlights_part_sorted_under_bracketed_category_lines_is_the_summary():
    text = read("grimsby-3.6-mail.txt")
    summary = summarize(text)
    assert summary.summary_bullets == ("New function 'solvemod' for systems modulo n;",
                                       "faster Groebner bases over finite fields",
                                       "Contour plots accept a list of levels",
                                       "A tutorial on modular arithmetic")
    # Neither the part nor its category lines (three of them read as the lists' headings) are features.
    assert not {"MAIN CHANGES IN GRIMSBY 3.6", "[The solver]", "[Plotting]", "[Documentation]"} & {
        heading for heading, _, _ in features(text)}


def test_a_heading_right_over_lines_indented_alike_without_sentences_heads_a_list():
    text = read("fernhollow-3.2-github.txt")
    assert summarize(text).summary_bullets == ("Tasks can depend on tasks of other projects",
                                               "Calendar view for due dates", "New export --csv option")


def test_a_heading_right_over_indented_sentences_heads_its_text_not_a_list():
    group = ["Faster joins", "    Joins use a hash table now.", "    Enable it with:"]
    assert unmarked_lists([group]) == [group]


def test_the_author_s_name_signing_a_mail_is_no_feature():
    summary = summarize(read("ormsby-2027-mail.txt"))
    assert summary.author == "Teodor Lind"
    assert summary.features == ()


def test_closing_parts_on_getting_the_release_and_its_known_issues_are_no_features():
    assert features(read("wendle-4.0-notes.md")) == [
        ("Adaptive time steps", None, "New features"),
        ("HDF5 checkpoints", None, "New features"),
    ]
