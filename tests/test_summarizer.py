from datetime import UTC, datetime
from pathlib import Path

import pytest
from helpers.shapes import features
from hypothesis import given, settings
from hypothesis import strategies as st

from newsletter.models import STABILITIES, Feature
from newsletter.summarize import detect_language, split_label, summarize
from newsletter.text.encoding import decode

POSTS = Path(__file__).parent / "fixtures" / "posts"


def post(name: str):
    return summarize(decode((POSTS / name).read_bytes()))


# labels


@pytest.mark.parametrize("text, expected", [
    ("(Beta) Functional API", ("Functional API", "beta")),
    ("[Stable] Torch.fft support", ("Torch.fft support", "stable")),
    ("（Beta）模块的功能API", ("模块的功能API", "beta")),
    ("【Prototype】Planner", ("Planner", "prototype")),
    ("(BETA) Streaming API", ("Streaming API", "beta")),
    ("TorchSnapshot (Beta)", ("TorchSnapshot", "beta")),
    ("fetch (experimental)", ("fetch", "experimental")),
    ("Exporter (alpha)", ("Exporter", "alpha")),
    ("\\[Beta] Escaped label", ("Escaped label", "beta")),
    ("[ Preview ] Spaced", ("Spaced", "preview")),
    ("(Deprecated) - Old API", ("Old API", "deprecated")),
    ("Plain heading (with notes)", ("Plain heading (with notes)", None)),
    ("Beta testing program", ("Beta testing program", None)),
    ("（测试版）分布式训练", ("分布式训练", "beta")),
    ("【プロトタイプ】新しいAPI", ("新しいAPI", "prototype")),
    ("(Bêta) Requêtes préparées", ("Requêtes préparées", "beta")),
    ("[Experimentell] Asynchrone Dateien", ("Asynchrone Dateien", "experimental")),
    ("Zeitzonen (Stabil)", ("Zeitzonen", "stable")),
])
def test_split_label(text, expected):
    assert split_label(text) == expected


# features and sections


def test_feature_headings_under_a_group_heading_take_it_as_section():
    text = "# T\n\n## Group\n\n### (Beta) One\n\nText.\n\n### Two\n\nText.\n"
    assert features(text) == [("One", "beta", "Group"), ("Two", None, "Group")]


def test_group_heading_is_not_a_feature():
    text = "# T\n\n## Group\n\n### One\n\nText.\n"
    assert [f[0] for f in features(text)] == ["One"]


def test_nearest_grouping_heading_is_the_section():
    text = "# T\n\n## Part\n\n### Library\n\n#### Feature A\n\nText.\n\n### Feature B\n\nText.\n"
    assert features(text) == [("Feature A", None, "Library"), ("Feature B", None, "Part")]


def test_labeled_heading_with_only_an_example_under_it_is_a_feature_without_section():
    text = ("# T\n\n## APIs\n\n### (Beta) A\n\nText.\n\n## [Beta] Transforms\n\nText.\n\n"
            "### An example transform:\n\n```\n# code\n```\n\n## Tools\n\n### B\n\nText.\n")
    assert features(text) == [("A", "beta", "APIs"), ("Transforms", "beta", None), ("B", None, "Tools")]


def test_labeled_heading_one_level_up_among_features_is_still_a_feature():
    text = "# T\n\n## Group\n\n### A\n\nText.\n\n### B\n\nText.\n\n## [Beta] C\n\nText.\n"
    assert ("C", "beta", None) in features(text)


def test_example_heading_ending_in_colon_is_not_a_feature():
    text = "# T\n\n## Group\n\n### Feature\n\nText.\n\n### Usage example:\n\nText.\n"
    assert [f[0] for f in features(text)] == ["Feature"]


def test_bold_only_paragraph_stands_as_heading():
    text = "# T\n\n## Group\n\n**(Beta) Automatic Dynamic Shapes**\n\nText about it.\n"
    assert features(text) == [("Automatic Dynamic Shapes", "beta", "Group")]


