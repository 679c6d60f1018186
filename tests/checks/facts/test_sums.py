"""Totals of supported amounts are supported; the search is bounded."""

import itertools

import pytest

from tests.checks.facts.turns import check, facts_check, support_turn, tool_round
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.facts import compile_check
from turncheck.worker.checks.result import Verdict


def test_a_total_of_two_source_amounts_passes() -> None:
    """1,500,000 from 1,000,000 and 500,000 is a sum, not an invention."""
    turn = support_turn(
        "Together the two loans come to 1,500,000.",
        rounds=[tool_round("loans", [{"amount": "1,000,000"}, {"amount": "500,000"}])],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_total_with_shipping_and_tax_passes() -> None:
    """Subtotal, shipping and tax add up to the total the answer states."""
    turn = support_turn(
        "Your total is $53.47 including shipping.",
        rounds=[tool_round("cart", {"subtotal": 45.99, "shipping": 4.99, "tax": 2.49})],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_difference_the_agent_worked_out_fails() -> None:
    """Only sums are read: a price less a credit, worked out by the model, is not in any source."""
    turn = support_turn(
        "After your $15.00 credit you pay $34.99.",
        rounds=[tool_round("cart", {"price": "$49.99", "credit": "$15.00"})],
    )
    outcome = check(turn)
    assert outcome.verdict is Verdict.FAILED
    assert [(s.start, s.end) for s in outcome.spans] == [(33, 39)]


def test_a_sum_of_more_terms_than_allowed_fails() -> None:
    """Four amounts add up to the total, but the check allows three terms."""
    turn = support_turn(
        "The four items come to $100.",
        rounds=[tool_round("cart", {"items": ["$11", "$23", "$29", "$37"]})],
    )
    assert check(turn).verdict is Verdict.FAILED
    assert check(turn, max_sum_terms=4).verdict is Verdict.PASSED


def test_sums_are_off_with_one_term() -> None:
    """``max_sum_terms: 1`` accepts only amounts a source states."""
    turn = support_turn(
        "Together the two loans come to 1,500,000.",
        rounds=[tool_round("loans", [{"amount": "1,000,000"}, {"amount": "500,000"}])],
    )
    assert check(turn, max_sum_terms=1).verdict is Verdict.FAILED


def test_decimal_sums_are_exact() -> None:
    """0.10 + 0.20 is 0.30 here, as it is on a receipt."""
    turn = support_turn(
        "The fees total $0.30.", rounds=[tool_round("fees", {"a": "$0.10", "b": "$0.20"})]
    )
    assert check(turn).verdict is Verdict.PASSED


def _receipt(count: int) -> list[str]:
    return [f"${n * 7 + 0.13:.2f}" for n in range(1, count + 1)]


def test_two_hundred_source_amounts_finish_within_budget() -> None:
    """A receipt of 200 figures and an unsupported total end in milliseconds, not memory."""
    turn = support_turn(
        "Your receipt total is $1.01 and the fee is $2.02.",
        rounds=[tool_round("ocr_receipt", {"lines": _receipt(200)})],
    )
    # Compiled first, as the worker does once at start: the budget is the check's run alone.
    run = compile_check(facts_check(max_sum_terms=6))
    outcome = run(turn, Budget.of_ms(50))
    assert outcome.verdict is Verdict.FAILED


def test_a_spent_budget_raises_instead_of_hanging() -> None:
    """With no time left the search raises ``BudgetSpent`` for the caller to mark errored."""
    ticks = itertools.count()
    clock = lambda: float(next(ticks))  # noqa: E731 - each reading of the clock is one second
    turn = support_turn(
        "Your receipt total is $1.01.",
        rounds=[tool_round("ocr_receipt", {"lines": _receipt(200)})],
    )
    with pytest.raises(BudgetSpent):
        check(turn, Budget.of_ms(5_000, clock), max_sum_terms=6)


def test_a_total_longer_than_any_price_is_not_searched() -> None:
    """A megabyte of "1,111,111,..." is no sum of prices, and turning it into an integer would
    take minutes: it is unsupported at once."""
    import time
    from decimal import Decimal

    from turncheck.worker.checks.facts.sums import adds_up

    huge = Decimal("1" * 300_000)
    start = time.thread_time()
    assert not adds_up(huge, [huge - 1, Decimal(1)], 3, Budget.unlimited())
    assert time.thread_time() - start < 0.5
    long_but_read = [Decimal("1" * 19), Decimal("1" + "0" * 19)]
    assert adds_up(Decimal("1" * 20), long_but_read, 2, Budget.unlimited())
