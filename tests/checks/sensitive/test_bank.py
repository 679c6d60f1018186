"""Tests for the US routing number and bank account number detectors."""

from __future__ import annotations

import pytest
from stdnum import luhn
from stdnum.us import rtn

from turncheck.worker.checks.sensitive.bank import find_bank_account, find_routing_number
from turncheck.worker.checks.sensitive.context import DetectorContext

CTX = DetectorContext()


def routing(body: str) -> str:
    """``body`` (eight digits) with its ABA check digit: a test number."""
    return body + rtn.calc_check_digit(body)


RTN = routing("02100002")
RTN2 = routing("11100061")
BAD_RANGE = routing("45000001")  # 45 is no Federal Reserve range
BAD_CHECK = RTN[:-1] + str((int(RTN[-1]) + 1) % 10)
ACCOUNT = "004829173650"


def routing_found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_routing_number(text, CTX)]


def account_found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_bank_account(text, CTX)]


@pytest.mark.parametrize(
    "text",
    [
        f"Your routing number is {RTN}.",
        f"ABA: {RTN}",
        f"RTN {RTN}, thanks",
        f"{RTN} is the routing number for wires.",
        f"The routing number for your checking account is {RTN}.",
        f"Transit no. {RTN}",
    ],
)
def test_finds_labelled_routing_numbers(text: str) -> None:
    """A checksum-valid routing number with a routing word as its label counts."""
    assert routing_found(text) == [RTN]


@pytest.mark.parametrize(
    "text",
    [
        f"Order {RTN} shipped.",
        f"Your bank account {RTN} is linked.",
        f"Routing number {BAD_CHECK}.",
        f"Routing number {BAD_RANGE}.",
        f"Routing number {RTN}1 is too long.",
        "Routing help: call (555) 010-2030.",
        "Public transit pass 2026-11-29T10:00:00Z costs $1,249.99.",
    ],
)
def test_ignores_unlabelled_or_invalid_routing_numbers(text: str) -> None:
    """Numbers without a routing label, failing the checksum or range, or inside runs are not routing numbers."""
    assert routing_found(text) == []


def test_a_valid_routing_number_labelled_as_an_account_is_an_account() -> None:
    """A checksum-valid number whose own label is an account word is not a routing number."""
    text = f"routing {RTN2}, account {RTN}"
    assert routing_found(text) == [RTN2]
    assert account_found(text) == [RTN]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        (f"Your account number is {ACCOUNT}.", ACCOUNT),
        (f"Checking: {ACCOUNT}", ACCOUNT),
        (f"acct #{ACCOUNT}", ACCOUNT),
        (f"{ACCOUNT} is your savings account.", ACCOUNT),
        (f"a/c {ACCOUNT}", ACCOUNT),
        ("acct 48213 is open", "48213"),
        ("Bank account: 1234-5678-90", "1234-5678-90"),
        (f"routing {RTN}, account {ACCOUNT}", ACCOUNT),
        (f"Your bank account {RTN} is linked.", RTN),
        ("Send it to acct-88776655 today.", "88776655"),
        ('{"account_number": "381920574611"}', "381920574611"),
    ],
)
def test_finds_labelled_account_numbers(text: str, number: str) -> None:
    """A 4-17 digit number labelled by an account word counts."""
    assert account_found(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Your account balance is 1500.",
        "Your account balance is $1,249.99.",
        "There is order 1234 on your account.",
        "Your account ending in 4321 was charged.",
        "Account ****4321 was charged.",
        "The account was opened in 2019.",
        "Call 8005550100 about your account.",
        "Account questions: (555) 010-2030 or 555-010-2030.",
        "Account holder zip 94105-1234.",
        "Account updated 2026-11-29T10:00:00Z on v2.14.3.",
        f"Account card 411111111111111{luhn.calc_check_digit('411111111111111')}.",
        f"The routing number for your account is {RTN}.",
        "Your account has 12345678 points.",
        "Tracking 1Z999AA10123456784 for your account.",
        "We refunded 2500 USD to your account.",
        f"No label here: {ACCOUNT}.",
        "Your account was locked at Unix time 1767225600.",
        "Account timestamp 1767225600 (epoch).",
        "Your account has 250000 reward points and 1200 bonus miles.",
        "Account ID acme-prod-4821 owns this workspace.",
        "Account ID team_48213377 and account 48213377-eu are identifiers.",
    ],
)
def test_ignores_amounts_and_other_numbers_near_account_words(text: str) -> None:
    """Amounts, other labels, masked numbers, years, phones, cards and routing numbers are not account numbers."""
    assert account_found(text) == []


