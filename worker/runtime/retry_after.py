"""``Retry-After`` (RFC 9110 §10.2.3): delta-seconds or an HTTP date, from any receiver.

One reader for every client that honours it. Delta-seconds are ASCII digits only: a
header is the receiver's text, and ``str.isdigit`` also accepts ``'²'`` or ``'٣'``,
which ``float`` then refuses. Anything else that is not an HTTP date (``'1e3'``,
``'-1'``, ``'inf'``, ``'nan'``) is no ``Retry-After`` at all: ignored, never raised.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

MAX_S = 86_400.0
"""The longest wait a header is read as: a day (callers cap it further with their own
policy); a longer or overflowing value is read as this."""
_MAX_DIGITS = len(str(int(MAX_S)))


def retry_after_s(value: str | None, now: datetime) -> float | None:
    """The wait ``value`` asks for, in seconds from ``now``, between 0 and ``MAX_S``; None
    when it is absent or neither ASCII digits nor an HTTP date."""
    if value is None:
        return None
    text = value.strip()
    if not text or not text.isascii():
        return None
    if text.isdigit():
        # Past MAX_S's length a number is more than MAX_S: no int() of it, which may be
        # longer than Python converts.
        digits = text.lstrip("0") or "0"
        return MAX_S if len(digits) > _MAX_DIGITS else min(float(digits), MAX_S)
    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return min(max(0.0, (moment - now).total_seconds()), MAX_S)
