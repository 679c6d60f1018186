"""Dates read aloud on a call reach ``date_of_birth`` in every spoken order; without a
birth word, or when the "year" is a count, they do not."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.factories import check_set, make_turn
from turncheck.worker.checks import Verdict
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.spoken import read_spoken
from turncheck.worker.pipeline.evaluate import evaluate

ALL = "agent: support-bot\nchecks:\n  - {name: sensitive, kind: sensitive_data}\n"


def found(tmp_path: Path, text: str) -> dict[str, str]:
    [result] = evaluate(make_turn(output=text, channel="voice"), check_set(tmp_path, ALL))
    return {span.label: text[span.start : span.end] for span in result.spans}


@pytest.mark.parametrize(
    ("said", "date"),
    [
        # The day first without "of": a common way to say it.
        ("DOB is second November nineteen seventy-seven.", "second November nineteen seventy-seven"),
        ("You were born on the eleventh June nineteen eighty.", "eleventh June nineteen eighty"),
        ("Her date of birth: thirtieth January twenty oh three.", "thirtieth January twenty oh three"),
        # The month first, "the" before the day, a year of "two thousand" alone.
        ("Your date of birth is May the third two thousand.", "May the third two thousand"),
        # Read back as a confirmation in the sentence after the one naming it.
        ("What's your date of birth? ... Thank you, the second of May nineteen ninety.", "second of May nineteen ninety"),
        ("Let me read back your birth date. So that's March the ninth nineteen fifty-one.", "March the ninth nineteen fifty-one"),
    ],
)  # fmt: skip
def test_a_spoken_birth_date_is_found_in_any_order(tmp_path: Path, said: str, date: str) -> None:
    assert found(tmp_path, said)["date_of_birth"] == date


@pytest.mark.parametrize(
    "said",
    [
        "Your appointment is the sixteenth November two thousand and twenty-six.",
        "The parcel left on second March twenty twenty-five.",
        "Thanks for your date of birth. We'll call you on the fourth June twenty twenty-six.",
    ],
)
def test_a_spoken_date_without_a_birth_label_is_not_a_birth_date(tmp_path: Path, said: str) -> None:
    assert "date_of_birth" not in found(tmp_path, said)


def test_a_count_after_a_spoken_date_is_not_its_year(tmp_path: Path) -> None:
    """A "year" before "minutes" was a count: the date has no year and stays words."""
    said = "My birthday is the fifth of May, twenty minutes from now."
    assert read_spoken(said, Budget.unlimited(), spoken=True).text == said
    [result] = evaluate(make_turn(output=said, channel="voice"), check_set(tmp_path, ALL))
    assert result.verdict is Verdict.PASSED, result.spans


def test_a_day_and_month_without_a_year_stay_words() -> None:
    said = "See you on the sixteenth November at nine."
    assert read_spoken(said, Budget.unlimited(), spoken=True).text == said
