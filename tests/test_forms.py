import os
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from newsletter.entries import group_forms, url_key
from newsletter.models import Feature, StoredPost, Summary
from newsletter.summarize import summarize
from newsletter.text.encoding import decode

SITE = "https://news.example.org/"
# The shared folder beside the repository (see test_seed_score.py).
SHARED = Path(os.environ.get("NEWSLETTER_SHARED_DIR") or Path(__file__).resolve().parents[1].parent / "shared")
SEEDS = SHARED / "corpus" / "seeds"
DAY0 = datetime(2024, 1, 1, tzinfo=UTC)


def summary(*, canonical=None, links=(), features=(), bullets=(), language="en", format="markdown",
            published=None) -> Summary:
    return Summary(
        title="T", author=None, language=language, canonical_url=canonical,
        summary_bullets=tuple(bullets), features=tuple(Feature(h, None, None) for h in features),
        format=format, published=published, links=tuple(links),
    )


def stored(post_id: int, summary: Summary, *, day: int = 0, url=None, location=None, source="posts") -> StoredPost:
    seen = DAY0 + timedelta(days=day)
    return StoredPost(post_id, source, location or f"post-{post_id}.md", url, f"hash-{post_id}", seen, seen, seen, summary)


LINKS = [f"https://project.example/docs/page-{n}" for n in range(10)]
FEATURES = ["Priority queues", "Cron expressions", "Metrics endpoint", "Retry policies"]


def test_url_key_ignores_scheme_www_fragment_and_trailing_slash():
    assert url_key("http://www.Example.org/a/#top") == url_key("https://example.org/a") == "example.org/a"
    assert url_key("not a url") is None


def test_translation_joins_its_original_by_canonical_url():
    original = stored(1, summary(), url="https://project.example/blog/post")
    translation = stored(2, summary(canonical="https://project.example/blog/post/", language="ja"), day=1)
    [entry] = group_forms([original, translation], site_url=SITE)
    assert entry.primary is original and entry.alternates == (translation,)


def test_forms_sharing_most_distinctive_links_are_one_post():
    original = stored(1, summary(links=LINKS))
    translation = stored(2, summary(links=LINKS[:8], language="zh", canonical="https://project.example/blog/p"), day=1)
    [entry] = group_forms([original, translation], site_url=SITE)
    assert entry.primary is original


def test_posts_sharing_a_few_links_stay_apart():
    first = stored(1, summary(links=LINKS))
    second = stored(2, summary(links=LINKS[:1] + [f"https://other.example/{n}" for n in range(9)]))
    assert len(group_forms([first, second], site_url=SITE)) == 2


def test_scrape_with_the_same_features_joins_and_the_structured_form_is_primary():
    scrape = stored(1, summary(features=FEATURES, bullets=["One", "Two"], format="text"))
    markdown = stored(2, summary(features=FEATURES, bullets=["One", "Two"]), day=1)
    [entry] = group_forms([scrape, markdown], site_url=SITE)
    assert entry.primary is markdown and entry.alternates == (scrape,)


def test_different_posts_stay_apart():
    first = stored(1, summary(features=FEATURES[:2]))
    second = stored(2, summary(features=["Something else", "Another thing"]))
    assert len(group_forms([first, second], site_url=SITE)) == 2


def test_id_is_a_tag_uri_of_the_earliest_form_without_canonical_url():
    [entry] = group_forms([stored(7, summary(), day=3, location="notes/release.md")], site_url=SITE)
    assert entry.id == "tag:news.example.org,2024-01-04:posts/notes/release.md"


def test_id_is_the_canonical_url_when_the_earliest_form_names_one():
    [entry] = group_forms([stored(1, summary(canonical="https://project.example/blog/p"))], site_url=SITE)
    assert entry.id == "https://project.example/blog/p"


def test_id_does_not_change_when_a_new_form_appears():
    original = stored(1, summary(links=LINKS))
    [before] = group_forms([original], site_url=SITE)
    translation = stored(2, summary(links=LINKS, canonical="https://project.example/blog/p", language="zh"), day=5)
    scrape = stored(3, summary(links=LINKS, format="text"), day=6)
    [after] = group_forms([scrape, translation, original], site_url=SITE)
    assert after.id == before.id and after.primary is original


