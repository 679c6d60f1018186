"""``drivers_license``: US, Canadian and UK driver's licence numbers, where labelled.

No format is distinctive on its own (``A1234567`` is also a part number), so a
driver's license word must be the closest label: "driver's license",
"drivers license", "driver license", "driving licence" (either spelling, as
words or a ``driver_license`` key), "CDL", "DL", "DLN", "DL#", "D/L" (whole
words: "public" never reads as "lic"). Before the number, or after it when
nothing labels it before. A bare "license" or "license number" is not enough:
contractors, nurses, hunters and software have license numbers too.

What counts, by shape: the formats of the US states' and Canadian
provinces' format tables (as the AAMVA members publish them; NTSI keeps them
in one table), letters in capitals (one or two leading the digits in either
case), one kind of separator (a space or
hyphen) between digit groups, none between letters and digits except a
hyphen after leading letters:

- digits alone, 6-16 (Texas, Pennsylvania, New York ``123 456 789``,
  Colorado ``12-345-6789``, Montana's 13 and 14, New York's 16, Alberta
  ``123456-789``, British Columbia, Saskatchewan, ...);
- one letter then 6-18 digits: California ``A1234567``, Rhode Island
  ``V123456``, Ontario ``A1234-56789-01234``, Quebec, Florida
  ``A123-456-78-901-0``, Illinois ``A123-4567-8901``, Newfoundland, New
  Jersey, Wisconsin, Michigan, New York's 18, ...;
- two letters then 5-7 digits (Ohio, West Virginia, Massachusetts
  ``SA1234567``), three letters then six digits (North Dakota);
- digits then letters: 6-9 digits and a letter (Vermont ``1234567A``, Maine,
  Missouri), eight digits and two letters (Missouri);
- one or two letters, six digits, a letter: Idaho ``AB123456C``, Missouri
  ``A123456R``;
- short ones, only with the licence label right before them ("DL# 48213",
  "driver's license no. A123"): five digits (Alabama, Alaska, Arkansas,
  Delaware, Utah, New Brunswick, Prince Edward Island, ...),
  a letter and 3-5 digits (Colorado, Ohio, Missouri, West Virginia), two
  letters and 2-4 digits (Colorado, Ohio), Kansas ``K1A2B``;
- the letter-digit mixes: Iowa ``123AB4567``, New Hampshire ``12ABC12345``,
  Missouri ``123A456789``, Washington ``WDL`` and nine letters or digits, and
  Washington's older name-based ``WHITFDL512P9`` (five letters of the last
  name, ``*`` padded, two initials, three digits, two check characters),
  Nova Scotia's five letters and nine digits, Manitoba's ``AB-CD-EF-123GH``;
- the UK (DVLA) driving licence: 16 characters, five of the surname (``9``
  padded), six digits of the birth date, two initials, a digit and two check
  characters, maybe a two-digit issue number after a space
  (``MORGA753116SM9IJ 35``).

Not read: New York's old eight-letter numbers, which are words as often
("EXPIRED"), and numbers of 1-4 digits alone: after "DL" those are as often
a Delta flight ("DL 2417") or a year.

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
          | [0-9]{3}[A-Z][0-9]{6}                       # Missouri
          | [0-9]{2}[A-Z]{3}[0-9]{5}                    # New Hampshire
          | WDL[0-9A-Z]{9}                              # Washington
          | [A-Z][A-Z*]{4}[A-Z][A-Z*][0-9]{3}[0-9A-Z]{2}  # Washington, before 2018
          | [A-Z9]{5}[0-9]{6}[A-Z9]{2}[0-9][A-Z0-9]{2}(?:\ [0-9]{2})?  # UK (DVLA)
          | [A-Z]{5}[0-9]{9}                            # Nova Scotia
          | [A-Z]{2}(?:-[A-Z*]{2}){2}-[A-Z0-9]{5}       # Manitoba
        )
      | (?P<kansas>[A-Z][0-9][A-Z][0-9][A-Z])
      | (?P<letters>[A-Z]{3}|[A-Za-z]{1,2}-?)?
        [0-9]++(?:(?P<sep>[\ \-])[0-9]++(?:(?P=sep)[0-9]++)*+)?+
        (?P<suffix>[A-Z]{1,2})?
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


# At most 18 digits, a separator between two groups at most: a longer run is not one.
_LONGEST = 2 * 18 - 1
# What may stand between a licence word and a short number it labels ("DL# 48213",
# "driver's license number is A123"): nothing but the rest of the label.
_LABEL_REST = regex.compile(r"(?i)(?:[\s#:.]|number|num|no|is|was)*+")


def _long_enough(letters: str, digits: int, groups: int, suffix: str) -> bool | None:
    """Whether a number of this shape is a licence number (True), a short one that
    needs its label right before it (None), or none (False); see the module docstring."""
    if suffix:
        if groups > 1:
            return False
        if not letters:
            return 6 <= digits <= 9 if len(suffix) == 1 else digits == 8
        return len(suffix) == 1 and len(letters) <= 2 and digits == 6
    if len(letters) == 3:
        return digits == 6 and groups == 1
    # Per count of leading letters: the fewest digits, the fewest of a number that
    # needs no label right before it, the most.
    # Not four digits alone: after "DL" that is as often a Delta flight ("DL 2417").
    fewest, full, most = {0: (5, 6, 16), 1: (3, 6, 18), 2: (2, 5, 7)}[len(letters)]
    if full <= digits <= most:
        return True
    return None if fewest <= digits < full else False


def _labelled_right_before(text: str, start: int) -> bool:
    """Whether a licence word ends shortly before ``start``, with only the rest of a
    label ("number", "no.", "#", ":") between."""
    end = LICENSE_WORDS.last_in(text, start - 30, start)
    return end >= 0 and _LABEL_REST.fullmatch(text, end, start) is not None


def _shaped(match: regex.Match[str]) -> bool | None:
    """Whether the number of ``match`` has a licence's shape: True, False, or None
    for a short one that needs its label right before it."""
    if match.group("mixed") is not None:
        return True
    if match.group("kansas") is not None:
        return None
    letters = (match.group("letters") or "").rstrip("-")
    suffix = match.group("suffix") or ""
    digits = match.group()[len(match.group("letters") or "") : len(match.group()) - len(suffix)]
    if len(digits) > _LONGEST:
        return False  # more digits than any license has, however grouped
    groups = tuple(len(g) for g in _SEPARATOR.split(digits))
    if not letters and not suffix and groups in _OTHER_SHAPES:
        return False
    return _long_enough(letters, sum(groups), len(groups), suffix)


def find_drivers_license(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Spans of driver's license numbers; see the module docstring for what counts."""
    # Only a number with a license word within its label windows can count:
    # most texts have none, and then the scan below is skipped.
    labels = LICENSE_WORDS.all_in(text, ctx.budget)
    if not labels:
        return
    for match in scan.finditer(_DL, text, ctx.budget):
        ctx.budget.check()
        start, end = match.span()
        if not overlaps(labels, start - 60, end + 40):
            continue
        shaped = _shaped(match)
        if shaped is False:
            continue
        if shaped is None and not _labelled_right_before(text, start):
            continue
        if label_is(text, start, end, LICENSE_WORDS, OTHER_WORDS, 60, 40):
            yield start, end
