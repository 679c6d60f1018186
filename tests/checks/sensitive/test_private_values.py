"""find_private_values: values the customer entered privately, found by salted digest."""

import hashlib

import pytest

from schemas.turn import PrivateValue
from worker.checks.budget import Budget, BudgetSpent
from worker.checks.sensitive.context import DetectorContext
from worker.checks.sensitive.private_values import find_private_values


def private(value: str, salt: str = "s4lt") -> PrivateValue:
    return PrivateValue(
        salt=salt, sha256=hashlib.sha256((salt + value).encode("utf-8")).hexdigest()
    )


def found(text: str, *values: PrivateValue) -> list[str]:
    ctx = DetectorContext(private_values=values)
    return [text[start:end] for start, end in find_private_values(text, ctx)]


@pytest.mark.parametrize(
    ("value", "text", "expected"),
    [
        ("4111111111111111", "I see card 4111111111111111 on file.", ["4111111111111111"]),
        ("4111111111111111", "I see card 4111 1111 1111 1111.", ["4111 1111 1111 1111"]),
        ("555-010-2030", "Is (555-010-2030) still right?", ["555-010-2030"]),
        ("Jane Q. Public", "Hello Jane Q. Public, welcome back!", ["Jane Q. Public"]),
        ("221B Baker Street", "Shipping to 221B\nBaker  Street, London.", ["221B\nBaker  Street"]),
        ("jane@example.com", "Confirmation goes to jane@example.com.", ["jane@example.com"]),
    ],
)
def test_finds_a_repeated_private_value_with_exact_offsets(
    value: str, text: str, expected: list[str]
) -> None:
    """A value repeated word for word is found; punctuation, spacing and digit grouping do not hide it."""
    assert found(text, private(value)) == expected


def test_finds_values_with_different_salts() -> None:
    """Each value is compared under its own salt."""
    text = "Your PIN 9931 and account 77-0042 are noted."
    assert found(text, private("9931", "a"), private("770042", "b")) == ["9931", "77-0042"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("4111111111111111", "Card ending 1111 only."),
        ("Jane", "Hello JANE, and Janet."),
        ("secret-code", "No value here, order #48213 at $1,249.99."),
    ],
)
def test_ignores_partial_or_differently_cased_values(value: str, text: str) -> None:
    """Part of a value, part of a word, or another case is not the value."""
    assert found(text, private(value)) == []


def test_returns_nothing_without_private_values() -> None:
    """With no private values there is nothing to find."""
    assert found("My card is 4111 1111 1111 1111") == []


def test_stops_when_the_budget_is_spent() -> None:
    """A spent budget raises BudgetSpent instead of running on."""
    ctx = DetectorContext(
        private_values=(private("x1"),), budget=Budget(deadline_s=0.0, clock=lambda: 1.0)
    )
    with pytest.raises(BudgetSpent):
        list(find_private_values("some words here", ctx))