def test_entries_are_newest_first():
    old = stored(1, summary(features=["A1", "A2"]), day=0)
    new = stored(2, summary(features=["B1", "B2"]), day=9)
    dated = stored(3, summary(features=["C1", "C2"], published=DAY0 + timedelta(days=5)), day=10)
    assert [e.primary for e in group_forms([old, new, dated], site_url=SITE)] == [new, dated, old]


def test_ten_thousand_posts_sharing_a_footer_link_group_in_pairs():
    posts = [
        stored(n, summary(links=[f"https://project.example/{n // 2}/{k}" for k in range(5)]
                          + ["https://social.example/project"]), day=n % 365)
        for n in range(10_000)
    ]
    entries = group_forms(posts, site_url=SITE)
    assert len(entries) == 5_000


def test_posts_sharing_only_footer_links_stay_apart():
    footer = ["https://forum.example/", "https://social.example/project", "https://code.example/issues"]
    first = stored(1, summary(links=footer + LINKS[:4]))
    second = stored(2, summary(links=footer + [f"https://other.example/{n}" for n in range(4)]))
    assert len(group_forms([first, second], site_url=SITE)) == 2


def test_posts_sharing_a_few_stock_headings_stay_apart():
    stock = ["Bug fixes", "Documentation", "Deprecations"]
    first = stored(1, summary(features=stock + ["Priority queues", "Cron expressions"]))
    second = stored(2, summary(features=stock + ["Vulkan backend", "Asset pipeline"]))
    assert len(group_forms([first, second], site_url=SITE)) == 2


def test_a_canonical_url_claimed_by_many_posts_is_a_front_page_not_one_post():
    posts = [stored(n, summary(canonical="https://project.example/", features=[f"F{n}a", f"F{n}b"]))
             for n in range(30)]
    assert len(group_forms(posts, site_url=SITE)) == 30


@pytest.mark.skipif(not SEEDS.is_dir(), reason=f"no seed posts at {SEEDS}")
def test_seed_forms_group_into_three_posts():
    posts = [stored(n, summarize(decode(path.read_bytes())), day=n, location=path.name)
             for n, path in enumerate(sorted(SEEDS.iterdir()))]
    entries = group_forms(posts, site_url=SITE)
    assert sorted(sorted(p.location[:3] for p in e.forms) for e in entries) == [["000", "001", "002"], ["003"], ["004"]]
    assert next(e for e in entries if len(e.forms) == 3).primary.location.startswith("000")


def test_the_form_in_the_site_language_leads_its_entry():
    canonical = "https://lumen.example/blog/2.0/"
    german = stored(1, summary(canonical=canonical, language="de"))
    english = stored(2, summary(canonical=canonical, language="en"))
    [entry] = group_forms([german, english], site_url=SITE, site_language="en")
    assert (entry.primary, entry.alternates) == (english, (german,))
    [entry] = group_forms([german, english], site_url=SITE, site_language="de-AT")
    assert entry.primary == german


@pytest.mark.parametrize("url, key", [
    ("https://user@Host.example:8080/p/?q=1#frag", "host.example/p?q=1"),
    ("//cdn.example.org/x/", "cdn.example.org/x"),
    ("https://example.org?", "example.org"),
    ("mailto:team@example.org", None),
    ("https:///no-host", None),
])
def test_url_key_keeps_host_path_and_query_only(url, key):
    assert url_key(url) == key


def test_forms_of_different_sources_never_join_on_content_alone():
    original = stored(1, summary(features=FEATURES, bullets=["One", "Two"], links=LINKS), source="blog")
    copy = stored(2, summary(features=[*FEATURES, "Buy our course"], bullets=["One", "Two"], links=LINKS),
                  day=1, source="copycat")
    assert len(group_forms([original, copy], site_url=SITE)) == 2


def test_a_later_form_from_another_source_never_leads_the_entry():
    original = stored(1, summary(features=FEATURES[:1], format="text"), url="https://project.example/blog/post",
                      source="blog")
    # A feed entry of another source linking to the post, with a richer text of its own.
    claimant = stored(2, summary(features=FEATURES), day=1, url="https://project.example/blog/post", source="copycat")
    [entry] = group_forms([original, claimant], site_url=SITE)
    assert entry.primary is original and entry.alternates == (claimant,)


def test_the_same_text_under_another_source_name_is_one_entry():
    before = stored(1, summary(features=["Only heading"]), source="old-name")
    after = replace(stored(2, summary(features=["Only heading"]), day=1, source="new-name"), content_hash="hash-1")
    [entry] = group_forms([before, after], site_url=SITE)
    assert entry.primary is before
