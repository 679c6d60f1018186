"""Tests for the date of birth detector."""

from __future__ import annotations

import pytest

from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.date_of_birth import find_date_of_birth

CTX = DetectorContext()


def found(text: str) -> list[str]:
    return [text[start:end] for start, end in find_date_of_birth(text, CTX)]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("DOB: 03/04/1985", "03/04/1985"),
        ("Date of birth 1985-03-04, thanks.", "1985-03-04"),
        ("D.O.B. 03.04.1985", "03.04.1985"),
        ("I was born on March 4, 1985 in Ohio.", "March 4, 1985"),
        ("Her birthday is 4 March 1985.", "4 March 1985"),
        ("birthdate: Mar 4 1985", "Mar 4 1985"),
        ("Birth date 4th of March, 1985", "4th of March, 1985"),
        ("born 04-Mar-1985", "04-Mar-1985"),
        ("March 4, 1985 is my date of birth.", "March 4, 1985"),
        ("Name: Sam\nDOB:\n3/4/85", "3/4/85"),
        ("I confirm the date-of-birth: 25/12/1990", "25/12/1990"),
        ("D.O.B 4-Mar-85, per the insurance card.", "4-Mar-85"),
        ("DOB 19850304 on the lab requisition.", "19850304"),
        ("Date de naissance : 04/03/1985.", "04/03/1985"),
        ("Fecha de nacimiento: 04/03/1985.", "04/03/1985"),
        ("Geburtsdatum 04.03.1985", "04.03.1985"),
        ("Geboren am 04.03.1985 in Graz.", "04.03.1985"),
        ('{"date_of_birth": "1985-03-04"}', "1985-03-04"),
        ("Born: 4 Mar 1985 (age 41).", "4 Mar 1985"),
        ("Dana Whitfield, born 3/4/85, is the policyholder.", "3/4/85"),
        ("Records show you were born 3/4/85.", "3/4/85"),
        ("The patient was born on 04/03/1985.", "04/03/1985"),
        ("Your son's birthday is 2019-08-15.", "2019-08-15"),
        ("DOB (format MM/DD/YYYY): 03/04/1985", "03/04/1985"),
        ("03/04/1985 is my birthday.", "03/04/1985"),
    ],
)
def test_finds_dates_labelled_as_birth_dates(text: str, date: str) -> None:
    """A full date with a birth word as its closest label counts; the span is the date."""
    assert found(text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "Your order will be delivered on 03/04/2026.",
        "Your appointment is March 4, 2026 at 10am.",
        "Your birthday coupon expires on 12/31/2025.",
        "I was born in Ohio. We shipped it on 03/04/2025.",
        "Happy birthday! Your package arrives 12/25/2025.",
        "I was born in 1985.",
        "My birthday is March 4.",
        "DOB 13/13/1985 looks wrong.",
        "Birthday build v2.14.3 went out 2026-11-29T10:00:00Z.",
        "Birthday sale: $1,249.99, call (555) 010-2030, zip 94105-1234.",
        "Airborne since 03/04/2020.",
        "Acme was born in a garage on 4 March 1985.",
        "Our company's birthday is 2026-06-01: 20% off everything!",
        "This feature was born on 2026-01-15 at a hackathon.",
        "Born to Run was released on 25 August 1975.",
        "Birthday reminders go out on 2026-03-04 at 09:00.",
        "Enter your date of birth as DD/MM/YYYY, for example 01/01/2000.",
        "Date of birth, e.g. 01/01/2000.",
        "The birth of our app on 2026-01-15 was a party.",
        "Your birthday discount applies on 2026-03-04.",
    ],
)
def test_ignores_dates_without_a_birth_label(text: str) -> None:
    """Deliveries, appointments, partial dates, examples, dates labelled otherwise and a
    company's, product's or event's "birth" or "birthday" are not birth dates."""
    assert found(text) == []


