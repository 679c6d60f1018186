from pathlib import Path

import pytest

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.evaluate import evaluate

CHECK = """agent: support-bot
checks:
  - name: banned
    kind: does_not_contain
    phrases: [Acme Support, the tool, Crème Co, C++]
"""


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("Try ACME support instead.", Verdict.FAILED),
        ("Try acme   Support instead.", Verdict.FAILED),
        ("I asked the tool for that.", Verdict.FAILED),
        ("Ask creme co about it.", Verdict.FAILED),
        ("We also support C++ builds.", Verdict.FAILED),
        ("The toolbox is in the shed.", Verdict.PASSED),
        ("Acme Supporters club.", Verdict.PASSED),
        ("Nothing to see here.", Verdict.PASSED),
    ],
)
def test_phrases_match_whole_words_ignoring_case_and_accents(
    tmp_path: Path, text: str, verdict: Verdict
) -> None:
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    assert result.verdict is verdict


def test_spans_point_into_the_original_text(tmp_path: Path) -> None:
    """Offsets refer to the text as written, even where folding changed its length."""
    text = "Straße! Crème Co helps."
    [result] = evaluate(make_turn(output=text), check_set(tmp_path, CHECK))
    [span] = result.spans
    assert text[span.start : span.end] == "Crème Co"
    assert span.label == "phrase"