def test_bold_led_labeled_list_items_are_features_of_their_group():
    text = ("# T\n\n## Parallelism\n\n### Additional Prototype Features\n\nIntro.\n\n"
            "* **(Prototype) Zero Redundancy** - shards state.\n\n* **(Prototype) Remote Module** - remote.\n")
    assert features(text) == [
        ("Zero Redundancy", "prototype", "Additional Prototype Features"),
        ("Remote Module", "prototype", "Additional Prototype Features"),
    ]


def test_bold_led_labeled_paragraph_is_a_feature():
    text = "# T\n\n## Extras\n\nIntro.\n\n***(Prototype) Graph Mode*** - a new mode.\n"
    assert features(text) == [("Graph Mode", "prototype", "Extras")]


def test_bold_led_unlabeled_items_are_not_features():
    text = "# T\n\n## Group\n\nIntro.\n\n* **Vision** - new models.\n* **Audio** - new codecs.\n"
    assert features(text) == [("Group", None, None)]


def test_sign_off_in_bold_is_not_a_feature():
    text = "---\nauthor: Team Example\n---\n# T\n\n## A\n\nText.\n\nCheers!\n\n***Team Example***\n"
    assert [f[0] for f in features(text)] == ["A"]


def test_byline_in_bold_is_not_a_feature():
    text = "# T\n\n**By Team Example**\n\nIntro.\n\n## A\n\nText.\n"
    assert [f[0] for f in features(text)] == ["A"]


def test_code_comments_never_become_features():
    assert [f.heading for f in post("cinder-0.4.md").features] == ["Scripting", "Command line", "Exporters"]


def test_closing_part_among_group_headings_is_not_a_feature():
    text = "# T\n\n## Group\n\n### A\n\nText.\n\n## Conclusion\n\nThanks.\n"
    assert [f[0] for f in features(text)] == ["A"]


def test_flat_post_headings_are_all_features():
    text = "# T\n\n## A\n\nText.\n\n## (Beta) B\n\nText.\n"
    assert features(text) == [("A", None, None), ("B", "beta", None)]


def test_closing_headings_after_the_last_labeled_feature_are_not_features():
    text = ("# T\n\n## (Beta) A\n\nText.\n\n## B\n\nText.\n\n## Getting started\n\nText.\n\n"
            "## Acknowledgements\n\nText.\n\n## Danksagung\n\nText.\n")
    assert features(text) == [("A", "beta", None), ("B", None, None)]


def test_closing_word_before_a_labeled_feature_still_heads_a_feature():
    text = "# T\n\n## Install hooks\n\nText.\n\n## (Beta) A\n\nText.\n"
    assert [f[0] for f in features(text)] == ["Install hooks", "A"]


def test_summary_heading_is_not_a_feature():
    text = "# T\n\nIntro.\n\n## Highlights\n\n- one\n- two\n\n## A\n\nText.\n"
    summary = summarize(text)
    assert summary.summary_bullets == ("one", "two") and [f.heading for f in summary.features] == ["A"]


def test_markdown_fixture_features():
    assert post("lumen-2.4.md").features == (
        Feature("Shader cache", "stable", "Rendering"),
        Feature("fetch", "experimental", "Rendering"),
        Feature("Tone mapping", "beta", "Rendering"),
        Feature("Asset pipeline", "alpha", "Tooling"),
        Feature("Build watcher", "stable", "Tooling"),
        Feature("Vulkan backend", "preview", "Platform notes"),
        Feature("GL2 backend", "deprecated", "Platform notes"),
    )


def test_html_page_features():
    assert post("orbit-1.3.html").features == (
        Feature("Priority queues", "beta", "Scheduling"),
        Feature("Cron expressions", None, "Scheduling"),
        Feature("Metrics endpoint", "prototype", "Observability"),
    )


def test_text_scrape_features():
    assert post("tessera-5.0.txt").features == (
        Feature("Parallel tile decoding", None, "Performance"),
        Feature("Offline mode", "beta", "Performance"),
        Feature("Vector styles", "stable", "Styling"),
    )


def test_rest_features():
    assert post("kiln-3.1.rst").features == (
        Feature("Remote execution", "experimental", "Builds"),
        Feature("Sandboxing", None, "Builds"),
        Feature("Content-addressed cache", "stable", "Caching"),
    )


