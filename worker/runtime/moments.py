"""Times a person writes: ``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or
time (no zone: now's zone, UTC). The CLI's ``--since``/``--until`` and the API's
``since``/``until`` read them alike; each words its own refusal from ``BadMoment``, whose
reason never repeats the text (the API echoes nothing a caller sent)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
FORMS = "use 7d, 12h, 30m, 2w or an ISO date"


class BadMoment(ValueError):
    """Why a text names no moment the store can hold."""


def parse_moment(text: str, now: datetime) -> datetime:
    """The moment ``text`` names, relative to ``now`` or absolute. Refused with
    ``BadMoment``: any other text, a span reaching back past the year 1, and a time that
    falls outside the years 1 to 9999 once converted to UTC (``0001-01-01T00:00:00+14:00``),
    which the store could neither write nor compare."""
    match = re.fullmatch(r"(\d+)([mhdw])", text.strip())
    try:
        if match:
            return now - timedelta(**{UNITS[match[2]]: int(match[1])})
        moment = datetime.fromisoformat(text)
    except OverflowError:
        raise BadMoment("goes back past the year 1") from None
    except ValueError:
        raise BadMoment(FORMS) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=now.tzinfo)
    try:
        moment.astimezone(UTC)
    except OverflowError:
        raise BadMoment("outside the years 1 to 9999 once converted to UTC") from None
    return moment
