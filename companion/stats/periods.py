"""The periods the figures may keep to: the device's History offers three, ``companion
stats --since`` takes a date; each starts at a local midnight."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from companion.errors import CompanionError
from companion.lang import _, lazy

#: The periods the device's History offers: (label, key for :func:`period_start`). The
#: labels are a History menu row beside its "period" note (14 characters); ``PERIODS``
#: gives them in the language spoken when it is read (see :func:`__getattr__`).
_PERIODS: tuple[tuple[lazy, str], ...] = (
    (lazy("screen 14", "All time"), "all"), (lazy("screen 14", "This year"), "year"),
    (lazy("screen 14", "Last 30 days"), "30d"))


def __getattr__(name: str) -> Any:
    """``PERIODS``: (label, key) pairs whose labels are plain text in the language spoken
    now (a lazy text would not survive a menu row's padding)."""
    if name == "PERIODS":
        return tuple((str(label), key) for label, key in _PERIODS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def period_start(period: str, now: float) -> float | None:
    """When ``period`` ("all", "year", "30d") began, at local midnight, for ``now``.

    Whole days, so the figures of "last 30 days" stay the same (and cached) all day.
    """
    if period == "all":
        return None
    today = dt.datetime.fromtimestamp(now).date()
    if period == "year":
        first = today.replace(month=1, day=1)
    elif period == "30d":
        first = today - dt.timedelta(days=30)
    else:
        raise ValueError(f"no period {period!r} (periods: all, year, 30d)")
    return _midnight(first)


def since_date(text: str) -> float:
    """``YYYY-MM-DD`` as the local midnight that starts it; CompanionError if it is not."""
    try:
        day = dt.date.fromisoformat(text.strip())
    except ValueError:
        raise CompanionError(_("--since is a date like 2026-01-31, not {text}")
                             .format(text=repr(text))) from None
    return _midnight(day)


def _midnight(day: dt.date) -> float:
    return time.mktime(day.timetuple())