def test_toml_setext_and_raw_html_features():
    assert post("quill-0.9.md").features == (
        Feature("Volltextsuche", "beta", "Neue Funktionen"),
        Feature("Export nach EPUB", "alpha", "Neue Funktionen"),
        Feature("Konfiguration", "deprecated", "Änderungen"),
    )


def test_japanese_translation_features():
    assert post("hikari-2.0.ja.md").features == (
        Feature("新しいレンダラー", "beta", "レンダリング"),
        Feature("字幕のサポート", None, "レンダリング"),
        Feature("プラグイン API", "prototype", "拡張"),
    )


# summary bullets


def test_bullets_after_summary_label_without_blank_line():
    text = "# T\n\nIntro.\n\nSummary:\n- **Bold** part and [a link](https://x.example)\n- `code` part\n\n## A\n\nText."
    assert summarize(text).summary_bullets == ("Bold part and a link", "code part")


def test_bullets_after_highlights_sentence_keep_trailing_words():
    text = "# T\n\nA few of the highlights include:\n\n1. One;\n\n2. Two; and\n3. Three\n\n## A\n\nText."
    assert summarize(text).summary_bullets == ("One;", "Two; and", "Three")


def test_nested_bullets_fold_into_their_parent():
    text = "# T\n\nHighlights:\n\n- One\n    - detail\n- Two\n\n## A\n\nText."
    assert summarize(text).summary_bullets == ("One", "Two")


def test_chinese_summary_label():
    text = "# 标题\n\n介绍。\n\n总结：\n\n*   第一\n*   第二\n\n## 部分\n\n文字。"
    assert summarize(text).summary_bullets == ("第一", "第二")


def test_scrape_first_list_before_first_section_is_the_summary():
    assert post("tessera-5.0.txt").summary_bullets == (
        "Tiles load twice as fast", "A new offline mode", "Vector styles are stable")


def test_list_inside_a_section_is_not_the_summary():
    text = "# T\n\nIntro.\n\n## A\n\nText:\n\n- one\n- two\n"
    assert summarize(text).summary_bullets == ()


# metadata


def test_front_matter_metadata():
    summary = post("lumen-2.4.md")
    assert summary.title == "Lumen 2.4: faster shaders, a new asset pipeline"
    assert summary.author == "The Lumen Maintainers"
    assert summary.published == datetime(2024, 3, 5, tzinfo=UTC)
    assert summary.format == "markdown"


def test_toml_front_matter_date_and_language():
    summary = post("quill-0.9.md")
    assert summary.published == datetime(2024, 5, 1, 8, tzinfo=UTC)
    assert summary.language == "de"


def test_title_from_opening_heading():
    assert summarize("# The Title\n\nText.\n\n## A\n\nText.").title == "The Title"


def test_scrape_without_title_has_none():
    assert post("tessera-5.0.txt").title is None


def test_rest_title_from_overlined_heading():
    assert post("kiln-3.1.rst").title == "Kiln 3.1 release notes"


def test_byline_author():
    assert post("tessera-5.0.txt").author == "Jun Park"


@pytest.mark.parametrize("line, author", [
    ("**来自 PyTorch团队**", "PyTorch团队"),
    ("作者：李雷", "李雷"),
    ("**Hikari チームより**", "Hikari チーム"),
    ("Von Anna Schmidt", "Anna Schmidt"),
    ("by the Tern maintainers", "the Tern maintainers"),
])
def test_byline_in_other_languages(line, author):
    assert summarize(f"# T\n\n{line}\n\nText.").author == author


def test_sign_off_author():
    assert summarize("# T\n\nText.\n\n## A\n\nText.\n\nCheers!\n\nThe Release Team").author == "The Release Team"


def test_html_page_metadata():
    summary = post("orbit-1.3.html")
    assert summary.title == "Orbit 1.3 released"
    assert summary.author == "Mira Okafor"
    assert summary.canonical_url == "https://orbit.example.com/blog/orbit-1-3/"
    assert summary.published == datetime(2024, 2, 10, 9, 30, tzinfo=UTC)
    assert summary.language == "en"
    assert summary.format == "html"


