"""find_phone: international and North American phone numbers, not other numbers."""

import pytest
from stdnum import iban, isbn

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.phone import find_phone, warm_up
from turncheck.worker.checks.textmap import normalize


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_phone(text, DetectorContext())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Our London office is +44 20 7946 0958.", ["+44 20 7946 0958"]),
        ("Call +1-202-555-0143 or +49 30 901820 today.", ["+1-202-555-0143", "+49 30 901820"]),
        ("UK from abroad: +44 (0)20 7946 0958", ["+44 (0)20 7946 0958"]),
        ("Text +15550102030 when ready", ["+15550102030"]),
        ("Call +1 (555) 010-2030 anytime.", ["+1 (555) 010-2030"]),
        ("You can reach me at (555) 010-2030.", ["(555) 010-2030"]),
        (
            "Numbers: 555-010-2030, 555.010.2030 and 555 010 2030",
            ["555-010-2030", "555.010.2030", "555 010 2030"],
        ),
        ("Toll free: 1-800-555-0199", ["1-800-555-0199"]),
        ("My mobile is 5550102030", ["5550102030"]),
        ("Call our order desk at 555-010-2030", ["555-010-2030"]),
        ("It's +1 202 555 0143 2 times a day", ["+1 202 555 0143"]),
        ("From abroad dial 0044 20 7946 0958.", ["0044 20 7946 0958"]),
    ],
)
def test_finds_phone_numbers_with_exact_offsets(text: str, expected: list[str]) -> None:
    """Each number is found and its span slices exactly the number."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Your order 5550102030 has shipped.",
        "Tracking number 555-010-2030 is with the courier.",
        "Order ORD-555-010-2030 was refunded.",
        "Ticket #5550102030 is closed.",
        "My SSN is 123-45-6789.",
        "Delivered on 2026-11-29 at 10:30:00.",
        "Stamped 2026-11-29T10:00:00Z by the server.",
        "The total is $1,249.99 or $12,345,678.90.",
        "Card 4111 1111 1111 1111 was declined; 4111-1111-1111-1111 too.",
        "Server 192.168.100.200 is down.",
        "Upgrade to v2.14.3 or 10.2.3.4567.",
        "ZIP 94103-1234 please.",
        "The id 12345550102030 is a longer run.",
        "Order 555-010-20301 is a longer run.",
        "That costs +$25 and +1 2345 is too short.",
    ],
)
def test_ignores_ids_dates_prices_cards_and_addresses(text: str) -> None:
    """Order and tracking numbers, SSNs, dates, prices, cards, IPs and versions are not phones."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("London: 020 7946 0958.", ["020 7946 0958"]),
        ("Manchester is on 0161 496 0755", ["0161 496 0755"]),
        ("Or (020) 7946 0958 from a landline", ["(020) 7946 0958"]),
        ("Appelez le 01 42 68 53 00 ou 01.42.68.53.00", ["01 42 68 53 00", "01.42.68.53.00"]),
        ("東京: 03-1234-5678", ["03-1234-5678"]),
        ("Sydney 02 9876 5432, twice", ["02 9876 5432"]),
    ],
)
def test_finds_national_numbers_written_as_their_country_groups_them(
    text: str, expected: list[str]
) -> None:
    """A trunk-0 number counts when valid in a region and grouped the way that region writes it."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Reference 0123 4567 89 is on the form.",
        "Delivered 03-12-2026 and 01.02.2026 at 10:30.",
        "Invoice 020 7946 0958 is due.",
        "Sort code 08-32-10, account 31926819.",
        "IBAN DE89 3704 0044 0532 0130 00 on file.",
        "Batch 0420-1234-56 and 0001 2345 6789.",
        "Our id is 00441234567890.",
    ],
)
def test_ignores_trunk_zero_ids_dates_and_unusual_groupings(text: str) -> None:
    """Leading-zero ids, dates and groupings no country writes are not national numbers."""
    assert found(text) == []


def test_finds_toll_free_vanity_numbers() -> None:
    """A toll-free code followed by letters is a dialable number; a SKU with one is not."""
    text = "Call 1-800-FLOWERS, 1 (888) GOT-JUNK or 800-CONTACTS; SKU 800-ABCDEFG; 800-PAGE book."
    assert found(text) == ["1-800-FLOWERS", "1 (888) GOT-JUNK", "800-CONTACTS"]


def test_warm_up_loads_metadata_without_changing_results() -> None:
    """warm_up() can be called at start and findings stay the same."""
    warm_up()
    assert found("Call +33 1 23 45 67 89") == ["+33 1 23 45 67 89"]


@pytest.mark.parametrize(
    "stored",
    [
        "\u0e42\u0e17\u0e23 \u0e50\u0e52 \u0e51\u0e52\u0e53 \u0e54\u0e55\u0e56\u0e57",
        "Call 02 123 4567 today",
        "\u0627\u062a\u0635\u0644 \u0660\u0661\u0660 \u0661\u0662\u0663\u0664 \u0665\u0666\u0667\u0668",
    ],
)
def test_national_numbers_in_another_scripts_digits_are_found(stored: str) -> None:
    """Thai, Arabic-Indic digits read as ASCII ones; a Bangkok landline has nine digits."""
    mapped = normalize(stored, Budget.unlimited())
    assert len(list(find_phone(mapped.text, DetectorContext()))) == 1


def test_nine_digit_ids_in_european_groupings_are_not_phone_numbers() -> None:
    assert found("Use code 0123-456-78 or ref 012 345 678 at checkout.") == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ring the shop on (0116) 4960321.", ["(0116) 4960321"]),
        ("Büro: 030 1234567", ["030 1234567"]),
        ("Zentrale 05113 14803, Mo-Fr.", ["05113 14803"]),
        ("Mobile: 0465188289", ["0465188289"]),
        ("Leave a message at 0161 496 0123 please", ["0161 496 0123"]),
        ("Le standard: 06 12 34 56 78.", ["06 12 34 56 78"]),
        ("Our Sydney desk: 0298765432", ["0298765432"]),
        ("Phone 0612-345678 after six.", ["0612-345678"]),
    ],
)
def test_finds_national_numbers_with_a_trunk_zero_however_split(
    text: str, expected: list[str]
) -> None:
    """A trunk-0 national number valid in a country's plan counts split after its area
    code, unsplit, or any way after a phone word."""
    assert found(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Call 386.848.1591x976 today", ["386.848.1591x976"]),
        ("Desk: 555-010-2030 ext. 12.", ["555-010-2030 ext. 12"]),
        ("Desk: (555) 010-2030 Ext 4411", ["(555) 010-2030 Ext 4411"]),
        ("Front office 555 010 2030 #204", ["555 010 2030 #204"]),
        ("Call +44 20 7946 0958 x12", ["+44 20 7946 0958 x12"]),
        ("Call 020 7946 0123 extension 7", ["020 7946 0123 extension 7"]),
    ],
)
def test_an_extension_after_a_number_is_part_of_it(text: str, expected: list[str]) -> None:
    """An extension written right after a number (x, ext., extension, #) is reported with it."""
    assert found(text) == expected


# A Belgian IBAN whose account digits also read as a national phone number, and an
# ISBN-10 shaped like an unsplit trunk-0 number; both computed.
_BE = "BE" + iban.calc_check_digits("BE00" + "731018664084") + "731018664084"
_ISBN = next(f"030640615{d}" for d in "0123456789" if isbn.is_valid(f"030640615{d}"))


@pytest.mark.parametrize(
    "text",
    [
        f"IBAN {_BE[:4]} {_BE[4:8]} {_BE[8:12]} {_BE[12:]} on file.",
        f"IBAN {_BE[:2]} {_BE[2:4]} {_BE[4:8]} {_BE[8:12]} {_BE[12:]} on file.",
        f"Send it to {_BE[:2]}-{_BE[2:4]}-{_BE[4:8]}-{_BE[8:12]}-{_BE[12:]}.",
        f"The reprint {_ISBN} is in stock.",
        "Order 0465188289 has shipped.",
        "Tracking 0298765432 arrives Monday.",
        "Lot 0123 4567 89 was recalled.",
        "Released 2026-01-15 at 10:30, build 10.0.19041.1, total $1,249.99.",
        "Postcodes 01067 and 80331, years 1999 2000 2001.",
        "Item #0465188289 is back.",
        "Open 09 00 to 17 30.",
    ],
)
def test_widened_national_formats_leave_other_numbers_alone(text: str) -> None:
    """IBAN digits, ISBNs, order and tracking numbers, ids, dates, times, versions, prices,
    postal codes and years are not phone numbers."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Phone 08-12 34 56 after lunch.", ["08-12 34 56"]),
        ("Ring me on 01512 3456789.", ["01512 3456789"]),
        ("Call 011 2345-6789 in the morning.", ["011 2345-6789"]),
    ],
)
def test_after_a_phone_word_a_national_number_may_mix_separators(
    text: str, expected: list[str]
) -> None:
    """After a phone word, 8 to 12 trunk-0 digits valid in a national plan count however
    split."""
    assert found(text) == expected


@pytest.mark.parametrize(
    "text",
    ["Call me on 05.12.2026 10:30.", "Call back 05 12 2026.", "Call at 09 30 or 10 15."],
)
def test_a_phone_word_does_not_make_a_date_or_time_a_number(text: str) -> None:
    """Dates and times after a phone word stay dates and times."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You can call them back on 65 6332-7362.", "65 6332-7362"),
        ("The courier will text 22 638 55 75 first.", "22 638 55 75"),
        ("Phone: 800-7224", "800-7224"),
        ("Ring 3333235 to finish.", "3333235"),
        ("Your callback number is (01) 29248 775.", "(01) 29248 775"),
        ("Her emergency contact's number is 666 669 893.", "666 669 893"),
        ("Your phone number is 320, 695, 1086.", "320, 695, 1086"),
    ],
)
def test_a_phone_word_vouches_for_a_number_no_plan_validates(text: str, expected: str) -> None:
    """A local number, or a national one without its trunk 0, after a phone word."""
    assert found(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "The reference is 65 6332-7362.",  # no phone word
        "Call about your order 3333235 today.",  # an id word beside the phone word
        "Call us about tracking 22 638 55 75.",
        "Call us between 2019-2024 for support.",  # a range of years
        "Call about SSN 123-45-6789 today.",  # an SSN's shape
        "Call us on 12.05.2026 at 10:30.",  # a date
        "Call 3 times, 12 rings each.",  # too few digits
    ],
)
def test_a_phone_word_does_not_make_ids_dates_or_counts_phone_numbers(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Ship it to ZIP code 00988-9407.",
        "Postal code: 05073-2871",
        "1 Main St, Hartford, CT 06652-0323",
        "Call us, our ZIP code is 94105-1234.",
    ],
)
def test_a_zip_plus_4_is_not_a_phone_number(text: str) -> None:
    assert found(text) == []
