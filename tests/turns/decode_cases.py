"""Messages at every edge of ``turn.stored/v1``, and random variants of valid turns, for
the test that holds msgspec's decoding to pydantic's contract (and the decode bench)."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import msgspec
from pydantic import BaseModel

from tests.factories import turn_dict

DIGEST = "0123456789abcdef" * 4


def rich_turn(**overrides: Any) -> dict[str, Any]:
    """A turn with every field of the contract filled in."""
    return turn_dict(
        instructions="You are the support bot of Acme. Never share internal links.",
        input={
            "messages": [
                {"role": "developer", "content": "Plan: gold"},
                {"role": "user", "content": "Where is order A-88213?"},
            ],
            "prompt_variables": {"plan": "gold", "count": 3, "nested": {"a": [1, 2.5, None]}},
            "transcript": "caller said hello",
        },
        knowledge=[{"source": "returns.md", "content": "Returns within 30 days."}],
        history=[
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "name": "bot", "content": "Hello, how can I help?"},
        ],
        rounds=[
            {
                "text": "Looking that up.",
                "tool_calls": [
                    {"id": "c1", "name": "lookup", "arguments": {"order": "A-88213"}},
                    {"id": "c2", "name": "raw", "arguments": '{"q": 1}'},
                ],
                "tool_results": [
                    {"call_id": "c1", "name": "lookup", "content": {"status": "shipped"}},
                    {"call_id": "c2", "content": ["a", 1, True, None, 0.5]},
                ],
            }
        ],
        private_values=[
            {"salt": "s4lt", "sha256": DIGEST},
            {"salt": "s4lt", "sha256": DIGEST, "sha256_casefold": DIGEST},
        ],
        **overrides,
    )


def padded_turn(size: int) -> bytes:
    """A rich turn of about ``size`` bytes: a long answer and long tool results."""
    filler = "Your order A-88213 left our warehouse on 2026-03-04 and ships by courier. "
    data = rich_turn(output=(filler * (size // len(filler) // 2 + 1))[: size // 2])
    data["rounds"][0]["tool_results"][0]["content"] = {"log": filler * (size // 4 // len(filler))}
    return json.dumps(data).encode()


def structured_turn(size: int) -> bytes:
    """A turn of about ``size`` bytes in many small parts: history, passages, tool rounds."""
    data = rich_turn()
    step = 0
    while len(json.dumps(data)) < size:
        step += 1
        data["history"].append({"role": "user", "content": f"Message {step} on A-{step}."})
        data["knowledge"].append({"source": f"doc{step}.md", "content": f"Passage {step}."})
        data["rounds"].append(
            {
                "text": f"Step {step}",
                "tool_calls": [{"id": f"c{step}", "name": "lookup", "arguments": {"n": step}}],
                "tool_results": [
                    {"call_id": f"c{step}", "content": {"items": [{"sku": step, "qty": 1}]}}
                ],
            }
        )
    return json.dumps(data).encode()


def _with(path: str, value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.loads(json.dumps(base or rich_turn()))
    *parents, name = path.split(".")
    target: Any = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    if value is _DELETE:
        del target[name]
    else:
        target[name] = value
    return data


_DELETE = object()

TIMES = [
    "2026-11-29T10:00:00Z",
    "2026-11-29t10:00:00z",
    "2026-11-29 10:00:00Z",
    "2026-11-29T10:00Z",
    "2026-11-29T10:00:00+01:00",
    "2026-11-29T10:00:00+0100",
    "2026-11-29T10:00:00-00:00",
    "2026-11-29T10:00:00+23:59",
    "2026-11-29T10:00:00+24:00",
    "2026-11-29T10:00:00.5Z",
    "2026-11-29T10:00:00.123456Z",
    "2026-11-29T10:00:00.1234567Z",
    "2026-11-29T10:00:00.9999999Z",
    "9999-12-31T23:59:59.9999999Z",
    "9999-12-31T23:59:59Z",
    "2100-01-01T00:00:00Z",
    "2099-12-31T23:59:59.999999Z",
    "2099-12-31T20:00:00-05:00",
    "2100-01-01T04:00:00+05:00",
    "2000-01-01T00:00:00Z",
    "2000-01-01T00:30:00+01:00",
    "1999-12-31T23:59:59.999999Z",
    "1999-12-31T19:00:00-05:00",
    946684800,
    4102444799,
    4102444800,
    "4102444800",
    "2026-11-29T10:00:00,5Z",
    "2026-11-29T10:00:00",
    "2026-11-29",
    "2026-02-30T10:00:00Z",
    "2026-11-29T24:00:00Z",
    "2026-11-29T23:59:60Z",
    "0000-01-01T00:00:00Z",
    "\uff12\uff10\uff12\uff16-11-29T10:00:00Z",  # fullwidth digits
    " 2026-11-29T10:00:00Z",
    "1700000000",
    1700000000,
    1700000000.5,
    -1,
    True,
    None,
    "",
    "yesterday",
]
VERSIONS = [0, 7, -7, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**70, 7.0, 7.5, 1e3, True]
VERSIONS += ["", "7", "v" * 64, "v" * 65, "a\x00b", "\n", None, [], {}]
IDS = ["", "x", "x" * 200, "x" * 201, "a\x00b", "\x00", "line\n", "é" * 200, "😀" * 200, 7]
IDS += [None, [], {}, True]
DIGESTS = [DIGEST, DIGEST.upper(), DIGEST[:-1], DIGEST + "0", DIGEST + "\n", " " + DIGEST, ""]
DIGESTS += [None, 0, "g" * 64]
SHAPES: list[Any] = [None, True, 0, -1.5, "", "text", [], {}, [1, "a"], {"k": "v"}, 2**70]


def edge_messages() -> Iterator[tuple[str, bytes | None]]:
    """Named messages, each at one edge of the contract."""
    yield "valid", json.dumps(rich_turn()).encode()
    yield "minimal", json.dumps(turn_dict()).encode()
    yield "tombstone", None
    for name, raw in [
        ("empty", b""),
        ("space", b" "),
        ("null", b"null"),
        ("array", b"[]"),
        ("number", b"7"),
        ("string", b'"turn"'),
        ("object", b"{}"),
        ("not json", b"{not json"),
        ("truncated", json.dumps(rich_turn()).encode()[:-1]),
        ("trailing", json.dumps(rich_turn()).encode() + b" x"),
        ("bom", b"\xef\xbb\xbf" + json.dumps(turn_dict()).encode()),
        ("bad bytes", b"\xff\xfe"),
    ]:
        yield name, raw
    for index, value in enumerate(TIMES):
        yield f"created_at {index}", json.dumps(rich_turn(created_at=value)).encode()
    for index, value in enumerate(VERSIONS):
        yield f"version {index}", json.dumps(_with("agent.version", value)).encode()
    for path in ["turn_id", "thread_id", "person_id", "agent.id"]:
        for index, value in enumerate(IDS):
            yield f"{path} {index}", json.dumps(_with(path, value)).encode()
    for path in ["private_values.0.sha256", "private_values.1.sha256_casefold"]:
        for index, value in enumerate(DIGESTS):
            yield f"{path} {index}", json.dumps(_with(path, value)).encode()
    for path in _paths(rich_turn()):
        yield f"without {path}", json.dumps(_with(path, _DELETE)).encode()
        for index, value in enumerate(SHAPES):
            yield f"{path} as {index}", json.dumps(_with(path, value)).encode()
    for literal in ["schema", "channel", "input.messages.0.role"]:
        for value in ["user", "developer", "assistant", "web", "sms", "WEB", "turn.stored/v2"]:
            yield f"{literal} {value}", json.dumps(_with(literal, value)).encode()
    yield from _unknown_fields()
    yield from _broken_characters()
    yield from _json_forms()
    for depth in [10, 140, 150, 151, 190, 195, 196, 197, 200, 250, 600, 2_000, 100_000]:
        deep = b"[" * depth + b"]" * depth
        for at in ["rounds.0.tool_results.0.content", "unknown", "input.prompt_variables.deep"]:
            raw = json.dumps(_with(at, "DEEP")).encode().replace(b'"DEEP"', deep)
            yield f"depth {depth} at {at}", raw
        deep_objects = b'{"a":' * depth + b"1" + b"}" * depth
        raw = json.dumps(_with("unknown", "DEEP")).encode().replace(b'"DEEP"', deep_objects)
        yield f"object depth {depth}", raw
    many = json.loads(structured_turn(8_000))
    for depth in [170, 185, 190, 196, 197, 205]:
        deep = b"[" * depth + b"]" * depth
        for at in ["rounds.0.tool_results.0.content", "rounds.0.unknown"]:
            raw = json.dumps(_with(at, "DEEP", many)).encode().replace(b'"DEEP"', deep)
            yield f"depth {depth} at {at} among many parts", raw
        hidden = json.dumps(_with("rounds.0.tool_results.0.content", "DEEP", many)).encode()
        hidden = hidden.replace(b'"DEEP"', deep).replace(b'"rounds": [', b'"rounds": [], "x": [', 1)
        yield f"depth {depth} in a list the decoder drops", hidden
    yield "huge", padded_turn(2_000_000)
    yield "many errors", json.dumps({"schema": 1, "agent": [], "output": 2, "rounds": 3}).encode()


def _unknown_fields() -> Iterator[tuple[str, bytes]]:
    for path in ["", "agent.", "input.", "input.messages.0.", "rounds.0.", "output."]:
        for key in ["locale", "schema_", "model_config", "__class__", "", "turn_id "]:
            yield f"unknown {path}{key!r}", json.dumps(_with(path + key, {"x": [1]})).encode()
    yield "unknown nan", json.dumps(rich_turn(score=math.nan)).encode()
    yield "unknown infinity", json.dumps(rich_turn(score=math.inf)).encode()
    yield (
        "unknown 1e400",
        json.dumps(rich_turn(score=0)).encode().replace(b'"score": 0', b'"score": 1e400'),
    )
    yield "unknown big int", json.dumps(rich_turn(score=2**200)).encode()
    yield "nan in content", json.dumps(_with("rounds.0.tool_results.0.content", math.nan)).encode()
    yield (
        "1e400 in variables",
        json.dumps(_with("input.prompt_variables.x", 0)).encode().replace(b'"x": 0', b'"x": 1e400'),
    )
    yield (
        "big int in arguments",
        json.dumps(_with("rounds.0.tool_calls.0.arguments", {"n": 10**30})).encode(),
    )


def _broken_characters() -> Iterator[tuple[str, bytes]]:
    cut = "Your code is 4F \ud83d and HelpCo can help."
    for path in [
        "output.text",
        "turn_id",
        "agent.id",
        "unknown",
        "rounds.0.tool_results.0.content",
    ]:
        for name, text in [
            ("lone high", cut),
            ("lone low", "a \ude00 b"),
            ("pair", "a \ud83d\ude00 b"),
            ("reversed", "a \ude00\ud83d b"),
            ("escaped backslash", "C:\\ud83d and \ud83d"),
        ]:
            yield f"{name} in {path}", json.dumps(_with(path, text)).encode()
        raw = json.dumps(_with(path, "CUT-HERE")).encode()
        for name, bad in [
            ("cut emoji", b"\xf0\x9f"),
            ("overlong", b"\xc0\xaf"),
            ("surrogate bytes", b"\xed\xa0\xbd"),
            ("lone continuation", b"\x80"),
        ]:
            yield f"{name} bytes in {path}", raw.replace(b"CUT-HERE", bad)
    yield (
        "surrogate and bad field",
        json.dumps(rich_turn(output=cut, created_at="yesterday")).encode(),
    )
    yield "surrogate still not json", b'{"schema": "\\ud83d", oops'
    yield (
        "surrogate in a key",
        json.dumps(rich_turn()).encode().replace(b'"instructions"', b'"instr\\ud83d"'),
    )


def _json_forms() -> Iterator[tuple[str, bytes]]:
    raw = json.dumps(rich_turn()).encode()
    yield "unicode escapes everywhere", json.dumps(rich_turn(output="héllo ☃ 😀")).encode()
    yield (
        "no ascii escapes",
        json.dumps(rich_turn(output="héllo ☃ 😀"), ensure_ascii=False).encode(),
    )
    yield "escaped key", raw.replace(b'"turn_id"', b'"turn\\u005fid"')
    yield "duplicate key", raw.replace(b'"turn_id": "t-1"', b'"turn_id": "t-0", "turn_id": "t-1"')
    yield (
        "duplicate object",
        raw.replace(b'"channel": "web"', b'"channel": "sms", "channel": "web"'),
    )
    yield (
        "control character",
        json.dumps(rich_turn(output="CTRL")).encode().replace(b"CTRL", b"a\nb"),
    )
    yield "escaped nul", json.dumps(rich_turn(output="a\x00b")).encode()
    yield "escaped slash", raw.replace(b'"t-1"', b'"t\\/1"')
    yield "pretty", json.dumps(rich_turn(), indent=2).encode()
    yield "leading zero", raw.replace(b'"version": 7', b'"version": 07')
    yield "exponent version", raw.replace(b'"version": 7', b'"version": 7e0')
    yield "negative zero", raw.replace(b'"version": 7', b'"version": -0')


def _paths(data: Any, prefix: str = "") -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield prefix + key
            yield from _paths(value, f"{prefix}{key}.")
    elif isinstance(data, list) and data:
        yield from _paths(data[0], f"{prefix}0.")


def variants(seed: int, count: int) -> Iterator[bytes]:
    """Random mutations of valid turns: one to three edits of value, shape or bytes."""
    rng = random.Random(seed)
    pool: list[Any] = [*TIMES, *VERSIONS, *IDS, *DIGESTS, *SHAPES, _DELETE]
    for _ in range(count):
        data = rich_turn() if rng.random() < 0.7 else turn_dict()
        for _ in range(rng.randint(1, 3)):
            paths = list(_paths(data))
            path = rng.choice(paths) if rng.random() < 0.9 else rng.choice(paths) + ".extra"
            try:
                data = _with(path, rng.choice(pool), data)
            except (KeyError, IndexError, TypeError):
                continue
        raw = json.dumps(data, ensure_ascii=rng.random() < 0.5, allow_nan=True).encode()
        if rng.random() < 0.15:
            raw = _byte_edit(rng, raw)
        yield raw


def _byte_edit(rng: random.Random, raw: bytes) -> bytes:
    at = rng.randrange(len(raw))
    edit = rng.choice([b"", b"\xff", b"\xf0\x9f", b"\\ud83d", b'"', b",", b"}", b"\\"])
    return raw[:at] + edit + raw[at + rng.choice([0, 1]) :]


def plain(value: Any) -> Any:
    """A value's declared data, with types: a struct and a pydantic model compare equal
    when every declared field holds the same value of the same type (unknown fields,
    which only pydantic keeps, are not declared data)."""
    if isinstance(value, BaseModel):
        return {
            info.alias or name: plain(getattr(value, name))
            for name, info in type(value).model_fields.items()
        }
    if isinstance(value, msgspec.Struct):
        return {f.encode_name: plain(getattr(value, f.name)) for f in msgspec.structs.fields(value)}
    if isinstance(value, datetime):
        return ("datetime", value.isoformat(), value.utcoffset())
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)