def test_translation_names_its_original():
    summary = post("hikari-2.0.ja.md")
    assert summary.canonical_url == "https://hikari.example.dev/blog/hikari-2-0/"
    assert summary.language == "ja"


def test_url_is_canonical_only_when_the_post_names_none():
    assert summarize("# T\n\nText.", url="https://a.example/p").canonical_url == "https://a.example/p"
    named = "# T\n\nOriginal: https://b.example/original\n\nText."
    assert summarize(named, url="https://a.example/p").canonical_url == "https://b.example/original"


def test_links():
    assert post("lumen-2.4.md").links == ("https://lumen.example.org/docs/assets",)


@pytest.mark.parametrize("text, language", [
    ("这是一个新版本，包含许多改进。", "zh"),
    ("これは新しいリリースです。多くの改善が含まれています。", "ja"),
    ("새로운 릴리스에는 많은 개선 사항이 포함되어 있습니다.", "ko"),
    ("Новый выпуск содержит множество улучшений.", "ru"),
    ("Die neue Version ist da und bringt viele Verbesserungen für alle, die mit der Bibliothek arbeiten.", "de"),
    ("La nouvelle version est disponible avec des améliorations pour les utilisateurs.", "fr"),
    ("The new release brings many improvements for the people who use it.", "en"),
    ("", "en"),
])
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_language_of_mostly_chinese_post_with_english_terms():
    text = "# 新版本\n\n我们很高兴地宣布 PyTorch 1.12 的发布，包括 TorchArrow、nvFuser 和 FSDP API 的更新。\n"
    assert summarize(text).language == "zh"


# robustness (speed is measured by bench/, not asserted here)


@pytest.mark.parametrize("text", [
    "",
    "\x00" * 100,
    "# T\n\n" + "\n".join("  " * depth + "- item" for depth in range(2000)),
    "\n\n".join(f"## (Beta) Heading {n}\n\ntext" for n in range(3000)),
    "# T\n\n" + "**b** " * 100_000,
    "# T\n\n" + "![a](" * 20_000,
    "# T\n\n" + "[a](\n" * 20_000,
    "# T\n\n" + "[" * 20_000 + "]" * 20_000,
])
def test_summarize_never_raises_on_hostile_posts(text):
    summary = summarize(text)
    assert all(f.stability in (None, *STABILITIES) for f in summary.features)


@given(st.text(max_size=2000), st.sampled_from([None, "text/html", "text/plain"]))
@settings(max_examples=200, deadline=None)
def test_summarize_never_raises_on_any_text(text, media_type):
    summarize(text, media_type=media_type)


def test_question_heading_is_not_a_feature():
    text = "# T\n\n## A\n\nText.\n\n## What's next?\n\nMore.\n"
    assert [f[0] for f in features(text)] == ["A"]


def test_heading_that_starts_with_by_is_not_a_byline():
    summary = summarize("# T\n\n## By the numbers\n\nText.\n")
    assert summary.author is None and [f.heading for f in summary.features] == ["By the numbers"]


def test_source_code_line_is_not_the_canonical_url():
    assert summarize("# T\n\nSource: https://code.example/repo\n\nText.").canonical_url is None


def test_script_beats_a_page_template_saying_english():
    page = "<html lang='en'><body><article><h1>标题</h1><p>我们很高兴地宣布新版本的发布，包含许多改进。</p></article></body></html>"
    assert summarize(page).language == "zh"


def test_scrape_labeled_list_items_are_features():
    text = ("Intro.\n\nParallelism\n\nWe have prototypes. See below:\n\nAdditional Features\n\nDraft docs below:\n\n"
            "• (Prototype) Remote Module - runs remotely\n• (Prototype) Zero Redundancy - shards state\n")
    assert features(text) == [("Remote Module", "prototype", "Additional Features"),
                              ("Zero Redundancy", "prototype", "Additional Features")]


@pytest.mark.parametrize("line", ["> 发布: 2022年06月28日", "Published: 2022-06-28", "Posted on 2022/6/28"])
def test_published_from_a_dateline(line):
    assert summarize(f"# T\n\n{line}\n\nText.").published == datetime(2022, 6, 28, tzinfo=UTC)


