"""Hypothesis strategies for the fuzz tests of the edges that read what others write: the
turn decoder, the erasure request decoder, the check-file loader.

The examples are bounded and derandomized (the ``ci`` profile, loaded by
``tests/conftest.py``), so a CI run on two shared cores tries the same inputs every time.
``pytest --hypothesis-profile=many`` tries 20,000 random ones per test instead.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

settings.register_profile(
    "ci",
    max_examples=300,
    # Two shared cores: an example's time says nothing about the code under test.
    deadline=None,
    derandomize=True,
    database=None,
    # A failure is reported as found, not shrunk: shrinking a check file can outlast the
    # test's timeout. `many` shrinks, for the smallest input that fails.
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "many",
    max_examples=20_000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Every code point: NUL, controls, lone surrogates, astral planes.
ANY_CHAR = st.characters(codec=None, exclude_categories=())
texts = st.text(ANY_CHAR, max_size=40) | st.sampled_from(
    ["", "\x00", "a\x00b", "\ud83d", "\ude00", "\ud83d\ude00", "😀", "\u2028", "\ufeff", "\\"]
)
HUGE_INTS = [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64, 10**70, -(10**400)]
numbers = (
    st.integers()
    | st.sampled_from(HUGE_INTS)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from([0.0, -0.0, 1e308, 5e-324, 1e16, 7.0])
)
scalars = st.none() | st.booleans() | numbers | texts
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=20,
)
"""JSON-ish values: what ``json.dumps`` can write (NaN and infinities included, which JSON
has not), with any text in their strings and keys."""

# Number literals json.dumps never writes: past a float's range, a long run of digits, forms
# JSON refuses (a leading zero, a plus sign) or that mean one value two ways.
RAW_NUMBERS = ["1e400", "-1e400", "1" + "0" * 5000, "0." + "0" * 400 + "1", "-0", "1E+2"]
RAW_NUMBERS += ["01", "+1", "1.", ".5", "0x10", "1e", "Infinity", "-NaN", "1_000"]
MARK = "\x01raw-number-{}\x01"

times = st.sampled_from(
    [
        "0001-01-01T00:00:00Z",
        "0001-01-01T00:00:00+14:00",
        "0001-01-01T00:00:00-23:59",
        "9999-12-31T23:59:59Z",
        "9999-12-31T23:59:59.999999Z",
        "9999-12-31T23:00:00-02:00",
        "9999-12-31T23:59:59-00:01",
        "0000-12-31T23:59:59Z",
        "10000-01-01T00:00:00Z",
        "1970-01-01T00:00:00Z",
        "2026-11-29T10:00:00+23:59",
        "2026-11-29T10:00:00-23:59",
        "2026-11-29T10:00:00+24:00",
        "-2026-11-29T10:00:00Z",
        "2026-11-29T10:00:00Z\x00",
    ]
) | st.datetimes(timezones=st.timezones()).map(lambda moment: moment.isoformat())
"""Times at the ends of the calendar and of the offsets, and anywhere in any zone."""


DEPTHS = [1, 50, 185, 189, 190, 191, 195, 199, 200, 201, 250, 333, 500, 1000, 3000, 20_000]
"""Nesting depths around the readers' limits: 190 and 200 arrays and objects in the turn
decoder, Python's recursion limit (1000 frames) in msgspec and PyYAML. Tests of them are
not hypothesis tests: hypothesis raises the recursion limit by 2000 frames while it runs
an example, so a RecursionError the worker would meet does not happen there."""


def nested(depth: int, leaf: str = "0") -> str:
    """JSON text of ``depth`` arrays and objects, alternating, around ``leaf`` (JSON text);
    written as text because ``json.dumps`` itself stops at Python's recursion limit."""
    opening = "".join("[" if level % 2 else '{"k": ' for level in range(depth))
    closing = "".join("]" if level % 2 else "}" for level in reversed(range(depth)))
    return opening + leaf + closing


DEEP = "\x01deep\x01"


def with_deep(data: Any, depth: int) -> bytes:
    """``data`` as JSON with the string ``DEEP`` in it replaced by ``nested(depth)``."""
    return json.dumps(data).replace(json.dumps(DEEP), nested(depth)).encode()


@st.composite
def json_bytes(draw: st.DrawFn, data: Any) -> bytes:
    """``data`` written as JSON bytes in one of the ways a producer may write it: ASCII
    escapes or raw UTF-8 (a lone surrogate then written as the bytes UTF-8 forbids),
    compact or indented, with some numbers as literals json.dumps never writes."""
    text = json.dumps(
        data,
        ensure_ascii=draw(st.booleans()),
        allow_nan=True,
        indent=draw(st.sampled_from([None, 1])),
    )
    for index, literal in enumerate(RAW_NUMBERS):
        text = text.replace(json.dumps(MARK.format(index)), literal)
    return text.encode("utf-8", errors="surrogatepass")


def raw_number() -> st.SearchStrategy[str]:
    """A marker ``json_bytes`` writes as one of ``RAW_NUMBERS``."""
    return st.integers(0, len(RAW_NUMBERS) - 1).map(MARK.format)


def paths(data: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every path into ``data``'s objects and arrays, ``data`` itself first."""
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += paths(value, (*prefix, index))
    return found


DELETE = object()


def replaced(data: Any, path: tuple[str | int, ...], value: Any) -> Any:
    """A copy of ``data`` with the value at ``path`` replaced (or deleted: ``DELETE``)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy: Any = dict(data) if isinstance(data, dict) else list(data)
    if rest:
        copy[head] = replaced(data[head], rest, value)
    elif value is DELETE:
        del copy[head]
    else:
        copy[head] = value
    return copy


@st.composite
def mutated(draw: st.DrawFn, data: Any, values: st.SearchStrategy[Any]) -> Any:
    """``data`` with one to three of its values replaced by ``values``, deleted, or given a
    new field."""
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(data)))
        if path and draw(st.integers(0, 9)) == 0:
            data = replaced(data, path, DELETE)
            continue
        target: Any = data
        for part in path:
            target = target[part]
        if isinstance(target, dict) and draw(st.integers(0, 4)) == 0:
            path = (*path, draw(texts))
        data = replaced(data, path, draw(values))
    return data
