"""The check-file loader on any file: checks, or ``CheckDefinitionError`` (a
``ConfigurationError``: one line, exit 2) naming the file, never another exception."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
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
    raw_number,
    with_deep,
)
from turncheck.worker.checks import load_checks
from turncheck.worker.errors import CheckDefinitionError

EXAMPLES = Path(__file__).parents[2] / "examples"
TEXTS = [(EXAMPLES / name).read_text() for name in ("checks.yaml", "judged-checks.yaml")]
FILES = [yaml.safe_load(text) for text in TEXTS]


@pytest.fixture(scope="module")
def check_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file, written again for each example (a module's fixture: hypothesis runs many
    examples in one test)."""
    return tmp_path_factory.mktemp("fuzz") / "checks.yaml"


def loaded(path: Path, content: bytes) -> None:
    """Load ``content`` as a check file: checks, or the loader's error naming the file."""
    path.write_bytes(content)
    try:
        load_checks([path])
    except CheckDefinitionError as exc:
        assert exc.file == str(path)
        assert "\n" not in str(exc), "an error a person can fix is one line"


EDGES = {
    "not UTF-8": b"agent: support-bot\x80\nchecks: []\n",
    "not YAML": b"agent: a\nchecks: [\n",
    "a control character": b"agent: a\x01\nchecks: []\n",
    "an integer of 5,001 digits": b"agent: a\nchecks: []\nsample_rate: 1" + b"0" * 5000 + b"\n",
    "a lone surrogate": b'agent: "\\ud83d"\nchecks: []\n',
    "a NUL": b'agent: "a\\0b"\nchecks: []\n',
}


@pytest.mark.parametrize("content", EDGES.values(), ids=EDGES.keys())
def test_each_edge_the_fuzzing_found_is_refused_with_the_loaders_error(
    check_file: Path, content: bytes
) -> None:
    """The smallest files the fuzz tests below found failing are refused with one line."""
    loaded(check_file, content)


@given(st.binary(max_size=400))
def test_any_bytes_are_checks_or_refused(check_file: Path, raw: bytes) -> None:
    """Bytes of any kind, UTF-8 or not, are loaded or refused with the loader's error."""
    loaded(check_file, raw)


@given(st.data())
def test_any_value_in_any_field_of_a_valid_file_is_refused_with_the_loaders_error(
    check_file: Path, data: st.DataObject
) -> None:
    """A valid file with any value (any text, huge numbers, NaN, nesting) in any field,
    written as JSON or YAML, is loaded or refused with the loader's error."""
    values = json_values | raw_number()
    content = data.draw(mutated(data.draw(st.sampled_from(FILES)), values))
    if data.draw(st.booleans()):
        raw = data.draw(json_bytes(content))
    else:
        try:
            raw = yaml.safe_dump(content, allow_unicode=True).encode("utf-8", "surrogatepass")
        except yaml.YAMLError:
            raw = data.draw(json_bytes(content))
    loaded(check_file, raw)


@given(st.data())
def test_a_valid_file_edited_anywhere_is_refused_with_the_loaders_error(
    check_file: Path, data: st.DataObject
) -> None:
    """A valid file's text with lines dropped, doubled or re-indented, or any text or bytes
    put anywhere, is loaded or refused with the loader's error."""
    raw = data.draw(st.sampled_from(TEXTS)).encode()
    for _ in range(data.draw(st.integers(1, 4))):
        lines = raw.split(b"\n")
        at = data.draw(st.integers(0, len(lines) - 1))
        edit = data.draw(st.sampled_from(["drop", "double", "indent", "insert", "bytes"]))
        if edit == "drop":
            del lines[at]
        elif edit == "double":
            lines.insert(at, lines[at])
        elif edit == "indent":
            lines[at] = b" " * data.draw(st.integers(1, 5)) + lines[at]
        else:
            line = lines[at]
            cut = data.draw(st.integers(0, len(line)))
            if edit == "insert":
                put = data.draw(st.text(ANY_CHAR, max_size=8)).encode("utf-8", "surrogatepass")
            else:
                put = data.draw(st.binary(min_size=1, max_size=4))
            lines[at] = line[:cut] + put + line[cut:]
        raw = b"\n".join(lines)
    loaded(check_file, raw)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("where", ["flow", "block", "json", "phrases", "unknown"])
def test_deep_nesting_is_refused_with_the_loaders_error(
    check_file: Path, depth: int, where: str
) -> None:
    """Arrays and mappings nested past the parser's recursion limit are refused with the
    loader's error, not a RecursionError."""
    if where == "flow":
        raw = nested(depth).encode()
    elif where == "block":
        # Indented mappings: the text grows with the square of the depth.
        depth = min(depth, 3000)
        raw = b"".join(b" " * level + b"k:\n" for level in range(depth)) + b" " * depth + b"v\n"
    elif where == "json":
        raw = nested(depth, json.dumps(FILES[0])).encode()
    else:
        content = json.loads(json.dumps(FILES[0]))
        if where == "phrases":
            content["checks"][3]["phrases"] = [DEEP]
        else:
            content["checks"][0]["extra"] = DEEP
        raw = with_deep(content, depth)
    loaded(check_file, raw)
