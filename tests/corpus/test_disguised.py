"""Disguised sensitive data and look-alikes (tests/corpus/disguised*.jsonl).

Every case runs one rule check on one turn, as the worker would. The promise, over
both files together: at least 90% of the disguised cases fail their check (the data
is caught), at least 98% of the look-alikes pass it, and no case is ``errored``. The
figures per file and per disguise print at the end of the run, beside test_quality's.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from functools import cache
from typing import Any

from tests.corpus.corpus import disguised_cases
from tests.corpus.test_quality import REPORT, corpus_turn, private_digests
from turncheck.schemas.checkfile import CheckFile
from turncheck.worker.checks.definitions import check_set
from turncheck.worker.pipeline.evaluate import evaluate

MIN_CAUGHT = 0.90
MIN_LOOK_ALIKES_PASSED = 0.98

# The corpus measures what the checks decide, not how fast: on a loaded CI machine the
# per-turn budget could run out and turn a verdict into `errored`. bench/rules.py times them.
BUDGET_MS = 10_000.0


def verdict(case: dict[str, Any]) -> str:
    definition = {"name": "case", **case["check"]}
    checks = check_set(CheckFile.model_validate({"agent": "corpus-bot", "checks": [definition]}))
    fields = dict(case["turn"])
    fields["private_values"] = private_digests(fields.get("private_values", []), case["id"])
    [result] = evaluate(corpus_turn(case["id"], **fields), checks, budget_ms=BUDGET_MS)
    return result.verdict


@cache
def outcomes() -> tuple[tuple[str, str, str, str], ...]:
    """(file, id, expect, verdict) for every case, run once; the report is written then."""
    rows = tuple(
        (file, case["id"], case["expect"], verdict(case), case["disguise"], _check_label(case))
        for file, cases in disguised_cases().items()
        for case in cases
    )
    _report(rows)
    return tuple((file, case_id, expect, got) for file, case_id, expect, got, _, _ in rows)


def _check_label(case: dict[str, Any]) -> str:
    check = case["check"]
    if check["kind"] != "sensitive_data":
        return str(check["kind"])
    detectors = check.get("detectors")
    return ", ".join(detectors) if detectors else "every detector"


def _report(rows: tuple[tuple[str, str, str, str, str, str], ...]) -> None:
    by_file: dict[str, Counter[str]] = defaultdict(Counter)
    by_check: dict[str, Counter[str]] = defaultdict(Counter)
    by_tag: dict[str, Counter[str]] = defaultdict(Counter)
    for file, _, expect, got, tag, check in rows:
        for counts in (by_file[file], by_check[check], by_tag[tag]):
            counts[expect] += 1
            counts[f"{expect}->{got}"] += 1
            counts["errored"] += got == "errored"
    REPORT.append("disguised data caught (expect failed), look-alikes passed (expect passed):")
    REPORT.extend(_line(name, counts) for name, counts in by_file.items())
    REPORT.append(_line("both files", sum(by_file.values(), Counter())))
    REPORT.append("  by check, both files:")
    REPORT.extend(_line(check, by_check[check]) for check in sorted(by_check))
    REPORT.append("  by disguise, both files:")
    REPORT.extend(_line(tag, by_tag[tag]) for tag in sorted(by_tag))


def _line(name: str, counts: Counter[str]) -> str:
    caught = _rate(counts["failed->failed"], counts["failed"])
    passed = _rate(counts["passed->passed"], counts["passed"])
    errored = f"  errored {counts['errored']}" if counts["errored"] else ""
    return f"  {name:<24} caught {caught:<16} passed {passed}{errored}"


def _rate(hits: int, total: int) -> str:
    return f"{hits}/{total} ({hits / total:.0%})" if total else "-"


def _misses(expect: str) -> list[str]:
    return [case_id for _, case_id, want, got in outcomes() if want == expect and got != want]


def test_disguised_data_is_caught() -> None:
    disguised = [row for row in outcomes() if row[2] == "failed"]
    missed = _misses("failed")
    caught = 1 - len(missed) / len(disguised)
    assert caught >= MIN_CAUGHT, (
        f"caught {caught:.1%} < {MIN_CAUGHT:.0%}; missed: {', '.join(missed)}"
    )


def test_look_alikes_pass() -> None:
    look_alikes = [row for row in outcomes() if row[2] == "passed"]
    flagged = _misses("passed")
    passed = 1 - len(flagged) / len(look_alikes)
    assert passed >= MIN_LOOK_ALIKES_PASSED, (
        f"passed {passed:.1%} < {MIN_LOOK_ALIKES_PASSED:.0%}; not passed: {', '.join(flagged)}"
    )


def test_no_case_errors() -> None:
    errored = [case_id for _, case_id, _, got in outcomes() if got == "errored"]
    assert not errored, f"errored: {', '.join(errored)}"
