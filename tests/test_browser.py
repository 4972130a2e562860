"""The digest and the archive page in a real headless Chromium, at phone and desktop-mail widths,
in light and dark mode. Screenshots are kept in tests/artifacts/ for a person to look at."""

from datetime import timedelta
from pathlib import Path

import pytest
from helpers import NOW
from helpers.browser import ARTIFACTS, CHROMIUM, LAUNCH_ARGS
from helpers.posts import big_digest, lumen, numbered, small_digest

from newsletter import pipeline
from newsletter.config import StateLocation
from newsletter.models import Digest, GraduatedLine
from newsletter.publish import digest as digests
from newsletter.publish.paths import post_page_path

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (Debian package chromium)"),
]

# The contrast ratio WCAG asks of body text (AA).
MIN_CONTRAST = 4.5

# For each piece of text (list items, headings, badges, dates, links): its colour and the
# first opaque background behind it.
COLOURS_JS = """
() => [...document.querySelectorAll('li, h1, h2, h3, .badge, .meta, .count, a')].map(element => {
  let node = element, background = 'rgba(0, 0, 0, 0)';
  while (node && node.nodeType === 1) {
    background = getComputedStyle(node).backgroundColor;
    if (!/rgba\\(.*, 0\\)$/.test(background) && background !== 'transparent') break;
    node = node.parentElement;
  }
  return [getComputedStyle(element).color, background];
})
"""


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


