"""``action_claims`` on its labelled corpus: every file alone and all together hold
precision >= 0.95 and recall >= 0.90 (a case is positive when it expects ``failed``),
and the caught cases name the unsupported actions the case labels. The figures print
at the end of the run (and with ``python -m tests.corpus.action_claims.score``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.corpus.action_claims.score import SEEN, Figures, all_figures, load
from tests.corpus.test_quality import REPORT

MIN_PRECISION = 0.95
MIN_RECALL = 0.90
MIN_CLAIMS_MATCHED = 0.90


def test_the_seen_corpus_is_large_and_about_half_failing() -> None:
    """The seen set holds at least 230 cases, 40-50% of them failing, each id once."""
    cases = load(SEEN)
    failing = sum(case["expect"] == "failed" for case in cases)
    assert len(cases) >= 230
    assert 0.40 <= failing / len(cases) <= 0.50
    assert len({case["id"] for case in cases}) == len(cases)


@pytest.mark.parametrize("figures", all_figures(), ids=lambda f: f.name)
def test_unsupported_action_claims_are_caught_without_false_alarms(figures: Figures) -> None:
    """Precision, recall and the share of caught cases naming exactly the labelled actions
    stay above the promise, per corpus file and combined."""
    REPORT.append(figures.line())
    assert figures.precision >= MIN_PRECISION, figures.misses
    assert figures.recall >= MIN_RECALL, figures.misses
    assert figures.claims_share >= MIN_CLAIMS_MATCHED, figures.misses


def test_an_unseen_file_is_scored_alone_and_with_the_seen_one(tmp_path: Path) -> None:
    """With both files present, the figures cover each file and the two together."""
    seen = {"id": "acs-1", "answer": "I've cancelled your order.", "expect": "failed"}
    unseen = {"id": "acu-1", "answer": "Would you like me to cancel it?", "expect": "passed"}
    (tmp_path / "seen.jsonl").write_text(json.dumps({**seen, "claims": ["cancellation"]}))
    (tmp_path / "unseen.jsonl").write_text(json.dumps(unseen))
    figures = all_figures(tmp_path)
    assert [(f.name, f.cases, f.true_positives) for f in figures] == [
        ("seen", 1, 1),
        ("unseen", 1, 0),
        ("combined", 2, 1),
    ]
