"""Decode a message's bytes into a ``Turn``, or say why it is not one.

A producer that cuts a text mid-emoji leaves half a character behind: a lone UTF-16
surrogate escaped in the JSON (``"\\ud83d"``), or stray bytes of a UTF-8 sequence.
pydantic's JSON parser refuses both as invalid JSON, and PostgreSQL could store neither,
yet the rest of the turn is worth checking. Such a message is decoded again with each
broken character replaced by U+FFFD, one code point for one, so offsets into the text
stay where the producer counted them.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from turncheck.schemas.turn import Turn
from turncheck.worker.errors import InvalidTurn

MAX_ERRORS_NAMED = 3
REPLACEMENT_ESCAPE = "\\ufffd"

# A \u escape is one only after an even run of backslashes ("\\ud83d" is a backslash and
# text). A high surrogate followed by a low one is a pair, kept; either half alone is not.
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)"
    r"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)


def decode_turn(raw: bytes | None) -> Turn:
    """Raise ``InvalidTurn`` with a reason that names fields, never the message's values.

    ``None`` is a tombstone (a record with a null value): not a turn."""
    if raw is None:
        raise InvalidTurn("a tombstone: the message has no value")
    try:
        return Turn.model_validate_json(raw)
    except ValidationError as exc:
        refused = exc
    if _not_json(refused):
        repaired = repair_broken_characters(raw)
        if repaired is not None:
            try:
                return Turn.model_validate_json(repaired)
            except ValidationError as exc:
                refused = exc
    raise InvalidTurn(_reason(refused)) from None


def repair_broken_characters(raw: bytes) -> str | None:
    """The message as text with each invalid UTF-8 sequence and each lone surrogate escape
    replaced by U+FFFD; None when it has neither."""
    try:
        text = raw.decode("utf-8")
        replaced_bytes = False
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors="replace")
        replaced_bytes = True
    repaired = _SURROGATE_ESCAPE.sub(_keep_pairs, text)
    return repaired if replaced_bytes or repaired != text else None


def _keep_pairs(match: re.Match[str]) -> str:
    backslashes, escape = match[1], match[2]
    return match[0] if len(escape) == len("\\ud83d\\ude00") else backslashes + REPLACEMENT_ESCAPE


def _not_json(exc: ValidationError) -> bool:
    errors = exc.errors(include_input=False, include_url=False)
    return bool(errors) and errors[0]["type"] == "json_invalid"


def _reason(exc: ValidationError) -> str:
    if _not_json(exc):
        return "not valid JSON"
    errors = exc.errors(include_input=False, include_url=False)
    named = []
    for error in errors[:MAX_ERRORS_NAMED]:
        where = ".".join(str(part) for part in error["loc"]) or "(message)"
        named.append(f"{where}: {error['msg']}")
    more = len(errors) - MAX_ERRORS_NAMED
    if more > 0:
        named.append(f"and {more} more")
    return "not a valid turn.stored/v1: " + "; ".join(named)
