"""The public-data corpus (tests/corpus/public/*.jsonl) held to issue 19's promise.

Over seen and unseen together: every detector finds at least 95% of its cases and
raises a false alarm on at most 0.5% of the cases it should pass; each spoken,
hard-wrapped, HTML-entity and defanged form is caught at least 90% of the time; no
detector fires on a spoken amount, time or quantity. A failure lists case ids only.
The figures, seen and unseen apart, print at the end of the run.
"""

from __future__ import annotations

from typing import Any

from tests.corpus.public.run import outcomes, table
from tests.corpus.test_quality import REPORT
from turncheck.schemas.checkfile import DETECTOR_NAMES

MIN_RECALL = 0.95
MAX_FALSE_ALARMS = 0.005
MIN_FORM_CAUGHT = 0.90
MEASURED = [d for d in DETECTOR_NAMES if d not in ("private_values", "instructions_leak")]


def _rows() -> tuple[tuple[str, dict[str, Any], frozenset[str]], ...]:
    rows = outcomes()
    if not any(line.startswith("public corpus") for line in REPORT):
        REPORT.append("public corpus (tests/corpus/public): recall and false alarms, seen | unseen")
        REPORT.extend(f"  {line}" for line in table(rows))
    return rows


def _ids(cases: list[str]) -> str:
    return ", ".join(cases)


def test_every_detector_finds_its_cases() -> None:
    failing = []
    for detector in MEASURED:
        positives = [
            (case, fired)
            for _, case, fired in _rows()
            if case["expect"] and case["detector"] == detector
        ]
        if not positives:
            continue
        missed = [case["id"] for case, fired in positives if detector not in fired]
        if 1 - len(missed) / len(positives) < MIN_RECALL:
            failing.append(f"{detector}: {_ids(missed)}")
    assert not failing, "recall below 95%:\n" + "\n".join(failing)


def test_no_detector_raises_false_alarms() -> None:
    failing = []
    for detector in MEASURED:
        negatives = [
            (case, fired)
            for _, case, fired in _rows()
            if not case["expect"] and case["detector"] in (detector, "*")
        ]
        alarms = [
            case["id"] for case, fired in negatives if detector in fired or "errored" in fired
        ]
        if len(alarms) / len(negatives) > MAX_FALSE_ALARMS:
            failing.append(f"{detector}: {_ids(alarms)}")
    assert not failing, "false alarms above 0.5%:\n" + "\n".join(failing)


def test_spoken_wrapped_and_marked_up_forms_are_caught() -> None:
    failing = []
    for form in ("spoken", "wrapped", "entities", "defanged"):
        positives = [
            (case, fired) for _, case, fired in _rows() if case["expect"] and case["form"] == form
        ]
        missed = [case["id"] for case, fired in positives if case["detector"] not in fired]
        if 1 - len(missed) / len(positives) < MIN_FORM_CAUGHT:
            failing.append(f"{form}: {_ids(missed)}")
    assert not failing, "forms caught below 90%:\n" + "\n".join(failing)


def test_spoken_amounts_times_and_quantities_pass() -> None:
    flagged = [
        case["id"]
        for _, case, fired in _rows()
        if case["form"] == "spoken" and not case["expect"] and fired
    ]
    assert not flagged, f"flagged: {_ids(flagged)}"


def test_no_case_errors() -> None:
    errored = [case["id"] for _, case, fired in _rows() if "errored" in fired]
    assert not errored, f"errored: {_ids(errored)}"
