"""ISO 8601 dates, parsed in one place for the index (document dates) and for queries.

The index stores a document's date as its calendar day (``YYYY-MM-DD``), and date
filters compare whole days, inclusively. A query may give a date or a date-time; a
date-time counts as the day it names (``2024-05-01T23:30+02:00`` is 2024-05-01).
Nothing else is guessed: ``2024-1-5`` or ``yesterday`` is an error naming the format.

A document's own date (frontmatter ``date:``, an HTML ``<meta name="date">``) is read more
kindly, as people write dates (``document_day``): ``March 3, 2024``, ``3 Mar 2024``,
``2024/03/03``, ``03.03.2024``, and ``13/03/2024`` where only one reading is a real day. A
form with two readings (``03/04/2024``: 3 April or March 4) is not guessed: the document keeps
it as written, outside date filters, and ``unread_reason`` says why for the index's warning.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

EXPECTED = "an ISO 8601 date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM])"

_ISO = re.compile(
    r"^\d{4}-\d{2}-\d{2}"  # the day
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$"  # optional time and offset
)


def iso_day(value: Any) -> str:
    """The ``YYYY-MM-DD`` day of an ISO 8601 date or date-time; ValueError naming the format otherwise."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    text = str(value).strip() if isinstance(value, str) else None
    if text and _ISO.match(text):
        try:
            return dt.date.fromisoformat(text[:10]).isoformat() if len(text) == 10 else (
                dt.datetime.fromisoformat(text.replace(",", ".")).date().isoformat()
            )
        except ValueError:
            pass  # well-formed but impossible, e.g. 2024-02-30
    raise ValueError(f"expected {EXPECTED}, got {value!r}")


def iso_day_or_none(value: Any) -> str | None:
    """``iso_day`` for a document's own metadata: a date that does not parse is simply absent."""
    if value is None or value == "":
        return None
    try:
        return iso_day(value)
    except ValueError:
        return None


UNREAD_DATE_FIELD = "date_unread"
"""The metadata field (``true``) of a document whose own date ``document_day`` could not read:
date filters leave it out, and a date-filtered search counts such documents in its scope."""

_MONTHS = {name: i for i, names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
    ("november", "nov"), ("december", "dec")), start=1) for name in names}
_WEEKDAYS = {"monday", "mon", "tuesday", "tue", "tues", "wednesday", "wed", "thursday", "thu", "thur", "thurs",
             "friday", "fri", "saturday", "sat", "sunday", "sun"}
_YMD = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$")  # 2024/03/03, 2024.3.3, 2024-3-3
_DMY_DOTS = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")  # 03.03.2024: dots are day-first wherever used
_NUMERIC_YEAR_LAST = re.compile(r"^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$")  # 12/03/2024: day or month first
_WORDS = re.compile(r"[a-z]+|\d+")


def _day(year: int, month: int, day: int) -> str | None:
    try:
        return dt.date(year, month, day).isoformat()
    except ValueError:
        return None


def _numeric_readings(text: str) -> list[str]:
    """The real days a numeric date with the year last can mean: day-first and month-first."""
    m = _NUMERIC_YEAR_LAST.match(text)
    if not m:
        return []
    a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
    return list(dict.fromkeys(d for d in (_day(year, b, a), _day(year, a, b)) if d))


def _named_month(text: str) -> str | None:
    """``March 3, 2024``, ``3rd of Mar. 2024``, ``Mon, 3 March 2024``: a month name, a day and a
    four-digit year in either order, nothing else but a weekday."""
    words = _WORDS.findall(text.lower())
    words = [w for w in words if w not in _WEEKDAYS and w not in ("of", "st", "nd", "rd", "th")]
    words = [w[:-2] if len(w) > 2 and w[:-2].isdigit() and w[-2:] in ("st", "nd", "rd", "th") else w for w in words]
    months = [_MONTHS[w] for w in words if w in _MONTHS]
    numbers = [w for w in words if w.isdigit()]
    if len(words) != 3 or len(months) != 1 or len(numbers) != 2:
        return None
    years = [n for n in numbers if len(n) == 4]
    days = [n for n in numbers if len(n) <= 2]
    if len(years) != 1 or len(days) != 1:
        return None
    return _day(int(years[0]), months[0], int(days[0]))


def document_day(value: Any) -> str | None:
    """The ``YYYY-MM-DD`` day of a date as a document's author wrote it; None when it has no
    single reading (``unread_reason`` says why)."""
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if not isinstance(value, str) or not (text := value.strip()):
        return None
    try:
        return iso_day(text)
    except ValueError:
        pass
    try:  # other ISO forms Python reads (2024-03-03T10:00:00.000+0000, 20240303)
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).date().isoformat()
    except ValueError:
        pass
    if m := re.match(r"(\d{4})-(\d{2})-(\d{2})[T ]", text):  # a date-time with a zone name: 2024-03-03 10:00 PST
        return _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if m := _YMD.match(text):
        return _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    if m := _DMY_DOTS.match(text):
        return _day(int(m.group(3)), int(m.group(2)), int(m.group(1)))
    readings = _numeric_readings(text)
    if len(readings) == 1:
        return readings[0]
    return _named_month(text)


def unread_reason(value: Any) -> tuple[str, str]:
    """Why ``document_day`` read no day in ``value``, and what to write instead."""
    readings = _numeric_readings(value.strip()) if isinstance(value, str) else []
    if len(readings) > 1:
        first, second = (dt.date.fromisoformat(d) for d in readings)
        return (f"is ambiguous ({first.day} {first:%B} or {second:%B} {second.day})",
                f"write {readings[0]} or {readings[1]}")
    return "is not a date docshelf reads", "write it as YYYY-MM-DD"


FRONTMATTER_DATE_KEYS = ("date", "updated", "last_modified", "modified", "lastmod", "created")
"""The frontmatter keys that give a note its date, in order: the first one present decides.

``date`` first, because it is the date the author chose to state (a meeting, a release). Without
it, the last change (``updated``, ``last_modified``, ``modified``, Hugo's ``lastmod``) before the
creation day (``created``), as for DOCX and PDF (``changed_day``): a filter for "changed since
March" then finds a note edited in March. A present key whose value cannot be read is not skipped
for the next one: the note keeps it as written and the index warns (a silent fallback would date
the note by a field its author did not mean)."""


def changed_day(modified: Any, created: Any) -> str | None:
    """A file's date from its own properties (DOCX core properties, PDF document info): the
    last-modified day, else the creation day, else None. Damaged values read as absent, never
    an error: software wrote them, so there is nothing for the user to fix."""
    for value in (modified, created):
        try:
            day = document_day(value)
        except Exception:  # noqa: BLE001 - a damaged property is no property
            day = None
        if day:
            return day
    return None


__all__ = ["EXPECTED", "FRONTMATTER_DATE_KEYS", "UNREAD_DATE_FIELD", "changed_day", "document_day", "iso_day",
           "iso_day_or_none", "unread_reason"]
