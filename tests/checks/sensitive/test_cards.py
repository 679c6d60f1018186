"""Tests for the payment card number detector."""

from __future__ import annotations

import pytest
from stdnum import ean, luhn

from turncheck.worker.checks.sensitive.cards import find_card, is_card_number
from turncheck.worker.checks.sensitive.context import DetectorContext

CTX = DetectorContext()


def card(body: str) -> str:
    """``body`` with its Luhn check digit: a test number, never a real one."""
    return body + luhn.calc_check_digit(body)


def bad(body: str) -> str:
    """``body`` with a wrong check digit."""
    return body + str((int(luhn.calc_check_digit(body)) + 1) % 10)


def grouped(digits: str, sizes: tuple[int, ...], sep: str = " ") -> str:
    parts, i = [], 0
    for size in sizes:
        parts.append(digits[i : i + size])
        i += size
    return sep.join(parts)


VISA16 = card("411111111111111")
VISA13 = card("422222222222")
MC = card("555555555555444")
MC2 = card("222300000000000")
AMEX = card("37828224631000")
DISCOVER = card("601111111111111")
JCB = card("353011133330000")
DINERS = card("3056930902590")
UNIONPAY19 = card("620000000000000000")
MIR = card("220012345678901")
MAESTRO = card("675912345678901")
MAESTRO19 = card("501800000000000000")


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_card(text, CTX)]


@pytest.mark.parametrize(
    "number",
    [
        VISA16,
        VISA13,
        MC,
        MC2,
        AMEX,
        DISCOVER,
        JCB,
        DINERS,
        UNIONPAY19,
        grouped(VISA16, (4, 4, 4, 4)),
        grouped(VISA16, (4, 4, 4, 4), "-"),
        grouped(AMEX, (4, 6, 5)),
        grouped(DINERS, (4, 6, 4)),
        grouped(UNIONPAY19, (4, 4, 4, 4, 3)),
        grouped(MC, (4, 4, 4, 4)),
        grouped(MC, (4, 4, 4, 4), "."),
        MIR,
        grouped(MIR, (4, 4, 4, 4)),
        MAESTRO,
        grouped(MAESTRO19, (4, 4, 4, 4, 3)),
        " ".join(VISA16),
    ],
)
def test_finds_card_numbers(number: str) -> None:
    """Issuer-valid, Luhn-valid numbers count compact or grouped, with exact offsets."""
    text = f"Sure, the card {number} is on file."
    assert found(text) == [number]


def test_cvv_after_a_grouped_card_stays_out_of_the_span() -> None:
    """A grouped card followed by more digits is still found, without them."""
    number = grouped(VISA16, (4, 4, 4, 4))
    assert found(f"card {number} 123 exp 12/27") == [number]


@pytest.mark.parametrize(
    "number",
    [
        f"{VISA16[:4]} {VISA16[4:8]}\n{VISA16[8:12]} {VISA16[12:]}",
        f"{VISA16[:4]}-{VISA16[4:8]}-\n  {VISA16[8:12]}-{VISA16[12:]}",
        "\n".join(grouped(VISA16, (4, 4, 4, 4)).split()),
        f"{grouped(AMEX, (4, 6))}\r\n{AMEX[10:]}",
    ],
)
def test_finds_a_card_wrapped_over_lines(number: str) -> None:
    """A line break may stand in for the separator where a grouped card wraps."""
    assert found(f"The card {number}, was declined.") == [number]


def test_a_card_read_back_digit_by_digit_is_found() -> None:
    """Single digits apart by spaces count, with commas between the groups of four."""
    spoken = ", ".join(" ".join(VISA16[i : i + 4]) for i in range(0, 16, 4))
    assert found(f"I read it back: {spoken}.") == [spoken]


def test_a_number_on_the_line_before_a_card_does_not_hide_it() -> None:
    """Digits ending the previous line are not glued onto the card below them."""
    number = grouped(VISA16, (4, 4, 4, 4))
    assert found(f"Order 12\n{number}\n2026 renewal") == [number]


@pytest.mark.parametrize(
    "text",
    [
        f"Card {bad('411111111111111')} failed.",
        "Tracking 1Z999AA10123456784 and 9400 1000 0000 0000 0000 00.",
        "Order #100234567 shipped; updated 2026-11-29T10:00:00Z (1732874400000).",
        "Call (555) 010-2030 or +1 555 010 2030.",
        "Total $1,249.99 for v2.14.3.",
        f"Run {VISA16}1 is too long, so is 9{VISA16}.",
        f"Code A1{VISA16} is a reference.",
        f"IBAN DE89 {grouped(VISA16, (4, 4, 4, 4))} is not a card.",
        f"Amount {VISA16}.50 is odd.",
        f"Weird grouping {grouped(VISA16, (3, 5, 4, 4))}.",
        f"Unknown issuer {card('900000000000000')} or {card('100000000000000')}.",
        f"Wrong length for Amex {card('3782822463100')} or Mastercard {card('55555555555544')}.",
        "Masked **** **** **** 1111 only.",
        f"Maestro's broad range {card('560000000000000')} and 12 digits {card('67591234567')}.",
        f"Mir outside 2200-2204 {card('220512345678901')}.",
        f"Grouped 8-8 over a line break {VISA16[:8]}\n{VISA16[8:]}.",
        "Counts 1 2 3 and 4, 5, 6 items.",
    ],
)
def test_ignores_look_alikes(text: str) -> None:
    """Luhn failures, wrong issuers or lengths, embedded runs and other numbers are not cards."""
    assert found(text) == []


