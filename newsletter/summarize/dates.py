"""Dates in a post's text: a line that is nothing but a date, a dateline near the top."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from newsletter import lazy_re
from newsletter.text.outline import Block, block_text

# A dateline near the top: "Published: 2024-03-05", "发布: 2022年06月28日".
DATELINE = lazy_re.compile(
    r"(?:published|posted|released|date|veröffentlicht|publié|publicado|发布|發佈|日期|公開|公开|게시)"
    r"\s*(?:on)?\s*[:：]?\s*(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})", re.IGNORECASE)


def dateline_of(blocks: tuple[Block, ...]) -> str | None:
    for block in blocks[:10]:
        found = DATELINE.search(block_text(block))
        if found:
            year, month, day = (int(part) for part in found.groups())
            return f"{year:04d}-{month:02d}-{day:02d}"
    return None


_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y/%m/%d", "%Y.%m.%d",
                 "%A, %d %B %Y", "%A, %B %d, %Y", "%Y-%b-%d")


def parse_published(value: str | None) -> datetime | None:
    moment = _moment(value.strip()) if value else None
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def is_date(text: str) -> bool:
    """Whether a line is nothing but a date ("March 4, 2025", "12 ott 2026")."""
    # Every date read here has a digit: a line without one is not tried against every layout.
    if not DIGIT.search(text):
        return False
    # A page may give the hour after the day ("March 4, 2026 at 9:30 am"), and the day
    # as an ordinal ("March 3rd").
    text = _ORDINAL.sub("", _TIME_AFTER.sub("", text.strip()))
    return (_moment(text) is not None or _WORDED_DATE.fullmatch(text) is not None or _numeric_date(text)
            or _MONTH_DAY.fullmatch(text) is not None)


# A day of this year, as forums and feeds show a recent post's: "Jan 9", "September 12".
_MONTH_DAY = lazy_re.compile(r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
                             r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}",
                             re.IGNORECASE)


# Day, month and year in numbers, either order of the first two as countries write them,
# maybe after the weekday, short or English: "14.08.2023", "08/14/2023", "Mon, 14/08/2023". (A version has
# no four-digit year at its end: "1.14.2" is none.)
_NUMERIC_DATE = lazy_re.compile(r"(?:(?:[^\W\d_]{2,3}\.?|(?i:mon|tues|wednes|thurs|fri|satur|sun)day),\s+)?"
                                r"(\d{1,2})([./-])(\d{1,2})\2(\d{4})\.?")


def _numeric_date(text: str) -> bool:
    found = _NUMERIC_DATE.fullmatch(text)
    if not found:
        return False
    first, second = int(found.group(1)), int(found.group(3))
    return 1 <= min(first, second) <= 12 and max(first, second) <= 31


# A byline's date may say what happened on it: "Published October 31, 2026", "Posted on 4
# May 2026", "Publié le 4 mai 2026".
_DATE_VERB = lazy_re.compile(r"(?:published|posted|updated|publié|publicado|pubblicato|veröffentlicht)"
                             r"(?:\s+(?:on|le|el|em|il|am))?\s+", re.IGNORECASE)


def is_stated_date(text: str) -> bool:
    """A date, maybe led by the word saying what happened on it."""
    found = _DATE_VERB.match(text.strip())
    return is_date(text.strip()[found.end():] if found else text)


# Every date read here has one: a text without one holds no date.
DIGIT = lazy_re.compile(r"\d")
_ORDINAL = lazy_re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.IGNORECASE)
_TIME_AFTER = lazy_re.compile(r"(?<=\d)(?:,?\s+at|\s+[@|–-]|,)?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?$",
                              re.IGNORECASE)


# A day, a month's name in any language and a year: "12 ott 2026", "12. Oktober 2026",
# "12 de octubre de 2026". Told as a date, not read as one (the month's name is not known).
_WORDED_DATE = lazy_re.compile(r"(?:0?[1-9]|[12]\d|3[01])\.?\s+(?:de\s+)?[^\W\d_]{3,12}\.?,?\s+(?:de\s+)?\d{4}")


# "2024 年 5 月 22 日", "2024年5月22日", "2024년 5월 22일".
_CJK_DATE = lazy_re.compile(r"(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]")


def _moment(value: str) -> datetime | None:
    """ISO 8601, RFC 2822, a few written-out dates, a leading YYYY-MM-DD, or a date written
    with the year, month and day signs of Chinese, Japanese or Korean."""
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
    found = re.match(r"(\d{4})-(\d{1,2})-(\d{1,2})", value) or _CJK_DATE.fullmatch(value)
    if not found:
        return None
    year, month, day = (int(part) for part in found.groups())
    try:
        return datetime(year, month, day)
    except ValueError:
        return None