def test_page_title_without_site_name():
    assert summarize("<html><head><title>Orbit 1.4 | Orbit Blog</title></head><body><p>x</p></body></html>").title == "Orbit 1.4"


@pytest.mark.parametrize("value, expected", [
    ("2022-06-28 10:00:00 -0700", datetime(2022, 6, 28, 17, tzinfo=UTC)),
    ("Tue, 28 Jun 2022 10:00:00 GMT", datetime(2022, 6, 28, 10, tzinfo=UTC)),
    ("June 28, 2022", datetime(2022, 6, 28, tzinfo=UTC)),
    ("2022-06-28 10:00 PST", datetime(2022, 6, 28, tzinfo=UTC)),
    ("not a date", None),
    ("2022-13-45", None),
])
def test_front_matter_dates(value, expected):
    assert summarize(f"---\ndate: '{value}'\n---\n# T\n\nText.").published == expected


def test_body_heading_rewording_the_declared_title_is_not_a_section():
    text = "---\ntitle: Orbit 2.0 is here\n---\n# Orbit 2.0: it is here\n\n## A\n\nText.\n\n## B\n\nText.\n"
    summary = summarize(text)
    assert summary.title == "Orbit 2.0 is here" and features(text) == [("A", None, None), ("B", None, None)]


def test_scrape_figure_caption_between_paragraphs_is_not_a_feature():
    text = ("Intro.\n\nRendering\n\nFaster shaders\n\nShaders compile faster now.\n\n"
            "Frame times over a minute of play (lower is better)\n\nAlongside this, the cache is smaller.")
    assert [f[0] for f in features(text)] == ["Faster shaders"]


def test_scrape_figure_caption_above_a_heading_does_not_group_it():
    text = ("Intro.\n\nRendering\n\nFaster shaders\n\nShaders compile in parallel on every core.\n\n"
            "Shader compile times on eight cores\n\nSmaller textures\n\nTextures are stored compressed.\n")
    assert features(text) == [("Faster shaders", None, "Rendering"), ("Smaller textures", None, "Rendering")]


def test_scrape_labeled_line_after_a_paragraph_it_echoes_is_a_feature_not_a_caption():
    text = ("Intro.\n\nSync\n\nOffline mode (Beta)\n\nConflicts are reported, never merged.\n\n"
            "Conflict reports (Prototype)\n\nA new command lists writes that were not replayed.\n")
    assert features(text) == [("Offline mode", "beta", "Sync"), ("Conflict reports", "prototype", "Sync")]


def test_scrape_cjk_heading_shares_characters_with_its_text():
    text = "介绍。\n\n渲染\n\n着色器缓存\n\n新的着色器缓存让启动更快。\n\n字幕支持\n\n现在可以读取字幕文件。"
    assert [f[0] for f in features(text)] == ["着色器缓存", "字幕支持"]


def test_marked_up_heading_needs_no_shared_words():
    assert [f[0] for f in features("# T\n\n## Odd name\n\nUnrelated prose.\n")] == ["Odd name"]


def test_page_author_from_a_byline_outside_the_article():
    page = ("<html><body><div class='hero'><h1>Orbit 1.4</h1><p class='author'>by Team Orbit</p></div>"
            "<article><p>" + "Prose. " * 30 + "</p><h2>Feature</h2><p>Feature prose.</p></article></body></html>")
    summary = summarize(page)
    assert (summary.title, summary.author) == ("Orbit 1.4", "Team Orbit")


def test_indented_scrape_with_its_title_line():
    summary = post("ember-2.1.txt")
    assert (summary.title, summary.author) == ("Ember 2.1 is here", "Team Ember")
    assert summary.summary_bullets == ("Faster compile times", "New profiler")
    assert summary.features == (
        Feature("Incremental compilation", None, "Compiler"),
        Feature("Ahead-of-time export", "prototype", "Compiler"),
        Feature("Profiler", None, "Tooling"),
    )


