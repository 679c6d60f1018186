"""The worker's decoder against the contract's pydantic model, message for message: it
accepts exactly what the contract accepts, with the same data, and refuses with the
same reason (the same fields named)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.turns.decode_cases import (
    edge_messages,
    padded_turn,
    plain,
    rich_turn,
    structured_turn,
    variants,
)
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.turns import decode
from turncheck.worker.turns.decode import contract_turn, decode_turn

EDGES = list(edge_messages())


def by_contract(raw: bytes | None) -> tuple[str, Any]:
    """What pydantic alone decides, as decode_turn did before msgspec."""
    if raw is None:
        return "refused", "a tombstone: the message has no value"
    try:
        return "accepted", plain(contract_turn(raw))
    except InvalidTurn as exc:
        return "refused", exc.reason


def by_worker(raw: bytes | None) -> tuple[str, Any]:
    try:
        return "accepted", plain(decode_turn(raw))
    except InvalidTurn as exc:
        return "refused", exc.reason


@pytest.mark.parametrize(("name", "raw"), EDGES, ids=[name for name, _ in EDGES])
def test_each_edge_of_the_contract_is_decided_as_pydantic_decides_it(
    name: str, raw: bytes | None
) -> None:
    assert by_worker(raw) == by_contract(raw)


@pytest.mark.parametrize("seed", range(4))
def test_random_variants_of_valid_turns_are_decided_as_pydantic_decides_them(seed: int) -> None:
    decided = {"accepted": 0, "refused": 0}
    for raw in variants(seed, 750):
        expected = by_contract(raw)
        assert by_worker(raw) == expected, raw[:400]
        decided[expected[0]] += 1
    assert min(decided.values()) > 100, "the variants must test both sides"


def test_the_edges_cover_both_sides_and_every_field() -> None:
    outcomes = [by_contract(raw)[0] for _, raw in EDGES]
    assert outcomes.count("accepted") > 50 and outcomes.count("refused") > 100
    reasons = " ".join(str(by_contract(raw)[1]) for _, raw in EDGES)
    for field in ["turn_id", "thread_id", "person_id", "agent.id", "agent.version", "created_at"]:
        assert field in reasons
    for field in ["private_values.0.sha256", "input.messages.0.role", "channel", "schema"]:
        assert field in reasons


EVERYDAY = {
    "rich": json.dumps(rich_turn()).encode(),
    "unicode": json.dumps(rich_turn(output="héllo ☃ 😀"), ensure_ascii=False).encode(),
    "offset": json.dumps(rich_turn(created_at="2026-11-29T10:00:00.123+05:30")).encode(),
    "8 KB": padded_turn(8_000),
    "8 KB in many parts": structured_turn(8_000),
}


@pytest.mark.parametrize("name", EVERYDAY)
def test_turns_as_producers_write_them_never_reach_pydantic(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The speed is in this path: msgspec must take every ordinary turn itself."""

    def refuse(raw: bytes) -> None:
        raise AssertionError("went to pydantic")

    monkeypatch.setattr(decode, "_by_contract", refuse)
    assert decode_turn(EVERYDAY[name]).turn_id == "t-1"


def test_a_decoded_turn_is_a_frozen_slotted_object() -> None:
    turn = decode_turn(EVERYDAY["rich"])
    assert not hasattr(turn, "__dict__") and not hasattr(turn.agent, "__dict__")
    with pytest.raises(AttributeError):
        turn.turn_id = "t-2"  # type: ignore[misc]
