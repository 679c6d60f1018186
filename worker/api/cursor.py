"""The opaque ``cursor`` of a results page: where the previous page ended.

It is the last result's (checked_at, write_id, position), base64url-encoded JSON.
Opaque to callers: only this module reads or writes it, so its content may change
without breaking them. A cursor that does not decode is a 422 naming ``cursor``.
"""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from turncheck.worker.api.query import invalid
from turncheck.worker.store.pages import Position


def encode(position: Position) -> str:
    raw = json.dumps(
        [position.checked_at.isoformat(), position.write_id, position.position],
        separators=(",", ":"),
    )
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str) -> Position:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        moment, write_id, position = json.loads(raw)
        checked_at = datetime.fromisoformat(moment)
        if checked_at.tzinfo is None or type(write_id) is not int or type(position) is not int:
            raise ValueError
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise invalid("cursor", "not a cursor this API gave") from None
    return Position(checked_at, write_id, position)
