"""The disguised-corpus loader refuses a malformed line, naming its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.corpus.corpus import CorpusError, disguised_cases

GOOD: dict[str, Any] = {
    "id": "dg-x-001",
    "check": {"kind": "sensitive_data", "detectors": ["card"]},
    "turn": {"output": {"text": "Nothing here."}},
    "expect": "passed",
    "disguise": "plain",
    "note": "clean answer",
}


def write(path: Path, *rows: dict[str, Any] | str) -> Path:
    lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_good_file_loads_by_name(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", GOOD)
    assert disguised_cases(path) == {"a.jsonl": [GOOD]}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"check": {"kind": "sensitive_data", "detectors": ["cards"]}},
            "invalid check at 'detectors.0'",
        ),
        ({"check": {"kind": "judge", "criterion": "polite_tone"}}, "'check.kind' must be one of"),
        ({"check": {"kind": "facts", "name": "x"}}, "the test names it"),
        ({"turn": {"output": {"text": "x"}, "outputs": []}}, "unexpected turn fields ['outputs']"),
        (
            {"turn": {"rounds": [{"text": 3}], "output": {"text": "x"}}},
            "invalid turn at 'rounds.0.text'",
        ),
        ({"turn": {"output": {"text": "x"}, "private_values": [4821]}}, "'turn.private_values'"),
        ({"expect": "fail"}, "'expect' must be 'passed' or 'failed'"),
        ({"disguise": "U+2011 dash"}, "'disguise' must be a short lower-case tag"),
        ({"note": " "}, "'note' is empty"),
        ({"expected": "passed"}, "unexpected keys ['expected']"),
    ],
)
def test_a_malformed_case_names_file_and_line(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    path = write(tmp_path / "a.jsonl", GOOD, {**GOOD, "id": "dg-x-002", **change})
    with pytest.raises(CorpusError, match=r"^a\.jsonl:2: ") as caught:
        disguised_cases(path)
    assert message in str(caught.value)


def test_a_line_that_is_not_json_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", "{not json")
    with pytest.raises(CorpusError, match=r"^a\.jsonl:1: not valid JSON"):
        disguised_cases(path)


def test_an_id_may_not_repeat_across_files(tmp_path: Path) -> None:
    first = write(tmp_path / "a.jsonl", GOOD)
    second = write(tmp_path / "b.jsonl", GOOD)
    with pytest.raises(CorpusError, match=r"^b\.jsonl:1: duplicate id 'dg-x-001'"):
        disguised_cases((first, second))
