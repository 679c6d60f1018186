"""The turn decoder on any input: it accepts a turn or refuses with ``InvalidTurn``, never
another exception; msgspec's hot path and pydantic's contract decide every input alike;
and a turn it accepts has a time the store can keep."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.factories import turn_dict
from tests.fuzzing import (
    DEEP,
    DEPTHS,
    json_bytes,
    json_values,
    mutated,
    nested,
    raw_number,
    replaced,
    times,
    with_deep,
)
from tests.turns.decode_cases import DIGESTS, IDS, SHAPES, TIMES, VERSIONS, plain, rich_turn
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.turns.decode import contract_turn, decode_turn

valid_turns = st.sampled_from([rich_turn(), turn_dict()])
# The differential test's values at the contract's edges, beside any JSON at all.
EDGE_VALUES = st.sampled_from([*TIMES, *VERSIONS, *IDS, *DIGESTS, *SHAPES])


def decided(raw: bytes) -> tuple[str, Any]:
    """The worker's decision, held to the contract's: the same data, or the same reason."""
    try:
        by_worker: tuple[str, Any] = ("accepted", plain(decode_turn(raw)))
    except InvalidTurn as exc:
        by_worker = ("refused", exc.reason)
    try:
        by_contract: tuple[str, Any] = ("accepted", plain(contract_turn(raw)))
    except InvalidTurn as exc:
        by_contract = ("refused", exc.reason)
    assert by_worker == by_contract
    return by_worker


@given(st.binary(max_size=600))
def test_any_bytes_are_a_turn_or_refused_and_both_readers_agree(raw: bytes) -> None:
    """Bytes of any kind are decided, by both readers alike, with no other exception."""
    decided(raw)


@given(st.data())
def test_any_json_in_any_field_is_decided_alike(data: st.DataObject) -> None:
    """A valid turn with any JSON value (huge numbers, NaN, NUL, lone surrogates, odd
    times, number literals past a float) in any of its fields is decided alike."""
    values = json_values | times | raw_number() | EDGE_VALUES
    turn = data.draw(mutated(data.draw(valid_turns), values))
    decided(data.draw(json_bytes(turn)))


STORED = [("turn_id",), ("thread_id",), ("person_id",), ("agent", "id"), ("agent", "version")]
STORED += [("created_at",), ("schema",), ("channel",), ("output", "text")]


@given(st.sampled_from(STORED), json_values | times | raw_number() | EDGE_VALUES, st.data())
def test_any_value_in_a_field_the_store_keeps_is_decided_alike(
    path: tuple[str, ...], value: Any, data: st.DataObject
) -> None:
    """Any value in an id, the version, the time or the schema is decided alike: the fields
    the store keeps, where msgspec's reading must refuse what pydantic refuses."""
    decided(data.draw(json_bytes(replaced(rich_turn(), path, value))))


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("where", ["message", "prompt_variables", "arguments", "unknown"])
def test_deep_nesting_anywhere_is_decided_alike(depth: int, where: str) -> None:
    """Arrays and objects nested past either reader's limit are refused or accepted alike,
    never with a RecursionError."""
    turn = rich_turn()
    if where == "message":
        raw = nested(depth, json.dumps(turn)).encode()
    else:
        if where == "prompt_variables":
            turn["input"]["prompt_variables"] = {"deep": DEEP}
        elif where == "arguments":
            turn["rounds"][0]["tool_calls"][0]["arguments"] = {"deep": DEEP}
        else:
            turn["extension"] = DEEP
        raw = with_deep(turn, depth)
    decided(raw)


@given(times)
def test_an_accepted_time_is_one_the_store_can_keep(created_at: str) -> None:
    """A turn is accepted only with a time that can be written in UTC, as it is stored."""
    raw = json.dumps(turn_dict(created_at=created_at)).encode()
    if decided(raw)[0] == "accepted":
        decode_turn(raw).created_at.astimezone(UTC)
