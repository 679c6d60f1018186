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
