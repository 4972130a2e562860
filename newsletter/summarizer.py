"""A post's outline -> Summary: its metadata, highlight bullets and announced features.

The rules follow how release posts are built rather than what they say: a feature is a
heading with nothing but prose beneath it, a section is a heading with features beneath it,
a maturity label is a bracketed word from STABILITIES wherever it stands. Words matter only
as a second signal, through small multilingual cue lists (a "Summary:" label, a "by" line).
Pure: no I/O, and no input makes it raise.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from newsletter.formats import Block, Code, Document, Heading, ListBlock, Paragraph, parse
from newsletter.models import STABILITIES, Feature, Summary

# Translations sometimes translate the label too.
_TRANSLATED_LABELS = {
    "稳定版": "stable", "稳定": "stable", "测试版": "beta", "原型": "prototype", "实验性": "experimental",
    "预览": "preview", "预览版": "preview", "已弃用": "deprecated", "弃用": "deprecated",
    "安定版": "stable", "ベータ版": "beta", "ベータ": "beta", "プロトタイプ": "prototype", "実験的": "experimental",
    "アルファ": "alpha", "プレビュー": "preview", "非推奨": "deprecated",
    "안정": "stable", "베타": "beta", "프로토타입": "prototype", "실험적": "experimental",
    "stabil": "stable", "experimentell": "experimental", "veraltet": "deprecated", "vorschau": "preview",
    "bêta": "beta", "expérimental": "experimental", "obsolète": "deprecated", "aperçu": "preview",
    "estable": "stable", "prototipo": "prototype", "obsoleto": "deprecated", "estável": "stable",
    "protótipo": "prototype", "stabile": "stable", "sperimentale": "experimental",
    "экспериментальный": "experimental", "бета": "beta", "стабильный": "stable", "прототип": "prototype",
}
_LABEL = re.compile(
    r"\\?[(\[（【]\s*(" + "|".join([*STABILITIES, *_TRANSLATED_LABELS]) + r")\s*\\?[)\]）】]", re.I)
_EDGE_SEPARATORS = " \t-–—:：|·"

# A line naming who wrote the post: "by Team X", "来自 X", "作者：X", "von X".
_BYLINE = re.compile(
    r"^(?:(?:posted |written )?by|von|par|por|di|door|av|af|przez|автор|来自|作者|撰文|著者|筆者|작성자)"
    r"(?:\s*[:：]\s*|\s+)(?P<name>\S.{0,60})$", re.I)
# Labels that introduce a post's highlight list.
_SUMMARY_CUE = re.compile(
    r"summary|highlights?|key (?:features|changes)|what'?s new|tl;?dr|at a glance|"
    r"总结|摘要|亮点|要点|概要|重点|まとめ|ハイライト|주요|요약|zusammenfassung|überblick|höhepunkte|"
    r"résumé|en bref|points forts|faits marquants|resumen|destacados|novedades|riepilogo|in breve|"
    r"resumo|destaques|samenvatting|hoogtepunten|итоги|кратко|основные|главное", re.I)
# A translation's pointer to the post it translates: "原文: <url>", "Original: <url>".
# ("Source:" is left out: release posts use it for their code repository.)
_ORIGINAL_CUE = re.compile(
    r"(?:original(?:ly published(?: at| on)?| post| article)?|originalartikel|原文(?:链接|地址|連結)?|"
    r"元記事|원문|оригинал)\s*[:：]\s*<?(?P<url>https?://[^\s<>]+)?", re.I)
# Headings of the parts that close a release post rather than announce a change.
_CLOSING_HEADING = re.compile(
    r"(?:thanks|thank you|acknowledge?ments?|credits|contributors|get(?:ting)? started|get involved|"
    r"install(?:ation|ing)?|upgrad(?:e|ing)|how to (?:install|upgrade|get)|conclusions?|wrapping up|"
    r"closing thoughts|what'?s next|next steps|feedback|learn more|resources|references|further reading|"
    r"danksagung|dank|fazit|ausblick|mitmachen|erste schritte|remerciements|merci|pour commencer|"
    r"prochaines étapes|agradecimientos|gracias|conclusión|instalación|próximos pasos|ringraziamenti|"
    r"agradecimentos|благодарности|заключение|установка)\b"
    r"|致谢|感谢|鸣谢|結語|结语|结论|安装|入门|快速开始|下一步|謝辞|おわりに|さいごに|インストール|今後|감사|마치며|설치",
    re.I)
_SENTENCE_END = (".", "!", "?", "。", "！", "？")
# Bold text longer than this is emphasis, not a heading.
_MAX_BOLD_HEADING = 120


def split_label(text: str) -> tuple[str, str | None]:
    """"(Beta) X" / "X [STABLE]" / "（Beta）X" / "\\[Beta] X" -> ("X", "beta")."""
    found = _LABEL.search(text)
    if not found:
        return text.strip(), None
    rest = f"{text[:found.start()]} {text[found.end():]}"
    rest = " ".join(rest.split()).strip(_EDGE_SEPARATORS).replace("\\", "")
    label = found.group(1).lower()
    return rest, _TRANSLATED_LABELS.get(label, label)


def summarize(text: str, *, media_type: str | None = None, url: str | None = None) -> Summary:
    document = parse(text, media_type, base_url=url)
    blocks = document.blocks
    author, byline_index = _author(document)
    title, title_index = _title(document, byline_index)
    bullets, summary_indexes = _summary_bullets(blocks, {title_index, byline_index})
    skipped = {title_index, byline_index, *summary_indexes} - {None}
    return Summary(
        title=title,
        author=author,
        language=_language(document),
        canonical_url=_canonical_url(document) or url,
        summary_bullets=bullets,
        features=_features(_regroup_scrape(blocks, bullets, skipped) if document.format == "text" else blocks,
                           skipped, author),
        format=document.format,
        published=_published(document.meta.get("date") or _dateline(blocks)),
        links=document.links,
    )


# ---------------------------------------------------------------------------------------
# Metadata


def _text(block: Block) -> str:
    return block.text if isinstance(block, (Heading, Paragraph)) else ""


# Languages that put the "from" after the name: "Hikari チームより".
_BYLINE_AFTER = re.compile(r"^(?P<name>\S.{0,60}?)\s*(?:より|著|씀)$")


_BYLINE_FIELDS = re.compile(r"\s+[|·•—–]\s+")


def _byline(text: str) -> str | None:
    found = _BYLINE.match(text.strip()) or _BYLINE_AFTER.match(text.strip())
    # "by X | March 4, 2025 | 6 min read": the name ends where the date begins.
    name = _BYLINE_FIELDS.split(found.group("name"))[0].strip(" *_") if found else ""
    # A name starts with a capital, "@" or a letter of a caseless script, maybe after an
    # article ("by the Tern maintainers"); "By the numbers" is a heading.
    named = re.sub(r"^(?:the|an?)\s+", "", name, flags=re.I)
    return name if named and not named[0].islower() else None


def _author(document: Document) -> tuple[str | None, int | None]:
    """The declared author, a "by ..." line near the top, or a sign-off under a closing
    greeting ("Cheers!" / "Team X"). Returns the byline's block index so it is not read
    as a heading."""
    blocks = document.blocks
    declared = document.meta.get("author")
    declared = (_byline(declared) or declared) if declared else None
    for index, block in enumerate(blocks[:6]):
        name = _byline(_text(block))
        if name and not name.endswith(_SENTENCE_END):
            return declared or name, index
    if declared:
        return declared, None
    if len(blocks) >= 2 and all(isinstance(b, Paragraph) for b in blocks[-2:]):
        greeting, signature = blocks[-2].text, blocks[-1].text
        if (len(greeting) <= 30 and greeting.endswith(("!", ",", "！", "，"))
                and len(signature) <= 50 and not signature.endswith(_SENTENCE_END)):
            return signature.strip("*_ "), None
    return None, None


def _title(document: Document, byline_index: int | None) -> tuple[str | None, int | None]:
    """The declared title, else a heading that opens the post. Returns the index of the
    heading that carries the title, if any, so it is not read as a feature."""
    blocks = document.blocks
    first = 1 if byline_index == 0 else 0
    opening = blocks[first] if first < len(blocks) and isinstance(blocks[first], Heading) else None
    # An opening heading is the title when it stands above every other heading.
    stands_above = opening is not None and all(
        block.level > opening.level for block in blocks[first + 1:] if isinstance(block, Heading))
    declared = document.meta.get("title")
    if declared:
        key = _key(declared)
        for index, block in enumerate(blocks[:5]):
            if isinstance(block, Heading) and _key(block.text) == key:
                return declared, index
        # The body may open with its own wording of the declared title.
        return declared, first if stands_above and opening.level == 1 else None
    # A scrape keeps no levels: a heading line that opens it is its title.
    if opening is not None and (opening.level == 1 or stands_above or document.format == "text"):
        return opening.text, first
    return None, None


def _language(document: Document) -> str:
    declared = document.meta.get("language", "")
    primary = re.split(r"[-_]", declared.strip().lower())[0] if declared else ""
    detected = detect_language(" ".join(_text(b) or _list_text(b) for b in document.blocks[:400])[:20_000])
    # Site templates often say "en" around a translated article; its script says otherwise.
    if primary == "en" and detected not in _FUNCTION_WORDS:
        return detected
    return primary if re.fullmatch(r"[a-z]{2,3}", primary) else detected


def _list_text(block: Block) -> str:
    return " ".join(item.text for item in block.items) if isinstance(block, ListBlock) else ""


# Scripts that name their language, by code point ranges.
_SCRIPTS = {
    "kana": re.compile("[\u3040-\u30ff]"),
    "han": re.compile("[\u3400-\u4dbf\u4e00-\u9fff]"),
    "ko": re.compile("[\uac00-\ud7af\u1100-\u11ff]"),
    "ru": re.compile("[\u0400-\u04ff]"),
    "el": re.compile("[\u0370-\u03ff]"),
    "he": re.compile("[\u0590-\u05ff]"),
    "ar": re.compile("[\u0600-\u06ff]"),
    "hi": re.compile("[\u0900-\u097f]"),
    "th": re.compile("[\u0e00-\u0e7f]"),
}
_LETTER = re.compile(r"[^\W\d_]")
_ASCII = re.compile(r"[\x00-\x7f]+")
# Frequent short words that few other Latin-script languages share.
_FUNCTION_WORDS = {
    "en": {"the", "and", "with", "for", "this", "that", "are", "we", "is", "of", "to"},
    "de": {"der", "die", "das", "und", "ist", "mit", "für", "nicht", "wir", "eine", "auf", "sich", "auch"},
    "fr": {"le", "la", "les", "et", "est", "des", "une", "pour", "avec", "nous", "dans", "sur", "du"},
    "es": {"el", "los", "las", "y", "para", "con", "una", "por", "que", "del", "como", "nuevo"},
    "it": {"il", "di", "che", "è", "per", "sono", "della", "gli", "nel", "questo", "anche"},
    "pt": {"os", "é", "com", "uma", "não", "do", "da", "em", "nós", "você", "também"},
    "nl": {"het", "een", "van", "voor", "niet", "wij", "zijn", "ook", "naar", "deze"},
}


def detect_language(text: str) -> str:
    """BCP 47 primary tag from the script of the text, then from its short words."""
    # Every script counted lies outside ASCII: counting in what is left is much faster.
    beyond_ascii = _ASCII.sub("", text)
    counts = {script: len(pattern.findall(beyond_ascii)) for script, pattern in _SCRIPTS.items()}
    letters = _LETTER.subn("", text)[1]
    if counts["kana"] >= 5 and counts["kana"] * 10 > counts["han"] + counts["kana"]:
        return "ja"
    counts["zh"] = counts.pop("han") + counts.pop("kana")
    script, count = max(counts.items(), key=lambda pair: pair[1])
    # Posts in other scripts still carry Latin names and code words: a share is enough.
    if letters and count * 100 >= letters * 15:
        return script
    words = re.findall(r"[a-zàâäçéèêëîïôöûüñíóúãõ]+", text[:20_000].lower())
    votes = {lang: sum(1 for word in words if word in vocabulary) for lang, vocabulary in _FUNCTION_WORDS.items()}
    best = max(votes, key=lambda lang: votes[lang])
    return best if votes[best] > votes["en"] else "en"


# A dateline near the top: "Published: 2024-03-05", "发布: 2022年06月28日".
_DATELINE = re.compile(
    r"(?:published|posted|released|date|veröffentlicht|publié|publicado|发布|發佈|日期|公開|公开|게시)"
    r"\s*(?:on)?\s*[:：]?\s*(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})", re.I)


def _dateline(blocks: tuple[Block, ...]) -> str | None:
    for block in blocks[:10]:
        found = _DATELINE.search(_text(block))
        if found:
            year, month, day = (int(part) for part in found.groups())
            return f"{year:04d}-{month:02d}-{day:02d}"
    return None


_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y/%m/%d", "%Y.%m.%d")


def _published(value: str | None) -> datetime | None:
    moment = _moment(value.strip()) if value else None
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _moment(value: str) -> datetime | None:
    """ISO 8601, RFC 2822, a few written-out dates, or a leading YYYY-MM-DD."""
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        pass
    for layout in _DATE_FORMATS:
        try:
            return datetime.strptime(value, layout)
        except ValueError:
            continue
    found = re.match(r"(\d{4})-(\d{1,2})-(\d{1,2})", value)
    try:
        return datetime(*map(int, found.groups())) if found else None
    except ValueError:
        return None


def _canonical_url(document: Document) -> str | None:
    """An "original: <url>" line near the top names the post a translation comes from;
    otherwise what the wrapper declares."""
    for block in document.blocks[:15]:
        text = _text(block)
        found = _ORIGINAL_CUE.search(text) if text else None
        if found:
            named = found.group("url")
            if named:
                return named.rstrip(".,;>)）")
            if len(block.urls) == 1:
                return block.urls[0]
    return document.meta.get("canonical_url")


# ---------------------------------------------------------------------------------------
# Highlight bullets


def _is_summary_cue(block: Block) -> bool:
    text = _text(block).strip()
    if not text:
        return False
    introduces = text.endswith((":", "：")) or isinstance(block, Heading) or len(text) <= 40
    return introduces and bool(_SUMMARY_CUE.search(text))


def _summary_bullets(blocks: tuple[Block, ...], preamble: set[int | None]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The post's own highlight list: the list after a summary label in the post's opening
    part (up to its second heading: an "Overview" may come first), else the first list
    before the first heading. Returns the bullets and the indexes of the blocks they came
    from."""
    headings = [i for i, b in enumerate(blocks) if isinstance(b, Heading) and i not in preamble]
    first_heading = headings[0] if headings else len(blocks)
    opening_end = headings[1] if len(headings) > 1 else len(blocks)
    for index in range(1, opening_end):
        if isinstance(blocks[index], ListBlock) and _is_summary_cue(blocks[index - 1]):
            return _bullet_texts(blocks[index]), (index - 1, index)
    for index in range(first_heading):
        if isinstance(blocks[index], ListBlock):
            return _bullet_texts(blocks[index]), (index,)
    return (), ()


