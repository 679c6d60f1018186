import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, turn_bytes, turn_dict
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store
from turncheck.worker.turns.decode import contract_turn, decode_turn


def test_a_valid_turn_decodes_and_its_unknown_fields_are_kept_by_the_contract_model() -> None:
    raw = json.dumps(turn_dict(locale="de-DE", agent={"id": "a", "version": 1, "team": "x"}))
    turn = decode_turn(raw.encode())
    assert turn.turn_id == "t-1"
    wire = contract_turn(raw.encode())
    assert wire.model_extra == {"locale": "de-DE"}
    assert wire.agent.model_extra == {"team": "x"}


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


@pytest.mark.parametrize(
    "created_at",
    [
        "9999-12-31T23:59:59Z",
        "2100-01-01T00:00:00Z",
        "2099-12-31T20:00:00-05:00",
        "1999-12-31T23:59:59Z",
        "0001-01-01T00:00:00+14:00",
        0,
    ],
)
def test_a_turn_dated_outside_2000_to_2100_is_refused_naming_created_at(
    created_at: object,
) -> None:
    """A time whose expiry could not be stored (or that no producer means) is refused at
    decode, so it is dead-lettered at once instead of failing its batch at store time."""
    with pytest.raises(InvalidTurn, match=r"^not a valid turn.stored/v1: created_at: "):
        decode_turn(turn_bytes(created_at=created_at))


def test_a_message_nested_100000_deep_is_refused_as_too_deep() -> None:
    """Past Python's recursion limit msgspec raises RecursionError; it is a bad message."""
    deep = turn_bytes()[:-1] + b', "extra": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    with pytest.raises(InvalidTurn) as caught:
        decode_turn(deep)
    assert caught.value.reason == "not valid JSON: nested too deeply"


def _with(path: str, value: object) -> bytes:
    """A turn with one field, ``agent.id`` or ``thread_id``, set to ``value``."""
    data = turn_dict()
    *parents, name = path.split(".")
    target = data
    for parent in parents:
        target = target[parent]
    target[name] = value
    return json.dumps(data).encode()


STORED_IDS = ["turn_id", "thread_id", "person_id", "agent.id"]


@pytest.mark.parametrize("path", STORED_IDS)
def test_an_id_longer_than_its_column_is_refused_naming_the_field(path: str) -> None:
    value = "x" * 200 + "Q"
    with pytest.raises(InvalidTurn) as caught:
        decode_turn(_with(path, value))
    assert path in caught.value.reason and "200 characters" in caught.value.reason
    assert value not in caught.value.reason


@pytest.mark.parametrize("path", STORED_IDS)
def test_an_id_as_long_as_its_column_is_accepted(path: str) -> None:
    decode_turn(_with(path, "x" * 200))


@pytest.mark.parametrize("path", [*STORED_IDS, "agent.version"])
def test_an_id_with_a_nul_is_refused_because_postgresql_cannot_store_it(path: str) -> None:
    with pytest.raises(InvalidTurn, match=path.replace(".", r"\.")):
        decode_turn(_with(path, "a\x00b"))


@pytest.mark.parametrize("version", ["v" * 64, 7, 2**63 - 1, -(2**63)])
def test_an_agent_version_that_fits_its_text_column_is_accepted(version: object) -> None:
    assert decode_turn(_with("agent.version", version)).agent.version == version


@pytest.mark.parametrize("version", ["v" * 65, 2**63, 10**70])
def test_an_agent_version_too_long_for_its_text_column_is_refused(version: object) -> None:
    with pytest.raises(InvalidTurn, match=r"agent\.version"):
        decode_turn(_with("agent.version", version))


def test_ids_inside_rounds_are_not_stored_so_any_length_is_accepted() -> None:
    call = {"id": "c" * 500, "name": "lookup"}
    decode_turn(
        turn_bytes(rounds=[{"tool_calls": [call], "tool_results": [{"call_id": "c" * 500}]}])
    )


CUT = "Your code is 4F \ud83d and HelpCo can help."


def test_a_text_cut_mid_emoji_is_decoded_with_a_replacement_character_in_its_place() -> None:
    """pydantic alone refuses the lone surrogate as invalid JSON; the turn would be lost."""
    raw = turn_bytes(output=CUT)
    assert b"\\ud83d" in raw
    turn = decode_turn(raw)
    assert turn.output.text == CUT.replace("\ud83d", "\ufffd")


def test_a_check_finds_a_phrase_after_the_cut_at_the_offset_the_producer_counted(
    tmp_path: Path,
) -> None:
    turn = decode_turn(turn_bytes(output=CUT))
    [found] = [r for r in evaluate(turn, check_set(tmp_path, BANNED_WORDS_CHECKS)) if r.spans]
    start = CUT.index("HelpCo")
    assert found.verdict == "failed"
    assert [(s.start, s.end) for s in found.spans] == [(start, start + len("HelpCo"))]


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("lone low \ude00 half", "lone low \ufffd half"),
        ("two highs \ud83d\ud83d\ude00", "two highs \ufffd\U0001f600"),
        ("a pair \ud83d\ude00 and a cut \ud83d", "a pair \U0001f600 and a cut \ufffd"),
    ],
)
def test_only_lone_surrogates_are_replaced_and_pairs_kept(text: str, decoded: str) -> None:
    assert decode_turn(turn_bytes(output=text)).output.text == decoded


def test_an_escaped_backslash_before_u_is_text_not_a_surrogate() -> None:
    text = "a path C:\\ud83d and a cut \ud83d"
    assert decode_turn(turn_bytes(output=text)).output.text == text.replace("\ud83d", "\ufffd")


def test_invalid_utf8_bytes_are_replaced_and_the_turn_is_checked(tmp_path: Path) -> None:
    """The first two bytes of a four-byte emoji, then the rest of the answer."""
    raw = turn_bytes(output="Cut CUT-HERE, ask HelpCo.").replace(b"CUT-HERE", b"\xf0\x9f")
    turn = decode_turn(raw)
    assert turn.output.text == "Cut \ufffd, ask HelpCo."
    [found] = [r for r in evaluate(turn, check_set(tmp_path, BANNED_WORDS_CHECKS)) if r.spans]
    assert [(s.start, s.end) for s in found.spans] == [(11, 17)]


def test_a_message_still_not_json_after_repair_is_refused_as_before() -> None:
    with pytest.raises(InvalidTurn, match="not valid JSON"):
        decode_turn(b'{"schema": "\\ud83d", oops')


def test_a_repaired_message_that_is_not_a_turn_names_its_fields() -> None:
    with pytest.raises(InvalidTurn, match="created_at"):
        decode_turn(turn_bytes(output=CUT, created_at="yesterday"))


async def test_turns_at_the_contract_limits_are_stored(store: Store, tmp_path: Path) -> None:
    """On SQLite and PostgreSQL: the longest ids, the longest version, a cut emoji in an id."""
    data = turn_dict(
        turn_id="t" * 199 + "\ud83d",
        thread_id="h" * 200,
        person_id="p" * 200,
        agent={"id": "a" * 200, "version": "v" * 64},
        output=CUT,
    )
    turn = decode_turn(json.dumps(data).encode())
    checks = check_set(tmp_path, BANNED_WORDS_CHECKS.replace("support-bot", "a" * 200))
    item = TurnResults(TurnRef.of(turn), evaluate(turn, checks), timedelta(days=30))
    assert (await store.writer.save([item], FIXED_NOW)).new_results == 2
    stored = await store.queries.results_for_turn("t" * 199 + "\ufffd")
    assert {r.verdict for r in stored} == {"passed", "failed"}