def test_a_card_ahead_of_a_long_run_of_groups_is_found() -> None:
    """Only the leading groups of a run can be a card: a run of 100,000 more groups is not read
    to its end (that was quadratic), and the card at its head still counts."""
    number = card("453914880343646")
    assert found(f"Card {number} " + "1111 " * 100_000) == [number]
    grouped = " ".join(number[i : i + 4] for i in range(0, 16, 4))
    assert found(f"Card {grouped} " + "1234 " * 100_000) == [grouped]


@pytest.mark.parametrize(
    "separators",
    [
        ("\t", "\t", "\t"),
        ("  ", "  ", "  "),
        (" - ", " - ", " - "),
        ("/", "/", "/"),
        (" / ", " / ", " / "),
        (".", ".", "."),
        (" . ", " . ", " . "),
        (" ", "-", " "),
        (".", " ", "."),
        ("-", "  ", "/"),
        ("\t", " - ", "."),
    ],
)
def test_a_card_is_found_whatever_separates_its_groups(separators: tuple[str, ...]) -> None:
    """Luhn and the issuer table are the anchor: any separator, mixed or not, is read."""
    parts = [VISA16[i : i + 4] for i in range(0, 16, 4)]
    number = parts[0] + "".join(sep + part for sep, part in zip(separators, parts[1:], strict=True))
    assert found(f"Card on file: {number}, exp 12/27.") == [number]


def test_a_card_wrapped_over_lines_with_mixed_separators_is_found() -> None:
    number = f"{VISA16[:4]} {VISA16[4:8]}\n{VISA16[8:12]}-{VISA16[12:]}"
    assert found(f"Wrapped: {number}.") == [number]


def test_a_numbered_list_item_does_not_swallow_the_card_after_it() -> None:
    """A full stop and a space end a list number; they are no separator."""
    number = grouped(VISA16, (4, 4, 4, 4))
    assert found(f"1. {number}\n2. renew") == [number]


@pytest.mark.parametrize(
    "text",
    [
        "Dates 2026-01-15 / 2026-02-15 / 2026-03-15 and 15/01/2026 - 15/02/2026.",
        "Between 10:30 - 11:45 - 12:15 on 2026/11/29, order 1234 - 5678 - 9012.",
        "Call 555 - 010 - 2030 or 555\t010\t2030.",
        "Totals 1,249.99 / 2,499.98 / 3,749.97.",
        "Timestamp 2026-11-29 10:00:00 1732874400.",
        f"Luhn fails {bad('411111111111111')[:4]} - {bad('411111111111111')[4:8]} - "
        f"{bad('411111111111111')[8:12]} - {bad('411111111111111')[12:]}.",
        f"Weird grouping with tabs {grouped(VISA16, (3, 5, 4, 4), chr(9))}.",
    ],
)
def test_wide_separators_do_not_make_other_numbers_cards(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize("joint", [" - ", "\t", " / ", "  "])
def test_a_list_number_joined_on_by_another_separator_does_not_hide_the_card(joint: str) -> None:
    """ "Card 2 - 4111 1111 ...": two numbers side by side, the card still found alone."""
    number = grouped(VISA16, (4, 4, 4, 4))
    assert found(f"Card 2{joint}{number} is the one.") == [number]


def test_a_run_of_same_separated_groups_is_not_searched_for_a_card_inside() -> None:
    """Only where the separator changes can a card start: no window slides over a run."""
    inside = "1234 " + grouped(VISA16, (4, 4, 4, 4))
    assert found(f"Codes {inside} end.") == []


def _barcode(body: str) -> str:
    """An EAN-13 starting with ``body`` whose digits also pass Luhn: a test number."""
    for n in range(1000):
        head = f"{body}{n:03d}"
        code = head + ean.calc_check_digit(head)
        if luhn.is_valid(code):
            return code
    raise AssertionError("no barcode found")


EAN = _barcode("400638133")


@pytest.mark.parametrize(
    "text",
    [
        f"EAN {EAN}",
        f"Barcode: {EAN} (on the box)",
        f"UPC/EAN {EAN} is out of stock.",
        f"GTIN-13: {EAN}",
        f"Scan {EAN}, the EAN printed on the label.",
    ],
)
def test_a_labelled_product_barcode_is_not_a_card(text: str) -> None:
    """A Luhn-valid barcode labelled EAN, UPC, GTIN or barcode is a product's, not a card."""
    assert EAN[0] == "4" and is_card_number(EAN)  # it would be a Visa number otherwise
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"Card {EAN} was declined.",
        f"The EAN scanner was bought with card {card('411111111111111')}.",
    ],
)
def test_a_card_word_closer_than_a_barcode_word_keeps_a_card(text: str) -> None:
    """A card word closer to the number than a barcode word makes it a card still."""
    assert len(found(text)) == 1
