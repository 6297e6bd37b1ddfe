"""ISO 8601 dates, parsed in one place for the index (document dates) and for queries.

The index stores a document's date as its calendar day (``YYYY-MM-DD``), and date
filters compare whole days, inclusively. A query may give a date or a date-time; a
date-time counts as the day it names (``2024-05-01T23:30+02:00`` is 2024-05-01).
Nothing else is guessed: ``2024-1-5`` or ``yesterday`` is an error naming the format.
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


__all__ = ["EXPECTED", "iso_day", "iso_day_or_none"]
