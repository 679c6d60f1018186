"""Loaders for the labelled detector corpus (``sensitive.jsonl``, ``facts.jsonl``,
``disguised.jsonl``).

Loaders only: they parse and validate the shape of each line; scoring lives in
the tests that use them. A malformed line raises ``CorpusError`` naming the file
and the 1-based line number.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from turncheck.schemas.checkfile import DETECTOR_NAMES, CheckFile
from turncheck.schemas.checkfile import FACT_KINDS as FACT_KIND_NAMES
from turncheck.schemas.turn import Turn

HERE = Path(__file__).resolve().parent
SENSITIVE_FILE = HERE / "sensitive.jsonl"
SENSITIVE_EXTRA_FILE = HERE / "sensitive_extra.jsonl"
SENSITIVE_FILES: tuple[Path, ...] = (SENSITIVE_FILE, SENSITIVE_EXTRA_FILE)
FACTS_FILE = HERE / "facts.jsonl"
FACTS_EXTRA_FILE = HERE / "facts_extra.jsonl"
FACTS_FILES: tuple[Path, ...] = (FACTS_FILE, FACTS_EXTRA_FILE)

# The contract's names: a case naming anything else is a typo, not a new detector.
DETECTORS: frozenset[str] = frozenset(DETECTOR_NAMES)
FACT_KINDS: frozenset[str] = frozenset(FACT_KIND_NAMES)
TURN_FIELDS: frozenset[str] = frozenset(
    {"input", "history", "rounds", "knowledge", "instructions", "output"}
)


class CorpusError(ValueError):
    """A corpus line is not valid JSON or misses a required key."""


def _fail(path: Path, line_no: int, message: str) -> CorpusError:
    return CorpusError(f"{path.name}:{line_no}: {message}")


def _read_lines(path: Path) -> list[tuple[int, dict[str, Any]]]:
    rows: list[tuple[int, dict[str, Any]]] = []
    with path.open(encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise _fail(path, line_no, f"not valid JSON: {exc.msg}") from None
            if not isinstance(row, dict):
                raise _fail(path, line_no, "a line must be a JSON object")
            rows.append((line_no, row))
    return rows


def _require(
    path: Path, line_no: int, row: dict[str, Any], key: str, kind: type | tuple[type, ...]
) -> Any:
    if key not in row:
        raise _fail(path, line_no, f"missing required key {key!r}")
    value = row[key]
    if not isinstance(value, kind):
        raise _fail(path, line_no, f"{key!r} has the wrong type ({type(value).__name__})")
    return value


def _check_unique(path: Path, line_no: int, case_id: str, seen: set[str]) -> None:
    if not case_id:
        raise _fail(path, line_no, "'id' is empty")
    if case_id in seen:
        raise _fail(path, line_no, f"duplicate id {case_id!r}")
    seen.add(case_id)


def sensitive_cases(
    paths: Path | tuple[Path, ...] | list[Path] = SENSITIVE_FILES,
) -> list[dict[str, Any]]:
    """Cases for the ``sensitive_data`` detectors, one per line of ``sensitive.jsonl``
    and ``sensitive_extra.jsonl`` (a second, independently written corpus).

    Every file gets the same validation; ids must be unique across all of them.
    """
    if isinstance(paths, Path):
        paths = (paths,)
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path in paths:
        cases.extend(_sensitive_file(path, seen))
    return cases


def _sensitive_file(path: Path, seen: set[str]) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for line_no, row in _read_lines(path):
        _check_unique(path, line_no, _require(path, line_no, row, "id", str), seen)
        detector = _require(path, line_no, row, "detector", str)
        if detector not in DETECTORS:
            raise _fail(path, line_no, f"unknown detector {detector!r}")
        _require(path, line_no, row, "text", str)
        _require(path, line_no, row, "expect", bool)
        _require(path, line_no, row, "note", str)
        if "instructions" in row and not isinstance(row["instructions"], str):
            raise _fail(path, line_no, "'instructions' must be a string")
        for key in ("private_values", "internal_domains", "knowledge"):
            if key in row and not (
                isinstance(row[key], list) and all(isinstance(v, str) for v in row[key])
            ):
                raise _fail(path, line_no, f"{key!r} must be a list of strings")
        if detector == "instructions_leak" and "instructions" not in row:
            raise _fail(path, line_no, "instructions_leak cases need 'instructions'")
        if detector == "private_values" and "private_values" not in row:
            raise _fail(path, line_no, "private_values cases need 'private_values'")
        cases.append(row)
    return cases


def facts_cases(*paths: Path) -> list[dict[str, Any]]:
    """Cases for the ``facts`` check, one per line of ``facts.jsonl`` and ``facts_extra.jsonl``.

    Ids must be unique across all the files read.
    """
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for path, (line_no, row) in ((p, r) for p in paths or FACTS_FILES for r in _read_lines(p)):
        _check_unique(path, line_no, _require(path, line_no, row, "id", str), seen)
        turn = _require(path, line_no, row, "turn", dict)
        unknown = set(turn) - TURN_FIELDS
        if unknown:
            raise _fail(path, line_no, f"unexpected turn fields {sorted(unknown)}")
        output = turn.get("output")
        if not isinstance(output, dict) or not isinstance(output.get("text"), str):
            raise _fail(path, line_no, "turn needs 'output' with a string 'text'")
        expect = _require(path, line_no, row, "expect", str)
        if expect not in ("passed", "failed"):
            raise _fail(path, line_no, f"'expect' must be 'passed' or 'failed', not {expect!r}")
        _require(path, line_no, row, "note", str)
        if expect == "failed":
            kind = _require(path, line_no, row, "unsupported_kind", str)
            if kind not in FACT_KINDS:
                raise _fail(path, line_no, f"unknown unsupported_kind {kind!r}")
        elif "unsupported_kind" in row:
            raise _fail(path, line_no, "'unsupported_kind' only belongs on failed cases")
        if "check" in row:
            check = row["check"]
            if not isinstance(check, dict) or set(check) - {"kinds", "allowed"}:
                raise _fail(path, line_no, "'check' may only hold 'kinds' and 'allowed'")
            if "kinds" in check and not (
                isinstance(check["kinds"], list)
                and check["kinds"]
                and set(check["kinds"]) <= FACT_KINDS
            ):
                raise _fail(path, line_no, "'check.kinds' must be a non-empty list of fact kinds")
            if "allowed" in check and not (
                isinstance(check["allowed"], list)
                and all(isinstance(v, str) and v for v in check["allowed"])
            ):
                raise _fail(path, line_no, "'check.allowed' must be a list of non-empty strings")
        cases.append(row)
    return cases


# ---- disguised data and look-alikes: one case = a check definition, a turn, a verdict ----

DISGUISED_FILE = HERE / "disguised.jsonl"
DISGUISED_UNSEEN_FILE = HERE / "disguised_unseen.jsonl"
DISGUISED_FILES: tuple[Path, ...] = (DISGUISED_FILE, DISGUISED_UNSEEN_FILE)

# Rule checks only: a judged check needs a model, so its verdict is no fixed label.
RULE_KINDS: frozenset[str] = frozenset({"pattern", "does_not_contain", "sensitive_data", "facts"})
CASE_KEYS: frozenset[str] = frozenset({"id", "check", "turn", "expect", "disguise", "note"})
DISGUISE_TAG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def disguised_cases(
    paths: Path | tuple[Path, ...] | list[Path] = DISGUISED_FILES,
) -> dict[str, list[dict[str, Any]]]:
    """Cases of ``disguised.jsonl`` and ``disguised_unseen.jsonl``, by file name.

    Each case names a rule check as a check file would (``check``, without ``name``), a
    partial turn (``private_values`` as plain values) and the verdict a careful reviewer
    gives. Ids must be unique across all the files read.
    """
    if isinstance(paths, Path):
        paths = (paths,)
    seen: set[str] = set()
    return {path.name: _disguised_file(path, seen) for path in paths}


def _disguised_file(path: Path, seen: set[str]) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for line_no, row in _read_lines(path):
        _check_unique(path, line_no, _require(path, line_no, row, "id", str), seen)
        unknown = set(row) - CASE_KEYS
        if unknown:
            raise _fail(path, line_no, f"unexpected keys {sorted(unknown)}")
        _valid_check(path, line_no, _require(path, line_no, row, "check", dict))
        _valid_turn(path, line_no, _require(path, line_no, row, "turn", dict))
        expect = _require(path, line_no, row, "expect", str)
        if expect not in ("passed", "failed"):
            raise _fail(path, line_no, f"'expect' must be 'passed' or 'failed', not {expect!r}")
        if not DISGUISE_TAG.match(_require(path, line_no, row, "disguise", str)):
            raise _fail(path, line_no, "'disguise' must be a short lower-case tag (a-z, 0-9, '-')")
        if not _require(path, line_no, row, "note", str).strip():
            raise _fail(path, line_no, "'note' is empty")
        cases.append(row)
    return cases


def _valid_check(path: Path, line_no: int, check: dict[str, Any]) -> None:
    if check.get("kind") not in RULE_KINDS:
        raise _fail(path, line_no, f"'check.kind' must be one of {sorted(RULE_KINDS)}")
    if "name" in check:
        raise _fail(path, line_no, "'check' has no 'name': the test names it")
    try:
        CheckFile.model_validate({"agent": "corpus-bot", "checks": [{"name": "case", **check}]})
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"][3:]) or "check"
        raise _fail(path, line_no, f"invalid check at {where!r}: {first['msg']}") from None


def _valid_turn(path: Path, line_no: int, turn: dict[str, Any]) -> None:
    unknown = set(turn) - TURN_FIELDS - {"private_values"}
    if unknown:
        raise _fail(path, line_no, f"unexpected turn fields {sorted(unknown)}")
    values = turn.get("private_values", [])
    if not (isinstance(values, list) and all(isinstance(v, str) and v for v in values)):
        raise _fail(path, line_no, "'turn.private_values' must be a list of non-empty strings")
    fields = {key: value for key, value in turn.items() if key != "private_values"}
    try:
        Turn.model_validate(
            {
                "schema": "turn.stored/v1",
                "turn_id": "corpus-case",
                "agent": {"id": "corpus-bot", "version": 1},
                "created_at": "2026-11-29T10:00:00Z",
                **fields,
            }
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise _fail(path, line_no, f"invalid turn at {where!r}: {first['msg']}") from None