def test_summary_list_under_an_overview_heading():
    text = "# T\n\n## Overview\n\nThe highlights include:\n\n- one\n- two\n\n## Group\n\n### A\n\nText.\n"
    summary = summarize(text)
    assert summary.summary_bullets == ("one", "two") and [f.heading for f in summary.features] == ["A"]


def test_summary_label_far_down_the_post_is_not_the_summary():
    text = "# T\n\n## A\n\nText.\n\n## B\n\nHighlights include:\n\n- one\n"
    assert summarize(text).summary_bullets == ()


def test_scrape_opening_with_title_and_byline_unspaced():
    summary = summarize("Tool 2.0 is here\nBy the Tool maintainers | 12 February 2025 | 6 min read\n\n"
                        "Intro paragraph.\n\nFeature\n\nThe feature does things.\n")
    assert (summary.title, summary.author) == ("Tool 2.0 is here", "the Tool maintainers")


# A scrape's groups, told by its highlights

_SCRAPE_OPENING = "Intro to the release, with many changes.\n\n"


def test_scrape_heading_naming_a_bullets_subject_groups_the_heading_it_sums_up():
    text = (_SCRAPE_OPENING + "  • Gizmo with smarter caching\n  • Parsers in Rust\n\n"
            "Gizmo\n\nGizmo is our job runner.\n\nSmarter caching\n\nThe caching now keys on content.\n\n"
            "(Beta) Rust parsers\n\nParsers are rewritten in Rust.")
    assert features(text) == [("Smarter caching", None, "Gizmo"), ("Rust parsers", "beta", "Gizmo")]


def test_scrape_heading_in_no_bullet_over_a_highlighted_labeled_heading_is_a_group():
    text = (_SCRAPE_OPENING + "  • An async client\n\n  • Shell completion\n\n"
            "Networking\n\nTwo new ways to talk to servers.\n\n(Beta) Async client\n\nIt mirrors the sync one.\n\n"
            "Tooling\n\nThe command line got faster.\n\n[Stable] Shell completion\n\nFor bash and zsh.")
    assert features(text) == [("Async client", "beta", "Networking"), ("Shell completion", "stable", "Tooling")]


def test_scrape_highlighted_heading_over_an_other_feature_stays_a_feature():
    text = (_SCRAPE_OPENING + "  • Loaders compatible with pipelines\n  • Cloud storage\n\n"
            "Data\n\nCompatible loaders\n\nLoaders now work with pipelines.\n\n"
            "(Beta) Cloud storage\n\nRead from buckets.")
    assert features(text) == [("Compatible loaders", None, "Data"), ("Cloud storage", "beta", "Data")]


def test_scrape_line_above_a_labeled_heading_is_no_caption():
    text = (_SCRAPE_OPENING + "Networking\n\n(Beta) Fetch\n\nBuilds fetch remote files.\n\n"
            "Build pipeline\n\n(Beta) Plugin hooks\n\nPlugins can rewrite the output.")
    assert features(text) == [("Fetch", "beta", "Networking"), ("Plugin hooks", "beta", "Build pipeline")]


def test_scrape_paragraph_led_by_a_labeled_name_is_a_feature():
    text = (_SCRAPE_OPENING + "More features\n\nSome more features to try.\n\n"
            "(Prototype) Graph mode - a new way to quantize models.\n\nClosing words here.")
    assert ("Graph mode", "prototype", "More features") in features(text)


def test_scrape_title_line_may_run_longer_than_a_heading():
    title = ("Gizmo 1.8 Release, including compiler updates, new profiling tools, a faster parser "
             "and distributed training improvements")
    assert summarize(f"{title}\n\nby The Team\n\nThe release is here.").title == title


def test_link_text_keeps_its_place_in_the_sentence():
    text = ("# Tern 0.9\n\nTern 0.9 is out today with many changes for everyone who uses it.\n\n## Highlights\n\n"
            "- See the release notes [here](https://example.org/notes).\n"
            "- Faster startup by [half](https://example.org/bench), on big projects.\n")
    bullets = summarize(text).summary_bullets
    assert bullets[:2] == ("See the release notes here.", "Faster startup by half, on big projects.")
