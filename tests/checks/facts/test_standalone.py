"""Only standalone source numbers support amounts; sums may repeat a value stated twice."""

import pytest

from tests.checks.facts.turns import check, support_turn, tool_round
from turncheck.worker.checks.result import Verdict

BILL = tool_round(
    "get_bill",
    {
        "meter": {"serial": "MTR 0041 7723", "readings": [{"date": "2026-01-31", "kwh": 18452}]},
        "usage_kwh": 419,
        "unit_rate_gbp": 0.287,
    },
)


def test_digits_of_ids_and_dates_are_no_sum_terms() -> None:
    """ "491 kWh" was 41 (meter serial) + 419 + 31 (a date's day): now it fails."""
    assert check(support_turn("You used 491 kWh.", rounds=[BILL])).verdict is Verdict.FAILED
    assert check(support_turn("You used 419 kWh.", rounds=[BILL])).verdict is Verdict.PASSED


def test_an_area_code_does_not_support_an_amount() -> None:
    """The 30 of "+49 30 901820" is part of a phone, not "30 days"."""
    instructions = "Phone: +49 30 901820. Claims must be filed within 14 days."
    turn = support_turn("You have 30 days to file a claim.", instructions=instructions)
    assert check(turn).verdict is Verdict.FAILED
    turn = support_turn("You have 14 days to file a claim.", instructions=instructions)
    assert check(turn).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("source", "passed"),
    [
        (
            {"cycle_end": "2026-06-02", "plans": "Flex 30: £18 a month. Flex 100: £24 a month."},
            False,
        ),
        ({"plans": "Flex 100 costs £6 more a month."}, True),
        ({"plans": "Upgrades: 6 pounds extra."}, True),
    ],
)
def test_a_single_digit_with_a_currency_is_a_fact(source: object, passed: bool) -> None:
    """ "£6" needs a standalone 6 in the sources: the month of 2026-06-02 is not one."""
    turn = support_turn(
        "Upgrading adds £6 a month to your bill.", rounds=[tool_round("plans", source)]
    )
    assert (check(turn).verdict is Verdict.PASSED) is passed


def test_digits_in_ids_dates_and_phones_still_support_those_facts() -> None:
    """Standalone applies to amounts only: the tail of an ID still supports that ID."""
    turn = support_turn(
        "Order 2024-0042 is on its way.",
        rounds=[tool_round("order", {"id": "ORD-2024-0042", "placed": "2026-02-20"})],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_two_charges_of_the_same_amount_add_up() -> None:
    """Two separate $240 charges support "$480"; one charge does not."""
    answer = "You were charged $480 in total — two charges of $240."
    charges = [{"id": "ch_8842", "amount": 240}, {"id": "ch_8843", "amount": 240}]
    turn = support_turn(answer, rounds=[tool_round("charges", {"charges": charges})])
    assert check(turn).verdict is Verdict.PASSED
    turn = support_turn(answer, rounds=[tool_round("charges", {"charges": charges[:1]})])
    assert check(turn).verdict is Verdict.FAILED


def test_a_passage_repeated_is_one_statement() -> None:
    """A policy sentence quoted in two knowledge passages does not state 10 twice."""
    passage = "Banks may take a further 5 to 10 business days to show the credit."
    turn = support_turn(
        "I've added a credit of $20.00.",
        knowledge=[{"source": "a", "content": passage}, {"source": "b", "content": passage}],
    )
    assert check(turn).verdict is Verdict.FAILED


def test_a_range_in_a_source_supports_both_ends() -> None:
    """ "10-14 business days" is two amounts on both sides, not an ID."""
    turn = support_turn(
        "Refunds take 10-14 business days.",
        knowledge=[{"source": "kb", "content": "Refunds take 10-14 business days."}],
    )
    assert check(turn).verdict is Verdict.PASSED


def test_a_time_in_a_source_is_not_an_amount() -> None:
    """ "open until 20:00" and a timestamp's minutes support no "20" or "30"."""
    turn = support_turn(
        "That is 20 euros, due in 30 days.",
        instructions="Open 8:00-20:00. Updated 2026-03-04T14:30:00+00:00.",
    )
    assert check(turn).verdict is Verdict.FAILED
