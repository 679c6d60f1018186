"""Decode a message's bytes into a ``Turn``, or say why it is not one.

Two readers, one meaning. msgspec decodes the turns producers write every day straight
into the worker's structs (``worker/turns/structs.py``), 1.6 to 4 times faster than pydantic. It
is never the one that refuses: a message it does not take goes to pydantic's contract
model (``schemas/turn.py``), which accepts the lax forms it allows (a version written
``7.0``, a time as a number or in lower case) or refuses with a reason naming fields.
So the worker accepts exactly what the contract accepts and says why in the contract's
words; ``tests/turns/test_decode_differential.py`` holds the two readers to that.

A producer that cuts a text mid-emoji leaves half a character behind: a lone UTF-16
surrogate escaped in the JSON (``"\\ud83d"``), or stray bytes of a UTF-8 sequence.
Both readers refuse such a message as invalid JSON, and PostgreSQL could store neither,
yet the rest of the turn is worth checking. It is decoded again with each broken
character replaced by U+FFFD, one code point for one, so offsets into the text stay
where the producer counted them.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any

import msgspec
from pydantic import ValidationError

from turncheck.schemas.turn import EARLIEST_TURN_TIME, TURN_TIME_BEFORE
from turncheck.schemas.turn import Turn as TurnContract
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.turns.structs import Instant, Turn

MAX_ERRORS_NAMED = 3
REPLACEMENT_ESCAPE = "\\ufffd"

# pydantic's JSON parser refuses a message nested deeper than 200 arrays and objects;
# msgspec's limit is Python's recursion limit. A message that may nest deeper than this is
# left to pydantic to decide.
MAX_FAST_DEPTH = 190
_TOO_DEEP = "recursion limit exceeded"  # pydantic's (jiter's) words for it
# The most arrays and objects of the contract's own on one path (turn, rounds, round,
# tool_calls, call): anything deeper is in a value of any shape or an unknown field.
CONTRACT_DEPTH = 5

# A \u escape is one only after an even run of backslashes ("\\ud83d" is a backslash and
# text). A high surrogate followed by a low one is a pair, kept; either half alone is not.
_SURROGATE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)"
    r"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
)
# The times read without pydantic: RFC 3339 as producers write it, a form in which
# datetime.fromisoformat and pydantic agree. Any other form is pydantic's to read.
_PLAIN_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?"
    r"(?:Z|[+-][0-9]{2}:[0-9]{2})\Z"
)


def decode_turn(raw: bytes | None) -> Turn:
    """Raise ``InvalidTurn`` with a reason that names fields, never the message's values.

    ``None`` is a tombstone (a record with a null value): not a turn."""
    if raw is None:
        raise InvalidTurn("a tombstone: the message has no value")
    try:
        turn = _FAST.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return _by_contract(raw)
    except RecursionError:  # nested past Python's limit: surely past pydantic's 200 levels
        return _by_contract(raw)
    if _has_nul(turn):
        return _by_contract(raw)
    if not _nests_within(MAX_FAST_DEPTH, raw, turn):
        return _by_contract(raw)
    return turn


def contract_turn(raw: bytes) -> TurnContract:
    """The message as the contract's pydantic model, unknown fields kept (``model_extra``
    at every level), or ``InvalidTurn``: for what needs the wire form, never the hot path."""
    try:
        return TurnContract.model_validate_json(raw)
    except ValidationError as exc:
        refused = exc
    if _not_json(refused):
        repaired = repair_broken_characters(raw)
        if repaired is not None:
            try:
                return TurnContract.model_validate_json(repaired)
            except ValidationError as exc:
                refused = exc
    raise InvalidTurn(_reason(refused)) from None


def _by_contract(raw: bytes) -> Turn:
    accepted = contract_turn(raw).model_dump(by_alias=True)
    return msgspec.convert(accepted, Turn, dec_hook=_instant)


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


def _instant(kind: type, value: Any) -> Any:
    """msgspec's hook for ``Instant``: the plain RFC 3339 form from JSON within the
    contract's range, or a datetime pydantic parsed (and bounded); anything else is left to
    pydantic (raising sends it there)."""
    if kind is Instant:
        if type(value) is str and _PLAIN_TIME.match(value):
            instant = Instant.fromisoformat(value)
            if EARLIEST_TURN_TIME <= instant < TURN_TIME_BEFORE:
                return instant
            raise ValueError("out of the contract's range")  # pydantic words the refusal
        if isinstance(value, datetime) and (offset := value.utcoffset()) is not None:
            return Instant.combine(value.date(), value.time(), timezone(offset))
    raise ValueError("not a plain RFC 3339 time")


def _has_nul(turn: Turn) -> bool:
    """Whether a stored id holds a NUL, which PostgreSQL text cannot."""
    version = turn.agent.version
    return (
        "\x00" in turn.turn_id
        or "\x00" in turn.agent.id
        or (turn.thread_id is not None and "\x00" in turn.thread_id)
        or (turn.person_id is not None and "\x00" in turn.person_id)
        or (isinstance(version, str) and "\x00" in version)
    )


def _nests_within(depth: int, raw: bytes, turn: Turn) -> bool:
    """Whether the message surely nests no deeper than ``depth`` arrays and objects.

    A path nests at most ``CONTRACT_DEPTH`` of the contract's own, then values of any shape
    and unknown fields, which hold every other bracket of the message (brackets in strings
    only add). So the depth is at most ``CONTRACT_DEPTH`` + the brackets of the message
    that are not the turn's own parts; the parts are counted until the bound is low enough.
    A part the message left out is not counted, even when its default is there."""
    spare = depth - CONTRACT_DEPTH - raw.count(b"[") - raw.count(b"{")
    spare += 3  # the turn, its agent, its output
    given = turn.input
    if given.messages or given.prompt_variables or given.transcript is not None:
        spare += 1 + _listed(given.messages) + bool(given.prompt_variables)
    spare += _listed(turn.knowledge) + _listed(turn.history) + _listed(turn.private_values)
    spare += _listed(turn.rounds)
    rounds = iter(turn.rounds)
    while spare < 0:
        round_ = next(rounds, None)
        if round_ is None:
            return False
        spare += _listed(round_.tool_calls) + _listed(round_.tool_results)
    return True


def _listed(items: list[Any]) -> int:
    """A list and its objects, when it has any (then it was in the message)."""
    return 1 + len(items) if items else 0


def _keep_pairs(match: re.Match[str]) -> str:
    backslashes, escape = match[1], match[2]
    return match[0] if len(escape) == len("\\ud83d\\ude00") else backslashes + REPLACEMENT_ESCAPE


def _not_json(exc: ValidationError) -> bool:
    errors = exc.errors(include_input=False, include_url=False)
    return bool(errors) and errors[0]["type"] == "json_invalid"


def _reason(exc: ValidationError) -> str:
    if _not_json(exc):
        if _TOO_DEEP in exc.errors(include_input=False, include_url=False)[0]["msg"]:
            return "not valid JSON: nested too deeply"
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


_FAST = msgspec.json.Decoder(Turn, dec_hook=_instant)
