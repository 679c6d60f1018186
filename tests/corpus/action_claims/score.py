"""Figures of ``action_claims`` on its labelled corpus (``seen.jsonl``, ``unseen.jsonl``).

Case level: a case is positive when it expects ``failed`` (an unsupported action
claim). For the failing cases the check caught, the share whose unbacked actions
(the labels of its spans) are exactly the case's ``claims``. Print them with
``python -m tests.corpus.action_claims.score``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.factories import turn_from
from turncheck.schemas.checkfile import ActionClaimsCheck
from turncheck.worker.checks.action_claims import compile_check
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.result import Verdict

HERE = Path(__file__).resolve().parent
SEEN = HERE / "seen.jsonl"
UNSEEN = HERE / "unseen.jsonl"
ACTIONS = frozenset(("refund", "cancellation", "charge", "shipment", "booking"))
ACTIONS |= {"password_reset", "escalation"}


@dataclass(frozen=True, slots=True)
class Figures:
    name: str
    cases: int
    true_positives: int
    false_positives: int
    false_negatives: int
    claims_matched: int
    misses: tuple[str, ...]
    """Ids of the cases decided wrongly, or caught with other actions than labelled."""

    @property
    def precision(self) -> float:
        flagged = self.true_positives + self.false_positives
        return self.true_positives / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        failing = self.true_positives + self.false_negatives
        return self.true_positives / failing if failing else 1.0

    @property
    def claims_share(self) -> float:
        return self.claims_matched / self.true_positives if self.true_positives else 1.0

    def line(self) -> str:
        return (
            f"action_claims {self.name}: {self.cases} cases, precision {self.precision:.3f}, "
            f"recall {self.recall:.3f}, claims matched {self.claims_matched}/"
            f"{self.true_positives} ({self.claims_share:.3f})"
        )


def load(path: Path) -> list[dict[str, Any]]:
    """The cases of one file; a malformed case raises ``ValueError`` naming its line."""
    cases = []
    for line_no, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        case = json.loads(raw)
        expect = case.get("expect")
        claims = case.get("claims", [])
        if expect not in ("failed", "passed") or not isinstance(case.get("answer"), str):
            raise ValueError(f"{path.name}:{line_no}: needs 'answer' and 'expect'")
        if (expect == "failed") != bool(claims) or not set(claims) <= ACTIONS:
            raise ValueError(f"{path.name}:{line_no}: 'claims' must name the failing actions")
        cases.append(case)
    return cases


def corpus_files(folder: Path = HERE) -> list[Path]:
    """The seen set, and the unseen one once it is in the tree."""
    return [path for path in (folder / SEEN.name, folder / UNSEEN.name) if path.exists()]


def decide(case: dict[str, Any]) -> tuple[Verdict, set[str]]:
    """The check's verdict on a case and the actions its spans name."""
    definition = ActionClaimsCheck.model_validate(
        {"name": "claims", "kind": "action_claims", "actions": case.get("actions", {})}
    )
    outcome = compile_check(definition)(turn_from(_turn(case)), Budget.unlimited())
    return outcome.verdict, {span.label for span in outcome.spans}


def _turn(case: dict[str, Any]) -> dict[str, Any]:
    user = case.get("user")
    return {
        "schema": "turn.stored/v1",
        "turn_id": case["id"],
        "agent": {"id": "corpus-bot", "version": 1, "model": "test"},
        "created_at": "2026-11-29T10:00:00Z",
        "input": {"messages": [{"role": "user", "content": user}] if user else []},
        "history": case.get("history", []),
        "rounds": case.get("rounds", []),
        "output": {"text": case["answer"]},
    }


def score(name: str, cases: list[dict[str, Any]]) -> Figures:
    tp = fp = fn = matched = 0
    misses = []
    for case in cases:
        verdict, found = decide(case)
        expected = case["expect"] == "failed"
        flagged = verdict is Verdict.FAILED
        if expected and flagged:
            tp += 1
            if found == set(case["claims"]):
                matched += 1
            else:
                misses.append(case["id"])
        elif flagged:
            fp += 1
            misses.append(case["id"])
        elif expected:
            fn += 1
            misses.append(case["id"])
    return Figures(name, len(cases), tp, fp, fn, matched, tuple(misses))


def all_figures(folder: Path = HERE) -> list[Figures]:
    """Per file, then every file together."""
    loaded = {path.stem: load(path) for path in corpus_files(folder)}
    figures = [score(name, cases) for name, cases in loaded.items()]
    if len(loaded) > 1:
        figures.append(score("combined", [case for cases in loaded.values() for case in cases]))
    return figures


if __name__ == "__main__":
    for figures in all_figures():
        print(figures.line())
        if figures.misses:
            print("  misses:", " ".join(figures.misses))
