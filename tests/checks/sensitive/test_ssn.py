"""Tests for the US Social Security number detector."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.ssn import find_ssn
from turncheck.worker.checks.textmap import normalize

CTX = DetectorContext()


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_ssn(text, CTX)]


@pytest.mark.parametrize(
    ("text", "ssn"),
    [
        ("Your SSN on file is 234-56-7891.", "234-56-7891"),
        ("SSN: 234 56 7891", "234 56 7891"),
        ("I typed 234-56-7891 in the form, is that ok?", "234-56-7891"),
        ("my social security number is 234567891", "234567891"),
        ("SS# 234567891", "234567891"),
        ("ssn:234567891", "234567891"),
        ("The value 234-56-7891 was in the export.", "234-56-7891"),
        ("(SSN) 665-12-3456", "665-12-3456"),
        ("SSN 234.56.7891 confirmed", "234.56.7891"),
    ],
)
def test_finds_ssns(text: str, ssn: str) -> None:
    """Formatted SSNs count anywhere; a bare nine-digit one needs an SSN word."""
    assert found(text) == [ssn]


@pytest.mark.parametrize(
    "text",
    [
        "Call us at (555) 010-2030 or 555-010-2030.",
        "Your order 234-56-7891 has shipped.",
        "We never ask for your SSN. Your case number is 234567891.",
        "Tracking 1Z999AA10123456784 updated 2026-11-29T10:00:00Z.",
        "Ship to 94105-1234, total $1,249.99.",
        "Reference 234567891 is attached.",
        "Part 1-234-56-7891-0 is in stock.",
        "Card ending 4111-1111-1111-1111.",
        "Invalid area 000-12-3456, 666-12-3456, 900-12-3456 and 987-65-4321.",
        "Invalid group 234-00-7891 or serial 234-56-0000.",
        "The wallet insert number 078-05-1120 and 219-09-9999.",
        "The form placeholder reads 123-45-6789; SSN 123456789 is the example.",
        "Upgrade to v2.14.3 before 03/04/2026.",
        "public record 234567891 is on file",
        "ssn: 2345678912 (ten digits)",
    ],
)
def test_ignores_look_alikes(text: str) -> None:
    """Phone numbers, order and case numbers, invalid ranges and longer runs are not SSNs."""
    assert found(text) == []


def found_as_stored(stored: str) -> list[str]:
    """What a check reports: found in the normalised text, mapped back to the stored one."""
    mapped = normalize(stored, Budget.unlimited())
    return [stored[slice(*mapped.span(s, e))] for s, e in find_ssn(mapped.text, CTX)]


@pytest.mark.parametrize(
    "ssn",
    [
        "234 - 56 - 7891",
        "234 -56 -7891",
        "234\u201456\u20147891",
        "234 \u2014 56 \u2014 7891",
        "234\u201156\u20117891",
        "234\u201356\u20137891",
        "234\u221256\u22127891",
        "\u0662\u0663\u0664-\u0665\u0666-\u0667\u0668\u0669\u0661",
        "2\u200b34-56-78\u200e91",
    ],
)
def test_ssns_with_spaced_hyphens_dashes_or_other_digits_are_found(ssn: str) -> None:
    """Any dash is a hyphen, a spaced hyphen is a separator, and the span is the stored text."""
    assert found_as_stored(f"Your SSN is {ssn}, right?") == [ssn]


@pytest.mark.parametrize(
    "text",
    [
        "Pages 234 - 56 - 7891 - 2 of the report.",
        "Call 1 - 234 - 56 - 7891.",
        "Order 234 - 56 - 7891 shipped.",
        "Between 2026 \u2014 12 \u2014 01, we had 234 \u2014 5 \u2014 6789 visits.",
    ],
)
def test_spaced_separators_keep_ssn_look_alikes_out(text: str) -> None:
    assert found_as_stored(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I've updated the SSN on your account to 234567891.",
        "The SSN on your policy is 234567891.",
        "We matched the social security number on the claim with 234567891 today.",
    ],
)
def test_an_ssn_word_in_the_clause_wins_over_a_record_word_that_does_not_label(
    text: str,
) -> None:
    """ "The SSN on your account" names an SSN: the account is where it is kept."""
    assert found(text) == ["234567891"]


@pytest.mark.parametrize(
    "text",
    [
        "We checked your SSN and account number 234567891.",
        "We checked your SSN and your account ID 234567891.",
        "SSN verified. Your account: 234567891.",
        "Your SSN is on file; account 234567891 is open.",
        "The SSN is on the claim for order 234567891.",
    ],
)
def test_a_record_word_labelling_the_number_or_another_clause_keeps_it_out(text: str) -> None:
    """A record word right before the number labels it; an SSN word in another clause
    or behind a word naming the number (order) does not reach it."""
    assert found(text) == []
