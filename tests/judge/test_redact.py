"""What a judge's reason keeps when it quotes the texts it was shown."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.result import Outcome, Verdict
from turncheck.worker.judge.redact import PLACEHOLDER, redact, without_quotes

SHOWN = (
    "<customer_message>\nWhere is order A-77 for Jane Roe?\n</customer_message>\n\n"
    "<answer>\nJane, your order A-77\n  ships to 12 Elm Street on Monday.\n</answer>"
)


@pytest.mark.parametrize(
    ("reason", "kept"),
    [
        (
            "It says 'ships to 12 Elm Street on Monday' politely.",
            f"It says '{PLACEHOLDER}' politely.",
        ),
        # The judge's reason has its whitespace collapsed; so is what it was shown.
        ("It quotes 'your order A-77 ships to 12 Elm' to the customer.", None),
        ("Two quotes: 'Where is order A-77' and 'ships to 12 Elm Street'.", None),
    ],
)
def test_a_run_of_twelve_characters_copied_from_the_turn_becomes_a_placeholder(
    reason: str, kept: str | None
) -> None:
    redacted = redact(reason, SHOWN)
    for copied in ("12 Elm Street", "order A-77", "Where is order"):
        assert copied not in redacted
    assert PLACEHOLDER in redacted
    if kept is not None:
        assert redacted == kept


def test_the_judges_own_words_and_short_shared_words_are_kept() -> None:
    """Runs under twelve characters ('Jane', 'A-77', 'Monday') are the judge's own."""
    reason = "The answer greets Jane, names A-77 and Monday; it is polite."
    assert redact(reason, SHOWN) == reason


def test_matching_is_case_sensitive_and_the_verdict_and_score_stay() -> None:
    reason = "Quotes 'SHIPS TO 12 ELM STREET' and 'ships to 12 Elm'."
    outcome = Outcome(Verdict.FAILED, reason, score=0.2)
    redacted = without_quotes(outcome, SHOWN)
    assert redacted.reason == f"Quotes 'SHIPS TO 12 ELM STREET' and '{PLACEHOLDER}'."
    assert (redacted.verdict, redacted.score) == (Verdict.FAILED, 0.2)
