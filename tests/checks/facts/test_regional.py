"""Regional formats: decimal commas, thousands dots and spaces, spaced IDs, national phones."""

import pytest

from tests.checks.facts.turns import check, spans_text, support_turn, tool_round
from turncheck.worker.checks.result import Verdict


def _turn(answer: str, source: object) -> object:
    return support_turn(answer, rounds=[tool_round("lookup", source)])


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        ({"total": 567.0, "city_tax": 3.5}, "The room is €567,00 and the city tax €3,50."),
        ({"price": 17.99, "next": "2026-08-21"}, "Next billing: 21.08.2026, 17,99 €."),
        ({"annual_price_eur": 5100}, "Der Jahrespreis beträgt 5.100 €."),
        ({"price": 1150}, "The Nordby is 1.150 € and fits your budget."),
        ({"price": "1.234,56 €"}, "That is $1,234.56."),
        ({"rate": 5.1}, "The factor is 5.100 now."),
        ({"count": 3500}, "We sent 3,500 letters."),
        ({"weight": 3.5}, "It weighs 3,500 kg."),
        ({"price": "5.100 €"}, "It costs 5100 euros."),
        ({"total": 12800}, "Total: 12 800 JPY."),
        ({"calls": "250,000"}, "Growth gives you 250 000 calls per month."),
        ({"kwh": 18452}, "Up from 18\u202f452 kWh."),
        ({"kwh": 18452}, "Up from 18\u00a0452 kWh."),
    ],
)
def test_european_and_spaced_separators_are_formatting(source: object, answer: str) -> None:
    """Decimal commas, thousands dots and spaces read as a European reader means them;
    an ambiguous form ("5.100", "3,500") is supported by either reading."""
    assert check(_turn(answer, source)).verdict is Verdict.PASSED, answer


@pytest.mark.parametrize(
    ("source", "answer", "invented"),
    [
        ({"price": 17.99}, "Next billing: 17,90 €.", "17,90"),
        ({"price": 1150}, "The Nordby is 1.250 €.", "1.250"),
        ({"total": 12800}, "Total: 12 900 JPY.", "12 900"),
        ({"budget": "nine hundred"}, "Great, $9,000 it is.", "$9,000"),
    ],
)
def test_a_different_regional_amount_fails(source: object, answer: str, invented: str) -> None:
    """The same formats with another value fail; "$9,000" is never 9 (money has two decimals)."""
    outcome = check(_turn(answer, source))
    assert outcome.verdict is Verdict.FAILED
    assert spans_text(_turn(answer, source), outcome) == [invented]


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        ({"serial": "MTR 0041 7723"}, "Your meter MTR-0041-7723 was read."),
        ({"flight": "TP 202"}, "TAP flight TP202 leaves at nine."),
        ({"flight": "UA 64", "price": 875}, "United UA64 is $875."),
        ({"flight": "UA64", "price": 875}, "United UA 64 is $875."),
        ({"tracking": "1Z999AA10123456784"}, "Tracking: 1Z 999 AA1 01 2345 6784."),
        ({"tracking": "1Z 999 AA1 01 2345 6784"}, "Tracking: 1Z999AA10123456784."),
        ({"flight": "BA0287"}, "Flight BA287 leaves Heathrow."),
        ({"flight": "BA287"}, "Flight BA 0287 leaves Heathrow."),
        ({"ticket": "TCK-004512"}, "Your ticket TCK 004512 is open."),
        ({"price": 189}, "The room is CHF 189 a night."),
    ],
)
def test_ids_written_in_spaced_groups_are_one_id(source: object, answer: str) -> None:
    """Letter-prefixed spaced groups are one ID on both sides; a flight's padding zero is
    formatting; a currency code before a number is not an ID."""
    assert check(_turn(answer, source)).verdict is Verdict.PASSED, answer


@pytest.mark.parametrize(
    ("source", "answer"),
    [
        ({"flight": "TP 202", "price": 812.3}, "TAP flight TP 220 is $812.30."),
        ({"ticket": "125-2419873306"}, "Your e-ticket number is 125-2419873360."),
        ({"card_last4": "4107"}, "Your Visa ending in 4170 is blocked."),
        ({"card_last4": "4107"}, "The last four 4170 match."),
        ({"tracking": "1Z999AA10123456784"}, "Tracking: 1Z 999 AA1 01 2345 6785."),
    ],
)
def test_a_changed_id_is_named_as_an_id(source: object, answer: str) -> None:
    """Spaced flight numbers, hyphenated e-tickets and a card's last four are IDs."""
    assert check(_turn(answer, source)).reason == "An ID is not supported by the conversation."


@pytest.mark.parametrize("source", ["4107", "**** **** **** 4107", "4111111111114107"])
def test_a_cards_last_four_is_supported_by_the_end_of_a_number(source: str) -> None:
    """ "ending in 4107" is supported by the last four, a masked number or the full one."""
    turn = _turn("I refunded the card ending in 4107.", {"card": source})
    assert check(turn).verdict is Verdict.PASSED


@pytest.mark.parametrize(
    ("source", "answer", "passed"),
    [
        ("Phone: +49 30 901820.", "Ring 030 901820.", True),
        ("Phone: +49 30 901820.", "Ring 030 901821.", False),
        ("Phone: 030 901820.", "Ring +49 30 901820.", True),
        ("Phone: +49 89 2024 3310.", "Call +49 (0)89 2024 3310.", True),
        ("Phone: +49 89 2024 3310.", "Call 089 2024 3310.", True),
    ],
)
def test_national_phone_numbers_match_their_international_form(
    source: str, answer: str, passed: bool
) -> None:
    """A trunk 0, a "(0)" and a country code are formatting: national numbers compare."""
    outcome = check(support_turn(answer, instructions=source))
    assert (outcome.verdict is Verdict.PASSED) is passed
    if not passed:
        assert outcome.reason == "A phone number is not supported by the conversation."


def test_money_in_words_with_cents_is_one_amount() -> None:
    """ "forty-five dollars and fifty cents" is 45.50, not 45 and an unsupported 50."""
    answer = "The late fee is forty-five dollars and fifty cents."
    assert check(_turn(answer, {"late_fee": 45.5})).verdict is Verdict.PASSED
    outcome = check(_turn(answer, {"late_fee": 45, "other": 50}))
    assert spans_text(_turn(answer, {}), outcome) == ["forty-five dollars and fifty cents"]


def test_an_amount_in_cents_or_pence_is_the_same_money_as_its_decimal() -> None:
    """ "40 cents" is a source's $0.40 and "28.7p" a source's £0.287; "$40" is not $0.40."""
    from tests.checks.facts.turns import check, support_turn, tool_round

    rounds = [tool_round("tariff", {"fee": "$0.40", "unit_rate": "£0.287"})]
    good = support_turn("The fee is 40 cents and energy costs 28.7p per kWh.", rounds=rounds)
    assert check(good).verdict.value == "passed"
    bad = support_turn("The fee is $40.", rounds=rounds)
    assert check(bad).verdict.value == "failed"
