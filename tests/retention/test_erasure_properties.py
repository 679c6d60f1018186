"""The erasure request decoder on any input: a request, or ``InvalidErasureRequest`` naming
what is wrong and never the person; never another exception."""

from __future__ import annotations

import json
from datetime import UTC

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzzing import (
    ANY_CHAR,
    DEEP,
    DEPTHS,
    json_bytes,
    json_values,
    mutated,
    nested,
    times,
    with_deep,
)
from turncheck.worker.errors import InvalidErasureRequest
from turncheck.worker.retention.erasure import decode_request

PERSON = "person-4a7c1e"
VALID = {"person_id": PERSON, "requested_at": "2026-12-01T10:00:00Z"}


def decided(raw: bytes) -> str:
    """ "accepted", or the reason; the request's time can be written in UTC, as the ledger
    keeps it, and the reason names no person."""
    try:
        request = decode_request(raw)
    except InvalidErasureRequest as exc:
        assert PERSON not in exc.reason
        return exc.reason
    request.requested_at.astimezone(UTC)
    assert request.person_id and "\x00" not in request.person_id
    return "accepted"


@given(st.binary(max_size=400))
def test_any_bytes_are_a_request_or_refused(raw: bytes) -> None:
    """Bytes of any kind are a request or refused with the decoder's own error."""
    decided(raw)


@given(st.data())
def test_any_json_in_a_request_is_decided(data: st.DataObject) -> None:
    """A request with any JSON in its fields (huge numbers, NUL, lone surrogates, times at
    the calendar's ends, extra fields) is decided without another exception."""
    values = json_values | times | st.text(ANY_CHAR).map(lambda text: PERSON + text)
    request = data.draw(mutated(VALID, values))
    decided(data.draw(json_bytes(request)))


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("around", [True, False], ids=["around", "in an extra field"])
def test_deep_nesting_is_refused_or_ignored(depth: int, around: bool) -> None:
    """Arrays and objects nested deeper than any reader's limit are refused (around the
    request) or ignored (in an extra field), never a RecursionError."""
    raw = (
        nested(depth, json.dumps(VALID)).encode()
        if around
        else with_deep({**VALID, "extra": DEEP}, depth)
    )
    decided(raw)


@given(times)
def test_a_request_is_accepted_only_with_a_time_the_ledger_can_keep(requested_at: str) -> None:
    """Times at the ends of the calendar and of the zones are refused unless they can be
    written in UTC, as the ledger keeps them."""
    decided(json.dumps({"person_id": PERSON, "requested_at": requested_at}).encode())
