"""The opaque ``cursor`` of a results page: where the previous page ended.

It is ``[VERSION, turn_created_at, write_id, position]`` of the last result,
base64url-encoded JSON. Opaque to callers: only this module reads or writes it, so its
content may change without breaking them; when its meaning changes, ``VERSION`` does.
A cursor that does not decode is a 422 naming ``cursor``, and so is one whose time or
numbers the store could not compare (a time outside the years 1 to 9999 in UTC, a write
id outside a signed 64-bit integer, a position outside a 32-bit one: a forged cursor);
so is one an older turncheck gave, whose pages were in another order (``[checked_at,
write_id, position]`` before results were ordered by the turn's time, ``[checked_at,
id]`` before migration 0007): reading on from it would skip or repeat results, so the
caller asks the first page again.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import UTC, datetime

from turncheck.worker.api.query import invalid
from turncheck.worker.store.pages import Position

VERSION = 2
"""1 was the unversioned cursors of an order by ``checked_at``."""

WRITE_IDS = range(-(2**63), 2**63)
POSITIONS = range(-(2**31), 2**31)
"""What the store's columns hold (``write_id BIGINT``, ``position INTEGER``): PostgreSQL
cannot compare them with a number outside."""

STALE = "a cursor from before pages were ordered by the turn's time: ask the first page again"


def encode(position: Position) -> str:
    raw = json.dumps(
        [VERSION, position.turn_created_at.isoformat(), position.write_id, position.position],
        separators=(",", ":"),
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str) -> Position:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        fields = json.loads(raw)
        if isinstance(fields, list) and fields and isinstance(fields[0], str):
            datetime.fromisoformat(fields[0])  # an unversioned cursor began with its time
            raise _Stale
        version, moment, write_id, position = fields
        created_at = datetime.fromisoformat(moment)
        if (
            type(version) is not int
            or version != VERSION
            or created_at.tzinfo is None
            or type(write_id) is not int
            or type(position) is not int
            or write_id not in WRITE_IDS
            or position not in POSITIONS
        ):
            raise ValueError
        created_at = created_at.astimezone(UTC)
    except _Stale:
        raise invalid("cursor", STALE) from None
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError, OverflowError):
        raise invalid("cursor", "not a cursor this API gave") from None
    return Position(created_at, write_id, position)


class _Stale(Exception):
    """A cursor an older turncheck gave."""
