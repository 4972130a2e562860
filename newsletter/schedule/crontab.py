"""Standard crontab strings -> APScheduler triggers.

APScheduler 3 numbers weekdays from Monday = 0, while crontab numbers them from Sunday = 0
(7 is Sunday too): passed through as is, "0 8 * * 1" would fire on Tuesdays. The
day-of-week field is therefore expanded here, with crontab's meaning, into day names,
which both agree on.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

# Crontab numbering: the index is the day's number (Sunday is 0, and 7 again).
_DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")


def cron_trigger(expression: str, timezone: tzinfo) -> CronTrigger:
    """Parse "minute hour day month day-of-week"; raises ValueError naming the problem."""
    fields = expression.split()
    if len(fields) != 5:
        raise ValueError(f"{expression!r} is not a crontab string: it needs 5 fields, not {len(fields)}")
    minute, hour, day, month, day_of_week = fields
    # Imported here: a configuration without a [schedule] never needs APScheduler.
    from apscheduler.triggers.cron import CronTrigger

    try:
        return CronTrigger(
            minute=minute, hour=hour, day=day, month=month,
            day_of_week=_day_names(day_of_week), timezone=timezone,
        )
    except ValueError as exc:
        raise ValueError(f"{expression!r} is not a crontab string: {exc}") from None


def _day_names(field: str) -> str:
    if field == "*":
        return field
    days: set[int] = set()
    for part in field.lower().split(","):
        span, _, step = part.partition("/")
        if span == "*":
            first, last = 0, 6
        else:
            start, _, end = span.partition("-")
            first = _day_number(start)
            last = _day_number(end) if end else (6 if step else first)
        if last < first:
            raise ValueError(f"day-of-week range {part!r} runs backwards")
        if step and not (step.isdigit() and int(step) > 0):
            raise ValueError(f"day-of-week step {step!r} is not a positive number")
        days.update(n % 7 for n in range(first, last + 1, int(step or 1)))
    return ",".join(_DAY_NAMES[n] for n in sorted(days))


def _day_number(token: str) -> int:
    if token.isdigit() and int(token) <= 7:
        return int(token)
    if token in _DAY_NAMES:
        return _DAY_NAMES.index(token)
    raise ValueError(f"{token!r} is not a day of the week (0-7 or sun-sat)")
