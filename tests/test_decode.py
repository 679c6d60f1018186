import pytest

from tests.factories import turn_bytes, turn_dict
from turncheck.worker.decode import decode_turn
from turncheck.worker.errors import InvalidTurn


def test_a_valid_turn_decodes_and_keeps_unknown_fields() -> None:
    import json

    turn = decode_turn(json.dumps(turn_dict(locale="de-DE")).encode())
    assert turn.turn_id == "t-1"
    assert turn.model_extra == {"locale": "de-DE"}


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b"[]", "not a valid turn.stored/v1"),
    ],
)
def test_bad_bytes_say_why(raw: bytes, reason: str) -> None:
    with pytest.raises(InvalidTurn, match=reason):
        decode_turn(raw)


def test_the_reason_names_fields_but_never_values() -> None:
    secret = "4111 1111 1111 1111"
    raw = turn_bytes(created_at=secret)
    with pytest.raises(InvalidTurn) as caught:
        decode_turn(raw)
    assert "created_at" in caught.value.reason
    assert secret not in caught.value.reason


def test_a_turn_without_a_timezone_is_refused() -> None:
    with pytest.raises(InvalidTurn, match="created_at"):
        decode_turn(turn_bytes(created_at="2026-11-29T10:00:00"))
