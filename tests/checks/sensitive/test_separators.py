"""Wide separators against the numbers they must not turn into cards, SSNs or IBANs."""

from __future__ import annotations

import random

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.cards import find_card
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.iban import find_iban
from turncheck.worker.checks.sensitive.ssn import find_ssn
from turncheck.worker.checks.textmap import normalize

CTX = DetectorContext()
SEPARATORS = [" ", "  ", "\t", "-", " - ", "/", " / ", ".", "\u2011", "\u2014", " \u2013 "]


def _everyday_number(rng: random.Random) -> str:
    """A date, time, timestamp, phone number, amount or order number, separators varied."""
    sep = rng.choice(SEPARATORS)
    year, month, day = rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28)
    shapes = [
        f"{year}{sep}{month:02d}{sep}{day:02d}",
        f"{day:02d}{sep}{month:02d}{sep}{year}",
        f"{year}-{month:02d}-{day:02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z",
        f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}",
        f"{rng.randint(200, 999)}{sep}{rng.randint(200, 999)}{sep}{rng.randint(0, 9999):04d}",
        f"${rng.randint(1, 99)},{rng.randint(0, 999):03d}.{rng.randint(0, 99):02d}",
        f"ORD{sep}{rng.randint(10_000, 99_999)}",
        str(rng.randint(1, 999)),
    ]
    return rng.choice(shapes)


def test_dates_times_amounts_phones_and_orders_side_by_side_are_not_cards_or_ssns() -> None:
    """Thousands of texts of everyday numbers joined by every separator the detectors now
    read: the checksum, the issuer table and the grouping keep all of them out."""
    rng = random.Random(10)
    for _ in range(3000):
        parts = [_everyday_number(rng) for _ in range(rng.randint(2, 5))]
        stored = "On " + "".join(p + rng.choice([*SEPARATORS, ", ", " and "]) for p in parts)
        text = normalize(stored, Budget.unlimited()).text
        assert list(find_card(text, CTX)) == [], stored
        assert list(find_ssn(text, CTX)) == [], stored
        assert list(find_iban(text, CTX)) == [], stored
