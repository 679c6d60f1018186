"""Decode a message's bytes into a ``Turn``, or say why it is not one."""

from __future__ import annotations

from pydantic import ValidationError

from turncheck.schemas.turn import Turn
from turncheck.worker.errors import InvalidTurn

MAX_ERRORS_NAMED = 3


def decode_turn(raw: bytes | None) -> Turn:
    """Raise ``InvalidTurn`` with a reason that names fields, never the message's values.

    ``None`` is a tombstone (a record with a null value): not a turn."""
    if raw is None:
        raise InvalidTurn("a tombstone: the message has no value")
    try:
        return Turn.model_validate_json(raw)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)
        if errors and errors[0]["type"] == "json_invalid":
            raise InvalidTurn("not valid JSON") from None
        named = []
        for error in errors[:MAX_ERRORS_NAMED]:
            where = ".".join(str(part) for part in error["loc"]) or "(message)"
            named.append(f"{where}: {error['msg']}")
        more = len(errors) - MAX_ERRORS_NAMED
        if more > 0:
            named.append(f"and {more} more")
        raise InvalidTurn("not a valid turn.stored/v1: " + "; ".join(named)) from None
