"""The language a post is written in, told by a trained identifier: among them the Latin-script
languages a word count took for English."""

from pathlib import Path

import pytest

from newsletter.summarize import language
from newsletter.summarize.language import detect_language

RELEASE_NOTES = {
    "pl": "To wydanie dodaje nowy planer zapytań, przyspiesza indeksowanie i naprawia kilka błędów.",
    "sv": "Den här versionen lägger till en ny frågeplanerare och gör indexeringen snabbare.",
    "tr": "Bu sürüm yeni bir sorgu planlayıcısı ekliyor ve dizinlemeyi hızlandırıyor.",
    "uk": "Цей випуск додає новий планувальник запитів і прискорює індексування.",
    "de": "Diese Version bringt einen neuen Abfrageplaner und beschleunigt die Indizierung.",
    "fr": "Cette version ajoute un nouveau planificateur de requêtes et accélère l'indexation.",
    "es": "Esta versión añade un nuevo planificador de consultas y acelera la indexación.",
    "pt": "Esta versão adiciona um novo planejador de consultas e acelera a indexação.",
    "nl": "Deze versie voegt een nieuwe queryplanner toe en maakt het indexeren sneller.",
    "cs": "Tato verze přidává nový plánovač dotazů a zrychluje indexování.",
    "fi": "Tämä versio lisää uuden kyselysuunnittelijan ja nopeuttaa indeksointia.",
    "zh": "这个版本增加了新的查询规划器，并加快了索引速度。",
    "ja": "このリリースでは新しいクエリプランナーが追加され、インデックス作成が高速になりました。",
    "ko": "이번 릴리스에서는 새로운 쿼리 플래너가 추가되고 인덱싱이 빨라졌습니다.",
    "en": "This release adds a new query planner and makes indexing faster.",
}


@pytest.mark.parametrize(("language", "text"), RELEASE_NOTES.items())
def test_release_notes_are_told_apart(language: str, text: str):
    assert detect_language(text) == language


def test_chinese_full_of_english_names_is_chinese():
    assert detect_language("本次发布的 QueryPlanner 支持 Apache Arrow 和 PostgreSQL 16，并改进了 CLI 的输出。") == "zh"


@pytest.mark.parametrize("text", ["", "1.2.3 -> 1.2.4 (#123)", "----"])
def test_text_without_letters_is_taken_as_english(text: str):
    assert detect_language(text) == "en"


SAMPLES = ["Die neue Version bringt schnellere Abfragen und einen besseren Planer für große Tabellen.",
           "Cette version apporte des requêtes plus rapides et un meilleur planificateur.",
           "This release brings faster queries and a better planner for large tables.",
           "此版本带来更快的查询和更好的大表查询规划器。"]


def ranks(identifier) -> list[list[str]]:
    return [[label for label, _ in identifier.rank(text)[:3]] for text in SAMPLES]


def test_the_unpacked_model_in_the_cache_answers_as_the_packaged_one(tmp_path: Path):
    cached = tmp_path / "cache" / "model"
    made = language._from_cache(cached)  # unpacks the packaged model and keeps a copy
    assert sum(path.stat().st_size for path in cached.iterdir()) > 1_000_000
    reloaded = language._from_cache(cached)
    assert isinstance(reloaded.tk_nextmove, memoryview)  # mapped from the copy, not read
    assert ranks(reloaded) == ranks(made)
    assert [r[0] for r in ranks(reloaded)] == ["de", "fr", "en", "zh"]


def test_the_single_file_copy_of_earlier_releases_goes_when_the_mapped_one_is_made(tmp_path: Path):
    earlier = tmp_path / "py3langid-0.3.0-model.npz"
    earlier.write_bytes(b"an earlier copy")
    language._from_cache(tmp_path / "model")
    assert not earlier.exists()


def test_a_damaged_cache_is_made_again(tmp_path: Path):
    cached = tmp_path / "model"
    language._from_cache(cached)
    (cached / "nextmove.npy").write_bytes(b"not a model")
    assert [r[0] for r in ranks(language._from_cache(cached))] == ["de", "fr", "en", "zh"]
    assert (cached / "nextmove.npy").stat().st_size > 1_000_000
    assert sorted(path.name for path in cached.iterdir()) == sorted(f"{name}.npy" for name in language._ARRAYS)


def test_a_cache_that_cannot_be_written_still_gives_the_model(tmp_path: Path):
    (tmp_path / "cache").write_text("a file where the cache folder should be")
    identifier = language._from_cache(tmp_path / "cache" / "model")
    assert [r[0] for r in ranks(identifier)] == ["de", "fr", "en", "zh"]