def test_a_routing_label_in_brackets_still_labels_the_number() -> None:
    """A routing word in parentheses between another language's label and the number counts."""
    assert routing_found(f"Numero de ruta (routing) {RTN} para deposito.") == [RTN]
    assert routing_found(f"Numero de ruta (routing) {BAD_RANGE} para deposito.") == []


@pytest.mark.parametrize(
    "number",
    [
        f"{RTN[:4]} {RTN[4:8]} {RTN[8]}",
        f"{RTN[:3]}-{RTN[3:6]}-{RTN[6:]}",
        f"{RTN[:3]} / {RTN[3:6]} / {RTN[6:]}",
        f"{RTN[:3]}\t{RTN[3:6]}\t{RTN[6:]}",
        f"{RTN[:3]}.{RTN[3:6]} {RTN[6:]}",
        f"{RTN[:3]}  {RTN[3:6]} - {RTN[6:]}",
    ],
)
def test_a_routing_number_is_found_whatever_separates_its_groups(number: str) -> None:
    """The ABA checksum anchors the digits; the separators between groups do not matter."""
    assert routing_found(f"ABA routing number: {number}.") == [number]
    assert account_found(f"Routing {number}, account 48213377190.") == ["48213377190"]


@pytest.mark.parametrize(
    "text",
    [
        f"Routing {RTN[:4]} {RTN[4:8]} {RTN[8]}0 has ten digits.",
        f"Routing {routing('02100002')[:8]}-{int(routing('02100002')[8]) ^ 1}.",
        f"Routing 1 {RTN[:3]} {RTN[3:6]} {RTN[6:]} is inside a longer run.",
    ],
)
def test_grouped_numbers_that_are_not_nine_valid_digits_are_not_routing(text: str) -> None:
    assert routing_found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"Your parcel {RTN} is in transit to the Denver hub.",
        f"Tracking number {RTN}: the package is in transit.",
        f"We updated the routing of your shipment; tracking number {RTN}.",
        f"Order {RTN} left our warehouse and is in transit (routing via Memphis).",
        f"Your FedEx shipment {RTN[:3]} {RTN[3:6]} {RTN[6:]} is in transit.",
    ],
)
def test_a_checksum_valid_tracking_or_order_number_is_not_a_routing_number(text: str) -> None:
    """ "In transit" is how parcels travel, and the label closest to the number names it."""
    assert routing_found(text) == []


def test_a_transit_number_label_still_labels_a_routing_number() -> None:
    assert routing_found(f"Transit number {RTN} is on your cheque.") == [RTN]
    assert routing_found(f"Routing transit number: {RTN}.") == [RTN]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("We'll debit bank account 507718230946611284035 monthly.", "507718230946611284035"),
        ("Account no. 3308 1742 9956 0271 4483 96 at your bank.", "3308 1742 9956 0271 4483 96"),
        ("Account number: NWBK60161331926819", "NWBK60161331926819"),
        ("Acct #X0542811101000000123456 is linked.", "X0542811101000000123456"),
        ("Your checking account number is 20041010050500013M02606.", "20041010050500013M02606"),
        ("Savings account (QNBA0000 0000 6931 23)", "QNBA0000 0000 6931 23"),
    ],
)
def test_finds_long_and_bank_coded_account_numbers(text: str, number: str) -> None:
    """Domestic account numbers abroad run to 30 characters and may open with a bank code."""
    assert account_found(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Account 1234567890123456789012345678901 is longer than any account number.",
        "Account number GB82WEST12345698765432 is an IBAN.",
        "Your account key is AKIAIOSFODNN7EXAMPLE.",
        "Account tier GOLD2024 renews soon.",
        "Account PIN 482913 was reset.",
        "Account order ORD20240012345 shipped.",
        "Account ref Ab12345678 is mixed case, a word.",
        "Account plan Pro-482913 is active.",
    ],
)
def test_codes_that_are_not_account_numbers_near_account_words(text: str) -> None:
    """Over 30 characters, IBANs, too few digits in a row, other labels, words: not accounts."""
    assert account_found(text) == []