def test_only_the_labelled_date_counts() -> None:
    """A second date after a date of birth belongs to its own label."""
    assert found("DOB 03/04/1985, appointment 05/06/2025") == ["03/04/1985"]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Please tell me your date of birth. It's 6/24/1991", "6/24/1991"),
        ("What's your DOB? 24.06.1991", "24.06.1991"),
        ("Born? March 4th, 1982.", "March 4th, 1982"),
        ("Can you confirm your date of birth?\n\nSure, it's 2 Feb 1979.", "2 Feb 1979"),
        ("When were you born? It was 1988-11-30.", "1988-11-30"),
        ("What is the patient's birth date? Mine is 7/1/64", "7/1/64"),
    ],
)
def test_a_date_answering_the_sentence_before_counts(text: str, date: str) -> None:
    """A date that opens its sentence answers a birth word in the sentence just before."""
    assert found(text) == [date]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("DOB: March 4th '82", "March 4th '82"),
        ("Date of birth 4 Mar 82", "4 Mar 82"),
        ("DOB 1982 March 4", "1982 March 4"),
        ("Birth date: 1982, 4 March", "1982, 4 March"),
        ("Date of birth: Sept. 9th, 1990", "Sept. 9th, 1990"),
        ("DOB: 09/Sep/1990", "09/Sep/1990"),
        ("I was born on the 1st of May 2001.", "1st of May 2001"),
    ],
)
def test_dates_with_month_names_in_any_order_count(text: str, date: str) -> None:
    """Month-name dates count in any order, with ordinal days and two-digit years."""
    assert found(text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks for your date of birth. Your appointment is on 6/24/2026.",
        "Please tell me your date of birth. Your order shipped 6/24/2025.",
        "Date of birth noted. Delivery: 6/24/2026",
        "We store your date of birth safely, as the law asks of every company here. "
        "It's 6/24/2026 that the new rules start.",
        "What is your date of birth? For example: 01/31/1990.",
        "Birthday reminders go out monthly. It's 6/24/2026 next.",
        "Date of birth is required. The meeting is 3 March 2026.",
    ],
)
def test_a_birth_word_in_an_earlier_sentence_does_not_label_other_dates(text: str) -> None:
    """Appointment, order and delivery dates, dates far from a birth word, examples and
    dates after a birth word about something else stay out."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Thanks, I've noted the birth date. Our records show 14.01.2002.", "14.01.2002"),
        ("Could you check your DOB for me? We have it on file as Jan 5, 1990.", "Jan 5, 1990"),
        ("Great, your birthday is saved.\nYour record shows 1963-03-27.", "1963-03-27"),
        ("Please confirm the date of birth. Thanks, we have 7 Aug 1948 registered.", "7 Aug 1948"),
    ],
)
def test_a_date_read_back_after_the_sentence_naming_a_birth_date_counts(
    text: str, date: str
) -> None:
    """A confirmation ("We have it as ...", "Our records show ...") reads back the birth
    date the sentence before named, question or not."""
    assert found(text) == [date]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks for your date of birth. We'll see you on 6/24/2026.",
        "Thanks for your date of birth. We have you down for 6/24/2026.",
        "Thanks for confirming your birthday. We have your delivery on 3 March 2026.",
        "Your birthday is noted. Our office reopens 4 January 2026.",
    ],
)
def test_a_read_back_about_something_else_does_not_count(text: str) -> None:
    """After a sentence naming a birth date, one that opens with a new subject, another
    date's label or an appointment's words is about that date, not the birth date."""
    assert found(text) == []


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Member: born 1958-04-03; plan gold.", "1958-04-03"),
        ("Record 7: born Oct 9, 1999 (verified)", "Oct 9, 1999"),
        ("Resident: born 31.10.1940, ward B", "31.10.1940"),
        ("Client: born 12/29/1949, no referral", "12/29/1949"),
    ],
)
def test_born_opening_a_labelled_value_counts(text: str, date: str) -> None:
    """In a record a value opens after its label's colon: "born" there labels the date
    right after it, in any of the detector's shapes."""
    assert found(text) == [date]


def test_born_after_a_colon_still_needs_the_date_right_after_it() -> None:
    assert found("Update: born in Ohio, moved on 3/4/1985") == []