def _bullet_texts(block: ListBlock) -> tuple[str, ...]:
    return tuple(item.text for item in block.items if item.text)


# ---------------------------------------------------------------------------------------
# A scrape's groups, told by its highlights

# Names and words a heading and a highlight can share: dotted or dashed names whole
# ("torch.fx", "multi-weight"), plurals folded, CJK by pairs of characters.
_TOKEN = re.compile(r"\w+(?:[.\-]\w+)*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _distinct_words(text: str, shortest: int = 5) -> set[str]:
    words = set()
    for token in _TOKEN.findall(text):
        if _CJK.search(token):
            words.update(token[i:i + 2] for i in range(len(token) - 1))
        elif len(token) >= shortest or len(token) >= 2 and token.isupper():
            words.add(token.casefold().removesuffix("s"))
    return words


def _echoes(heading: str, highlights: list[set[str]], shortest: int = 5) -> set[int]:
    """The highlights a heading names a word of."""
    words = _distinct_words(split_label(heading)[0], shortest)
    return {index for index, highlight in enumerate(highlights) if words & highlight}


# A highlight's subject is its name before a dash or colon, else its first few words.
_SUBJECT = re.compile(r"^(.{1,80}?)\s+[-–—:：]\s|^(.{1,80}?)[:：]\s")
_SUBJECT_WORDS = 4


def _bullet_subject(bullet: str) -> str:
    found = _SUBJECT.match(bullet)
    return (found.group(1) or found.group(2)) if found else " ".join(bullet.split()[:_SUBJECT_WORDS])


def _regroup_scrape(blocks: tuple[Block, ...], bullets: tuple[str, ...], skipped: set[int]) -> tuple[Block, ...]:
    """A scrape lost its heading levels: a group heading followed by an intro paragraph
    looks like a feature heading. The post's highlights tell them apart, as they list
    features: an unlabeled heading is a group when it names the subject of a bullet that
    also names the heading after it (the bullet sums up the group: "functorch with improved
    coverage" over "Significantly improved coverage"), or when it is in no bullet while the
    labeled heading after it is."""
    word_sets = [_distinct_words(bullet) for bullet in bullets]
    # A word several bullets share ("PyTorch") tells none of them apart.
    counts: dict[str, int] = {}
    for words in word_sets:
        for word in words:
            counts[word] = counts.get(word, 0) + 1
    highlights = [{word for word in words if counts[word] == 1} for words in word_sets]
    # A heading naming a bullet's subject needs no rarer word: the subject is the bullet's.
    subjects = [_distinct_words(_bullet_subject(bullet)) for bullet in bullets]
    # To be in no bullet, a heading must not share even a short word with one ("tile").
    any_words = [_distinct_words(bullet, shortest=4) for bullet in bullets]
    headings = [i for i, block in enumerate(blocks)
                if isinstance(block, Heading) and block.guessed and i not in skipped]
    out = list(blocks)
    for index, following in zip(headings, headings[1:]):
        heading, after = blocks[index], blocks[following]
        if heading.level != 2 or after.level != 2 or split_label(heading.text)[1]:
            continue
        summed_up, next_ones = _echoes(heading.text, subjects), _echoes(after.text, highlights)
        if summed_up & next_ones or not _echoes(heading.text, any_words, shortest=4) and next_ones and split_label(after.text)[1]:
            out[index] = Heading(1, heading.text, heading.urls, guessed=True)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Features


@dataclass(eq=False)
class _Node:
    """A heading-like thing in the post: a heading, a bold-only paragraph, or a bold-led
    labeled list item or paragraph (always a leaf)."""

    level: int
    heading: str
    stability: str | None
    aside: bool
    leaf: bool
    # Where it stands in the outline, and whether a scrape's layout suggested it.
    block_index: int
    guessed: bool = False
    parent: _Node | None = None
    children: list[_Node] = field(default_factory=list)
    feature: bool = False
    # Has features anywhere beneath it.
    holds_features: bool = False
    section: bool = False


def _node(text: str, level: int, block_index: int, *, leaf: bool = False, guessed: bool = False) -> _Node:
    heading, stability = split_label(text)
    # A heading that ends in a colon introduces what follows ("An example:"), one that
    # ends in a question mark frames the text ("What's next?"): asides.
    aside = text.rstrip().endswith((":", "：", "?", "？")) and not leaf
    if leaf:
        heading = heading.rstrip(_EDGE_SEPARATORS)
    return _Node(level, heading, stability, aside, leaf, block_index, guessed)


def _outline_nodes(blocks: tuple[Block, ...], skipped: set[int], author: str | None) -> list[_Node]:
    nodes: list[_Node] = []
    open_nodes: list[_Node] = []
    heading_level = 0

    def add(node: _Node) -> None:
        while open_nodes and open_nodes[-1].level >= node.level:
            open_nodes.pop()
        node.parent = open_nodes[-1] if open_nodes else None
        if node.parent:
            node.parent.children.append(node)
        nodes.append(node)
        if not node.leaf:
            open_nodes.append(node)

    def inner_level() -> int:
        return (open_nodes[-1].level if open_nodes else heading_level) + 1

    for index, block in enumerate(blocks):
        if index in skipped or isinstance(block, Code):
            continue
        if isinstance(block, Heading):
            if block.guessed and _is_caption(blocks, index):
                continue
            heading_level = block.level
            add(_node(block.text, block.level, index, guessed=block.guessed))
        elif isinstance(block, Paragraph) and block.lead:
            if block.lead == block.text:
                if _bold_heading(blocks, index, author):
                    add(_node(block.text, heading_level + 1, index))
            elif split_label(block.lead)[1]:
                add(_node(block.lead, inner_level(), index, leaf=True))
        elif isinstance(block, ListBlock):
            for item in block.items:
                if item.lead and split_label(item.lead)[1]:
                    add(_node(item.lead, inner_level(), index, leaf=True))
    return nodes


# Words of five letters or more, acronyms and numbers, runs of CJK characters.
_WORD = re.compile(r"[^\W\d_]{5,}|\b[A-Z0-9][A-Z0-9]+\b|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")


def _names_its_text(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a heading shares a word with the text under it. A feature heading names
    what that text is about; a figure caption a scrape left between two paragraphs does
    not."""
    following = " ".join(_text(b) or _list_text(b) for b in blocks[index + 1:index + 3])[:1000]
    return _shares_a_word(_text(blocks[index]), following)


def _is_caption(blocks: tuple[Block, ...], index: int) -> bool:
    """Whether a line a scrape's layout made a heading is a figure's caption: it speaks of
    the paragraph above it, not of the text below. A line carrying a maturity label
    announces a feature, never a caption."""
    previous = blocks[index - 1] if index else None
    following = blocks[index + 1] if index + 1 < len(blocks) else None
    # Right above a labeled heading, a line groups features: captions sit on prose.
    above_a_feature = isinstance(following, Heading) and bool(split_label(following.text)[1])
    return (isinstance(previous, Paragraph) and not split_label(_text(blocks[index]))[1] and not above_a_feature
            and not _names_its_text(blocks, index)
            and _shares_a_word(_text(blocks[index]), previous.text[-1000:]))


def _shares_a_word(heading: str, text: str) -> bool:
    """Words compare by their first five letters anywhere in the text ("compilation",
    "recompiled"), acronyms whole, CJK by pairs of characters."""
    lowered = text.lower()
    for word in _WORD.findall(heading):
        if "\u3040" <= word[0]:
            if any(word[i:i + 2] in text for i in range(len(word) - 1)):
                return True
        elif word[0].isupper() and word.isupper() or word.isdigit():
            if re.search(rf"\b{re.escape(word)}\b", text):
                return True
        elif word[:5].lower() in lowered:
            return True
    return False


def _bold_heading(blocks: tuple[Block, ...], index: int, author: str | None) -> bool:
    """A bold-only paragraph stands as a heading when prose follows it; not when it is a
    sign-off, a byline, or a long emphasised sentence."""
    text = blocks[index].text
    following = next((blocks[i] for i in range(index + 1, len(blocks)) if not isinstance(blocks[i], Code)), None)
    return (len(text) <= _MAX_BOLD_HEADING and following is not None and not isinstance(following, Heading)
            and not (isinstance(following, Paragraph) and following.lead == following.text)
            and not _byline(text) and _key(text) != _key(author or ""))


def _features(blocks: tuple[Block, ...], skipped: set[int], author: str | None) -> tuple[Feature, ...]:
    nodes = _outline_nodes(blocks, skipped, author)
    # Children come after their parent: deciding in reverse sees every child first.
    for node in reversed(nodes):
        node.holds_features = any(child.feature or child.holds_features for child in node.children)
        labeled = node.stability is not None
        node.section = node.holds_features and not labeled
        node.feature = not node.aside and (labeled or not node.holds_features) and bool(node.heading)
        # A line a scrape's layout made a heading must earn being a feature on its own.
        if node.feature and node.guessed and not labeled and not _names_its_text(blocks, node.block_index):
            node.feature = False
    # Among top-level parts that group features, an unlabeled one without features of its
    # own is a closing or framing part ("Conclusion"), not a feature.
    top = [node for node in nodes if node.parent is None]
    if any(node.section for node in top):
        for node in top:
            if node.feature and node.stability is None and not node.leaf:
                node.feature = False
    # After the last labeled feature, an unlabeled heading that names a closing part
    # ("Thanks", "Getting started") closes the post.
    last_labeled = max((i for i, node in enumerate(nodes) if node.stability), default=-1)
    for node in nodes[last_labeled + 1:]:
        if node.stability is None and _CLOSING_HEADING.match(node.heading):
            node.feature = False
    return tuple(Feature(node.heading, node.stability, _section(node)) for node in nodes if node.feature)


def _section(node: _Node) -> str | None:
    parent = node.parent
    while parent is not None and not parent.section:
        parent = parent.parent
    if parent is None:
        return None
    return parent.heading.rstrip(_EDGE_SEPARATORS) or None


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split()).strip("*_ ")