def luminance(css: str) -> float:
    channels = [int(float(c)) / 255 for c in css[css.index("(") + 1: css.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def check_page(browser, path: Path, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    backgrounds = {}
    for width in (375, 600):
        for scheme in ("light", "dark"):
            page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
            try:
                page.goto(path.as_uri())
                scroll_width, inner_width = page.evaluate(
                    "[document.documentElement.scrollWidth, window.innerWidth]")
                page.screenshot(path=str(ARTIFACTS / f"{name}-{width}-{scheme}.png"), full_page=True)
                assert scroll_width <= inner_width, f"{name} overflows at {width}px ({scheme})"
                colours = page.evaluate(COLOURS_JS)
                assert colours
                for text, background in colours:
                    assert contrast(text, background) >= MIN_CONTRAST, (name, width, scheme, text, background)
                backgrounds[scheme] = colours[0][1]
            finally:
                page.close()
    assert luminance(backgrounds["dark"]) < 0.1 < luminance(backgrounds["light"])


@pytest.mark.parametrize("name, make", [("digest-small", small_digest), ("digest-20-large", big_digest)])
def test_the_digest_reads_well_on_a_phone_and_in_a_mail_client(browser, config, tmp_path, name, make):
    path = tmp_path / f"{name}.html"
    path.write_text(digests.render_digest(config, make()).html, encoding="utf-8")
    check_page(browser, path, name)


def test_the_archive_page_reads_well_on_a_phone_and_a_desktop(browser, config, tmp_path):
    path = tmp_path / "index.html"
    digest_list = [
        Digest(3, "2026-11-02-2", NOW + timedelta(hours=6), (numbered(7),)),
        Digest(2, "2026-11-02-1", NOW, (lumen(), numbered(5))),
        Digest(1, "2026-10-01-1", NOW.replace(month=10, day=1), (numbered(1), numbered(2))),
    ]
    path.write_text(digests.render_index(config, digest_list, older="index-1.html", newer="index-3.html"),
                    encoding="utf-8")
    check_page(browser, path, "index")


def test_a_post_page_reads_well_on_a_phone_and_a_desktop(browser, config, posts_dir):
    (posts_dir / "moss-draft.md").write_text(
        "---\ntitle: Moss 1.2 draft notes, with a title long enough to wrap on a phone\n---\n\n"
        "Moss 1.2 is *nearly* here, with a [changelog](https://moss.example.org/n).\n\n"
        "Summary:\n- Faster sync on slow networks\n- Smaller installs\n\n## Sync\n\n### Sync engine (Beta)\n\n"
        "Writes are queued.\n\n```\nmoss sync --offline --queue-everything-until-the-network-returns\n```\n"
        "\n## Other\n\n### Old hooks removed (Deprecated)\n\nGone.\n",
        encoding="utf-8")
    pipeline.build(config, now=NOW)
    check_page(browser, config.archive_dir / post_page_path("posts", "moss-draft.md"), "post-draft")
    check_page(browser, config.archive_dir / post_page_path("posts", "lumen-2.0.md"), "post-lumen")


def test_the_digests_graduated_block_reads_well_on_a_phone(browser, config, tmp_path):
    path = tmp_path / "digest-graduated.html"
    graduated = ["ZeroRedundancyOptimizer: Beta → Stable", "A feature with a rather long name for a phone: Prototype → Beta"]
    lines = [GraduatedLine(line, "https://digest.example.org/features/pytorch.html") for line in graduated]
    path.write_text(digests.render_digest(config, small_digest(), lines).html, encoding="utf-8")
    check_page(browser, path, "digest-graduated")
    page = browser.new_page(viewport={"width": 375, "height": 900})
    try:
        page.goto(path.as_uri())
        block = page.get_by_text("Graduated", exact=True)
        assert block.is_visible()
        assert page.get_by_text(graduated[0]).bounding_box()["width"] <= 375
    finally:
        page.close()


def test_features_html_of_many_projects_and_an_initials_page_read_well_and_link_each_other(
        browser, tmp_path, monkeypatch):
    from test_feature_initials import built_folder, posts_of

    from newsletter.publish import feature_pages

    monkeypatch.setattr(feature_pages, "PAGE_PROJECTS", 3)
    projects = ["Alder", "Aspen", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Ginkgo", "Hazel", "Ivy", "7zip"]
    config = built_folder(tmp_path / "built", StateLocation(path=tmp_path / "state.sqlite"),
                          [posts_of(tmp_path / "posts", *projects)])
    index, initial = config.archive_dir / "features.html", config.archive_dir / "features-a.html"
    check_page(browser, index, "features-paged-index")
    check_page(browser, initial, "features-paged-a")
    page = browser.new_page(viewport={"width": 375, "height": 900})
    try:
        page.goto(index.as_uri())
        page.get_by_role("link", name="A", exact=True).click()
        assert page.url == initial.as_uri()
        assert page.get_by_role("link", name="Aspen").is_visible()
        # Every initial, "I" as well as "Other", is a tap target of a finger's size.
        boxes = page.evaluate("""() => [...document.querySelectorAll('.initials a')].map(
            a => [a.getBoundingClientRect().width, a.getBoundingClientRect().height])""")
        assert len(boxes) == 10 and min(min(box) for box in boxes) >= 24
        page.get_by_role("link", name="Every initial").click()
        assert page.url == index.as_uri()
    finally:
        page.close()


def test_the_features_page_reads_well_on_a_phone_and_a_desktop_without_script(browser, tmp_path):
    from test_history import WREN, built_folder

    config = built_folder(tmp_path, StateLocation(path=tmp_path / "state.sqlite"), [WREN])
    index = config.archive_dir / "features.html"
    path = config.archive_dir / "features" / "wren.html"
    for shown in (index, path):
        assert "<script" not in shown.read_text(encoding="utf-8")
        check_page(browser, shown, f"features-{shown.stem}")
    for scheme in ("light", "dark"):
        page = browser.new_page(viewport={"width": 375, "height": 900}, color_scheme=scheme)
        try:
            page.goto(path.as_uri())
            # Every coloured mark's letter stands out from its colour.
            marks = page.evaluate("""() => [...document.querySelectorAll('.mark:not(.none)')].map(
                element => [getComputedStyle(element).color, getComputedStyle(element).backgroundColor])""")
            assert len(marks) > 20
            for text, background in marks:
                assert contrast(text, background) >= MIN_CONTRAST, (scheme, text, background)
            # The feature names stay in view while the releases scroll beside them.
            heading = page.get_by_role("rowheader", name="Streaming Reader").first.bounding_box()
            assert heading["x"] >= 0 and heading["x"] + heading["width"] <= 375
        finally:
            page.close()
