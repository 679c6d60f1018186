"""Run the public corpus through the ``sensitive_data`` check as the worker does, and
count: recall and false-alarm rate per detector, per form, seen and unseen apart."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache
from pathlib import Path
from typing import Any

from tests.corpus.test_quality import corpus_turn
from turncheck.schemas.checkfile import DETECTOR_NAMES, CheckFile
from turncheck.worker.checks.definitions import CheckSet, check_set
from turncheck.worker.pipeline.evaluate import evaluate

HERE = Path(__file__).resolve().parent
PARTS = ("seen", "unseen")
# The corpus measures what the checks decide, not how fast (bench/rules.py times them).
BUDGET_MS = 10_000.0


def cases(part: str) -> list[dict[str, Any]]:
    with (HERE / f"{part}.jsonl").open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@cache
def _checks(detector: str, stage: str) -> CheckSet:
    detectors = list(DETECTOR_NAMES) if detector == "*" else [detector]
    definition = {"name": "case", "kind": "sensitive_data", "detectors": detectors, "stage": stage}
    return check_set(CheckFile.model_validate({"agent": "corpus-bot", "checks": [definition]}))


def flagged_by(case: dict[str, Any]) -> frozenset[str]:
    """The detectors that found something in the case's text (empty: the check passed)."""
    fields: dict[str, Any] = {"channel": case["channel"]}
    if case.get("field") == "transcript":
        stage = "input"
        fields |= {"input": {"transcript": case["text"]}, "output": {"text": "Thank you."}}
    else:
        stage = "output"
        fields["output"] = {"text": case["text"]}
    [result] = evaluate(
        corpus_turn(case["id"], **fields), _checks(case["detector"], stage), BUDGET_MS
    )
    if result.verdict == "errored":
        return frozenset({"errored"})
    return frozenset(name for name, verdict in result.parts if verdict == "failed")


@cache
def outcomes() -> tuple[tuple[str, dict[str, Any], frozenset[str]], ...]:
    """(part, case, detectors that fired) for every case, run once."""
    return tuple((part, case, flagged_by(case)) for part in PARTS for case in cases(part))


def tallies(
    rows: tuple[tuple[str, dict[str, Any], frozenset[str]], ...],
) -> dict[tuple[str, str, str], Counter[str]]:
    """Counts by (part, detector, form); a ``*`` negative counts for every detector.

    Keys in each Counter: pos, caught, neg, alarms.
    """
    out: dict[tuple[str, str, str], Counter[str]] = defaultdict(Counter)
    measured = [d for d in DETECTOR_NAMES if d not in ("private_values", "instructions_leak")]
    for part, case, fired in rows:
        detectors = measured if case["detector"] == "*" else [case["detector"]]
        for detector in detectors:
            for key in (
                (part, detector, case["form"]),
                ("all", detector, case["form"]),
                (part, detector, "all"),
                ("all", detector, "all"),
            ):
                counts = out[key]
                if case["expect"]:
                    counts["pos"] += 1
                    counts["caught"] += detector in fired
                else:
                    counts["neg"] += 1
                    counts["alarms"] += detector in fired or "errored" in fired
    return out


def table(rows: tuple[tuple[str, dict[str, Any], frozenset[str]], ...]) -> list[str]:
    counts = tallies(rows)
    lines = [
        f"{'detector':<16} {'form':<9} {'recall seen':>17} {'recall unseen':>17} {'false alarms seen':>19} {'false alarms unseen':>19}"
    ]
    for detector, form in sorted(
        {(d, f) for _, d, f in counts}, key=lambda k: (k[0], k[1] != "all", k[1])
    ):
        seen, unseen = (
            counts.get(("seen", detector, form), Counter()),
            counts.get(("unseen", detector, form), Counter()),
        )
        lines.append(
            f"{detector:<16} {form:<9} {_rate(seen['caught'], seen['pos']):>17} {_rate(unseen['caught'], unseen['pos']):>17} "
            f"{_rate(seen['alarms'], seen['neg'], 2):>19} {_rate(unseen['alarms'], unseen['neg'], 2):>19}"
        )
    return lines


def _rate(hits: int, total: int, places: int = 1) -> str:
    return f"{hits}/{total} {hits / total:.{places}%}" if total else "-"
