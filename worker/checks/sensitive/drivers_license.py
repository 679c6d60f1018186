"""``drivers_license``: US, Canadian and UK driver's licence numbers, where labelled.

No format is distinctive on its own (``A1234567`` is also a part number), so a
driver's license word must be the closest label: "driver's license",
"drivers license", "driver license", "driving licence" (either spelling, as
words or a ``driver_license`` key), "CDL", "DL", "DLN", "DL#", "D/L" (whole
words: "public" never reads as "lic"). Before the number, or after it when
nothing labels it before. A bare "license" or "license number" is not enough:
contractors, nurses, hunters and software have license numbers too.

What counts, by shape (one kind of separator, a space or hyphen, between
digit groups; none between letters and digits except a hyphen):

- one letter then 6-14 digits: California ``A1234567``, Rhode Island
  ``V123456``, Ontario ``A1234-56789-01234``, Quebec, Florida
  ``A123-456-78-901-0``, Illinois ``A123-4567-8901``, Wisconsin, Michigan,
  Minnesota, Maryland, New Jersey, Virginia, Massachusetts, Hawaii, ...;
- two letters then 5-7 digits (``AB123456``);
- 6-13 digits alone (Texas, Pennsylvania, New York ``123 456 789``, Colorado
  ``12-345-6789``, North Carolina, six-digit ones, a 13-digit one, ...);
- 6-9 digits and a letter (Vermont ``1234567A``);
- the letter-digit mixes, in capitals: Iowa ``123AB4567``, New Hampshire
  ``12ABC12345``, Washington ``WDL`` and nine letters or digits, and
  Washington's older name-based ``WHITFDL512P9`` (five letters of the last
  name, ``*`` padded, two initials, three digits, two check characters),
  Nova Scotia's five letters and nine digits, Manitoba's ``AB-CD-EF-123GH``;
- the UK (DVLA) driving licence: 16 characters, five of the surname (``9``
  padded), six digits of the birth date, two initials, a digit and two check
  characters, maybe a two-digit issue number after a space
  (``MORGA753116SM9IJ 35``).

What does not count: a number whose closest label is something else (phone,
order, card, account, passport); a number labelled only by another kind of
license (business, professional, hunting, software); phone, SSN, zip+4 and
date shapes; amounts.
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.nearby import Keywords, label_is, overlaps

_DL = regex.compile(
    r"""
    (?<![0-9A-Za-z*]|[0-9][.,/:\-]|[$€£¥])
    (?:
        (?P<mixed>
            [0-9]{3}[A-Z]{2}[0-9]{4}                    # Iowa
          | [0-9]{2}[A-Z]{3}[0-9]{5}                    # New Hampshire
          | WDL[0-9A-Z]{9}                              # Washington
          | [A-Z][A-Z*]{4}[A-Z][A-Z*][0-9]{3}[0-9A-Z]{2}  # Washington, before 2018
          | [0-9]{6,9}[A-Z]                             # Vermont, letter-suffixed ones
          | [A-Z9]{5}[0-9]{6}[A-Z9]{2}[0-9][A-Z0-9]{2}(?:\ [0-9]{2})?  # UK (DVLA)
          | [A-Z]{5}[0-9]{9}                            # Nova Scotia
          | [A-Z]{2}(?:-[A-Z*]{2}){2}-[A-Z0-9]{5}       # Manitoba
        )
      | (?P<letters>[A-Za-z]{1,2}-?)?
        [0-9]++(?:(?P<sep>[\ \-])[0-9]++(?:(?P=sep)[0-9]++)*+)?+
    )
    (?![0-9A-Za-z]|[.,/:\-][0-9])
    """,
    regex.VERBOSE,
)

_SEPARATOR = regex.compile(r"[ \-]")

LICENSE_WORDS = Keywords(
    [
        "driver's license",
        "drivers license",
        "driver license",
        "driver's licence",
        "drivers licence",
        "driver licence",
        "driving licence",
        "driving license",
        "cdl",
        "dl",
        "dl#",
        "dl #",
        "dln",
        "d/l",
    ]
)
OTHER_WORDS = Keywords(
    [
        *("order", "invoice", "ticket", "case", "reference", "ref", "confirmation"),
        *("tracking", "transaction", "claim", "policy", "account", "acct", "routing"),
        *("phone", "call", "text", "fax", "mobile", "cell", "tel", "zip", "card", "ssn"),
        *("social security", "passport", "plate", "vin", "serial", "model", "part"),
        *("sku", "member", "customer", "booking", "reservation", "amount", "total"),
        *("balance", "price", "expires", "expiration", "exp", "issued", "dob", "born"),
        *("license plate", "plate number", "license key", "product key"),
    ]
)


# Numeric shapes of other things: phone 3-3-4, 1-3-3-4 and 3-4, SSN 3-2-4,
# zip+4 5-4, dates 2-2-4 and 4-2-2.
_OTHER_SHAPES = frozenset(
    {(3, 3, 4), (1, 3, 3, 4), (3, 4), (3, 2, 4), (5, 4), (2, 2, 4), (4, 2, 2)}
)


# At most 14 digits, a separator between two groups at most: a longer run is not one.
_LONGEST = 2 * 14 - 1


def _plausible(letters: str, groups: tuple[int, ...]) -> bool:
    digit_count = sum(groups)
    if not letters:
        return 6 <= digit_count <= 13 and groups not in _OTHER_SHAPES
    if len(letters) == 1:
        return 6 <= digit_count <= 14
    return 5 <= digit_count <= 7


def find_drivers_license(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of driver's license numbers; see the module docstring for what counts."""
    # Only a number with a license word within its label windows can count:
    # most texts have none, and then the scan below is skipped.
    labels = LICENSE_WORDS.all_in(text, ctx.budget)
    if not labels:
        return
    for match in scan.finditer(_DL, text, ctx.budget):
        ctx.budget.check()
        if not overlaps(labels, match.start() - 60, match.end() + 40):
            continue
        start, end = match.span()
        if match.group("mixed") is not None:
            if label_is(text, start, end, LICENSE_WORDS, OTHER_WORDS, 60, 40):
                yield start, end
            continue
        letters = match.group("letters") or ""
        digits = match.group()[len(letters) :]
        if len(digits) > _LONGEST:
            continue  # more digits than any license has, however grouped
        groups = tuple(len(g) for g in _SEPARATOR.split(digits))
        if not _plausible(letters.rstrip("-"), groups):
            continue
        if label_is(text, start, end, LICENSE_WORDS, OTHER_WORDS, 60, 40):
            yield start, end
