"""Precision and recall of the rule checks on the labelled corpus (tests/corpus/*.jsonl).

The figures are printed at the end of the pytest run; the thresholds are the
promise: every detector at precision >= 0.98 and recall >= 0.95; `facts`
rejects at most 1% of good replies and catches at least 95% of invented facts.
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from typing import Any

from tests.corpus.corpus import facts_cases, sensitive_cases
from tests.factories import turn_from
from turncheck.schemas.checkfile import CheckFile
from turncheck.worker.checks.definitions import check_set
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.turns.structs import Turn

REPORT: list[str] = []

MIN_PRECISION = 0.98
MIN_RECALL = 0.95
MAX_GOOD_REJECTED = 0.01
MIN_INVENTED_CAUGHT = 0.95

REASON_KIND = {
    "amount": "An amount",
    "date": "A date",
    "link": "A link",
    "email": "An email address",
    "phone": "A phone number",
    "id": "An ID",
    "quote": "A quoted phrase",
}


def corpus_turn(case_id: str, **fields: Any) -> Turn:
    return turn_from(
        {
            "schema": "turn.stored/v1",
            "turn_id": case_id,
            "agent": {"id": "corpus-bot", "version": 1, "model": "test"},
            "created_at": "2026-11-29T10:00:00Z",
            **fields,
        }
    )


def private_digests(values: list[str], case_id: str) -> list[dict[str, str]]:
    out = []
    for i, value in enumerate(values):
        salt = hashlib.sha256(f"{case_id}/{i}".encode()).hexdigest()[:16]
        # The producer sends the digest of the case-folded value too (optional in the
        # contract): a repeat in another letter case is then found.
        folded = hashlib.sha256((salt + value.casefold()).encode()).hexdigest()
        exact = hashlib.sha256((salt + value).encode()).hexdigest()
        out.append({"salt": salt, "sha256": exact, "sha256_casefold": folded})
    return out


def test_every_detector_meets_precision_and_recall() -> None:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    misses: dict[str, list[str]] = defaultdict(list)
    for case in sensitive_cases():
        detector = case["detector"]
        definition = {
            "name": "sensitive",
            "kind": "sensitive_data",
            "detectors": [detector],
            "internal_domains": case.get("internal_domains", []),
        }
        checks = check_set(
            CheckFile.model_validate({"agent": "corpus-bot", "checks": [definition]})
        )
        turn = corpus_turn(
            case["id"],
            output={"text": case["text"]},
            instructions=case.get("instructions"),
            knowledge=[{"content": passage} for passage in case.get("knowledge", [])],
            private_values=private_digests(case.get("private_values", []), case["id"]),
        )
        [result] = evaluate(turn, checks)
        assert result.verdict != "errored", f"{case['id']}: {result.reason}"
        found = result.verdict == "failed"
        outcome = {
            (True, True): "tp",
            (False, True): "fp",
            (True, False): "fn",
            (False, False): "tn",
        }
        label = outcome[(case["expect"], found)]
        counts[detector][label] += 1
        if label in ("fp", "fn"):
            misses[detector].append(f"{case['id']} ({label})")

    failing = []
    REPORT.append(f"{'detector':<18} {'precision':>9} {'recall':>7}  tp  fp  fn  tn")
    for detector in sorted(counts):
        c = counts[detector]
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 1.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 1.0
        REPORT.append(
            f"{detector:<18} {precision:>9.3f} {recall:>7.3f} {c['tp']:>3} {c['fp']:>3} "
            f"{c['fn']:>3} {c['tn']:>3}"
        )
        if precision < MIN_PRECISION or recall < MIN_RECALL:
            failing.append(f"{detector}: {', '.join(misses[detector])}")
    assert not failing, "below threshold:\n" + "\n".join(failing)


def test_facts_rejects_few_good_replies_and_catches_invented_facts() -> None:
    good = invented = rejected = caught = right_kind = 0
    misses = []
    for case in facts_cases():
        definition = {"name": "grounded", "kind": "facts", **case.get("check", {})}
        checks = check_set(
            CheckFile.model_validate({"agent": "corpus-bot", "checks": [definition]})
        )
        [result] = evaluate(corpus_turn(case["id"], **case["turn"]), checks)
        assert result.verdict != "errored", f"{case['id']}: {result.reason}"
        if case["expect"] == "passed":
            good += 1
            if result.verdict == "failed":
                rejected += 1
                misses.append(f"{case['id']} (good reply rejected: {result.reason})")
        else:
            invented += 1
            if result.verdict == "failed":
                caught += 1
                expected = REASON_KIND[case["unsupported_kind"]]
                if (result.reason or "").startswith(expected):
                    right_kind += 1
                else:
                    misses.append(f"{case['id']} (reason names another kind: {result.reason})")
            else:
                misses.append(f"{case['id']} (invented fact passed)")
    REPORT.append(
        f"facts: {good} good replies, {rejected} rejected ({rejected / good:.1%}); "
        f"{invented} invented, {caught} caught ({caught / invented:.1%}), "
        f"{right_kind} with the right kind in the reason"
    )
    assert rejected / good <= MAX_GOOD_REJECTED, "\n".join(misses)
    assert caught / invented >= MIN_INVENTED_CAUGHT, "\n".join(misses)
    assert right_kind / invented >= MIN_INVENTED_CAUGHT, "\n".join(misses)
