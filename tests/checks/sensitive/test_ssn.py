"""Tests for the US Social Security number detector."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.ssn import find_ssn

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
