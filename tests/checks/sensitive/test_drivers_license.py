"""Tests for the US driver's license number detector."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.drivers_license import find_drivers_license

CTX = DetectorContext()


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_drivers_license(text, CTX)]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("My driver's license is A1234567.", "A1234567"),
        ("Drivers license: D1234567", "D1234567"),
        ("Driver license number A123-456-78-901-0, expires soon", "A123-456-78-901-0"),
        ("DL# B123-4567-8901", "B123-4567-8901"),
        ("DL 12345678", "12345678"),
        ("DLN: 123 456 789", "123 456 789"),
        ("Driver's license number 12-345-6789", "12-345-6789"),
        ("Your driving licence no. AB123456 is verified.", "AB123456"),
        ("S12345678 is the driver's license on file.", "S12345678"),
        ('{"driver_license": "Y1938475"}', "Y1938475"),
        ("Texas commercial driver's license (CDL) 31928475", "31928475"),
        ("Washington driver's license number WDL7Q2XK91PB.", "WDL7Q2XK91PB"),
        ("Washington driver license WHITFDL512P9 expires soon.", "WHITFDL512P9"),
        ("WA DL LEE**JD512P9 on file", "LEE**JD512P9"),
        ("Iowa driver's license 482XK7391 is valid.", "482XK7391"),
        ("New Hampshire DL 07WHT48291 was scanned.", "07WHT48291"),
        ("driver\N{RIGHT SINGLE QUOTATION MARK}s license: 98765432", "98765432"),
    ],
)
def test_finds_labelled_license_numbers(text: str, number: str) -> None:
    """License-shaped numbers labelled by a license word count, with exact offsets."""
    assert found(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "A1234567 is the part number.",
        "Public record A1234567 was updated.",
        "Republic order 12345678 shipped.",
        "Your license expires 03-04-2027.",
        "License questions: call 555-010-2030 or (555) 010-2030.",
        "License holder zip 94105-1234.",
        "Your license key for v2.14.3 is ready; order 12345678.",
        "Driver's license on file; card 4111111111111111.",
        "License fee is $1,249.99 or 1249.",
        "DL A12 is too short.",
        "Tracking 1Z999AA10123456784 updated 2026-11-29T10:00:00Z.",
        "License number 12-345-6789",
        "Your licence no. AB123456 is verified.",
        "Our contractor holds CSLB license #1029384.",
        "Hunting license 4829105 is valid for the 2026 season.",
        "Nurse Patel's RN license 728394 is on the board site.",
        "Your courier, driver ID Y1938475, is five minutes away.",
        "Iowa order 482XK7391 and code 07WHT48291 shipped.",
        "Driver's license: none. Order 482XK7391 shipped.",
        "Driver's license on file; lower-case 482xk7391 is not the Iowa format.",
    ],
)
def test_ignores_unlabelled_and_other_numbers(text: str) -> None:
    """Numbers without a driver's license label, or labelled as something else, are not
    license numbers: a bare "license" is a business, professional or hunting license too."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Driver's license: 482913", "482913"),
        ("DL# 1234567A on file", "1234567A"),
        ("Driver's license no. 4829137746512", "4829137746512"),
        ("DL V482913 was scanned.", "V482913"),
        ("UK driving licence: MORGA753116SM9IJ", "MORGA753116SM9IJ"),
        ("driving licence number WHITE851029DW9AB 12 please", "WHITE851029DW9AB 12"),
        ("Ontario driver's licence A1234-56789-01234", "A1234-56789-01234"),
        ("Quebec driver's licence L4829-130781-09", "L4829-130781-09"),
        ("Nova Scotia driver's licence SMITH150780001", "SMITH150780001"),
        ("Manitoba driver licence DO-EJ-AN-E123K, thanks", "DO-EJ-AN-E123K"),
    ],
)
def test_finds_more_state_provincial_and_uk_formats(text: str, number: str) -> None:
    """Six- and thirteen-digit, letter-suffixed, Canadian and UK formats count when labelled."""
    assert found(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Order 482913 shipped; the driver's license check is done.",
        "MORGA753116SM9IJ is the part code.",
        "Driver's license: none. Call 0161 496 0123.",
        "DL amount 123456 dollars",
        "Driver's license on file; invoice 4829137746512 is paid.",
        "Driver's license renewed 2026-01-15.",
        "Your licence no. 482913 is for fishing.",
    ],
)
def test_wider_formats_still_need_a_drivers_license_label(text: str) -> None:
    """The wider shapes are licences only as the closest label says so."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("DL# AB123456C, issued in Idaho.", "AB123456C"),
        ("Missouri driver's license A123456R is on file.", "A123456R"),
        ("Missouri driver's license 12345678AB is on file.", "12345678AB"),
        ("Missouri driver's license 123A456789 is on file.", "123A456789"),
        ("North Dakota driver's license ABC123456 was scanned.", "ABC123456"),
        ("Montana driver's license 12345678901234 was scanned.", "12345678901234"),
        ("New York driver's license 1234567890123456 is valid.", "1234567890123456"),
        ("New York driver's license A123456789012345678 is valid.", "A123456789012345678"),
        ("Massachusetts driver's license SA1234567 is valid.", "SA1234567"),
        ("Alberta driver's licence 123456-789 is valid.", "123456-789"),
    ],
)
def test_finds_every_format_of_the_state_tables(text: str, number: str) -> None:
    """Each state's and province's published shape counts under a driver's licence label."""
    assert found(text) == [number]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("DL A12345 on file.", "A12345"),
        ("Driver's license no. A123 (Colorado).", "A123"),
        ("Ohio driver's license: AB12.", "AB12"),
        ("DL# 48213, issued in Alabama.", "48213"),
        ("Your driver's license number is 48213.", "48213"),
        ("Kansas driver's license K1A2B was scanned.", "K1A2B"),
    ],
)
def test_finds_short_numbers_right_after_the_label(text: str, number: str) -> None:
    """Short licence numbers (Alabama, Colorado, Ohio, Kansas) count right after the label."""
    assert found(text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Driver's license office, 12345 Main St, opens at nine.",
        "Driver's license renewed in 2019.",
        "Your Delta flight DL 2417 departs at 09:40.",
        "Your driver's license number is 4821.",
        "A123 is the driver's license desk.",
        "Driver's license and K1A2B order both shipped.",
        "Driver's license 12345678901234567 is too long for a number alone.",
        "North Dakota driver's license abc123456 is lower case.",
    ],
)
def test_short_and_overlong_numbers_that_are_not_licences(text: str) -> None:
    """A short number needs the label right before it; a year, a street number, a
    run longer than any state's is not a licence number."""
    assert found(text) == []
