"""Dates read aloud, as edits that write them "4 March 1982" (``date_edits``).

Read: "the fourth of March nineteen eighty-two", "fourth March nineteen
eighty-two", "fourth of March, eighty-two", "March fourth, nineteen eighty-two",
"March the twenty-first two thousand and five", "4th of March 82", "March 4th
'82". The day is an ordinal (a word, or digits with st/nd/rd/th), "of" after it
optional; the month a full name; the year four digits, two digits, or words:
two pairs ("nineteen eighty-two", "twenty oh five", "twenty twenty-four"), "two
thousand (and) five", "nineteen hundred (and) five", or one pair. A year of one
pair or two digits is 19xx from 30 on and 20xx below it. Not read: a date
without a year ("March fourth"), a "year" followed by a time or quantity word
("the fifth of May, twenty minutes past"), a day said as a cardinal ("March
four"), abbreviated months (in speech they are words), years before 1900 or
after 2099.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.spoken_words import (
    DIGITS,
    MONTH_WORD,
    MONTHS,
    NUMBER_WORD,
    ORDINAL_WORD,
    ORDINALS,
    TEENS,
    TENS,
    TENS_WORD,
    cardinal,
)
from turncheck.worker.checks.textmap import Edit

# Two-digit years from here on are the 1900s: a fixed pivot, since checks read no clock.
PIVOT_YEAR = 30

_DAY = rf"[0-9]{{1,2}}(?:st|nd|rd|th)|(?:(?:{TENS_WORD})[ \t-])?(?:{ORDINAL_WORD})"
_YEAR_WORD = rf"{NUMBER_WORD}|hundred|thousand"
_YEAR = (
    rf"'?[0-9]{{2}}(?:[0-9]{{2}})?(?![0-9])"
    rf"|(?:{_YEAR_WORD})(?:[ \t-]+(?:and[ \t]+)?(?:{_YEAR_WORD})){{0,4}}"
)
# "of" is often dropped in speech ("sixteenth November nineteen seventy-seven"); the
# ordinal day and the spoken year either side of the month still make it a date.
_DAY_FIRST = re.compile(
    rf"\b(?P<day>{_DAY})[ \t]+(?:of[ \t]+)?(?P<month>{MONTH_WORD})"
    rf"[ \t]*,?[ \t]+(?P<year>{_YEAR})\b",
    re.IGNORECASE,
)
_MONTH_FIRST = re.compile(
    rf"\b(?P<month>{MONTH_WORD})[ \t]+(?:the[ \t]+)?(?P<day>{_DAY})"
    rf"[ \t]*,?[ \t]+(?P<year>{_YEAR})\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"'?[0-9]+|[A-Za-z]+")
# A "year" a time or quantity word follows was a count: "the fifth of May, twenty
# minutes past" is no date of 2020. The words are the counting ones among those
# after which ``spoken`` leaves a run of number words as words.
_COUNTED = re.compile(
    r"[ \t]*(?:%|(?:percent|dollars?|bucks|cents?|euros?|pounds?|pence|minutes?|mins?"
    r"|hours?|seconds?|days?|weeks?|months?|years?|times|people|persons|o'clock|am|pm"
    r"|items?|units?|pieces?|steps?|miles?|points?)\b)",
    re.IGNORECASE,
)


def date_edits(text: str, budget: Budget) -> Iterator[Edit]:
    """An edit for each spoken date of ``text``, in no particular order."""
    lowered = text.lower()
    if not any(month in lowered for month in MONTHS):
        return  # C-speed substring searches spare most texts the two date scans
    for pattern in (_DAY_FIRST, _MONTH_FIRST):
        for match in scan.finditer(pattern, text, budget):
            edit = _edit(text, match)
            if edit is not None:
                yield edit


def _edit(text: str, match: re.Match[str]) -> Edit | None:
    day_number = _day(match.group("day").lower())
    words = [(w.group().lower(), w.start()) for w in _WORD.finditer(text, *match.span("year"))]
    year = _year([word for word, _ in words if word != "and"])
    if day_number is None or not 1 <= day_number <= 31 or year is None:
        return None
    year_value, used = year
    kept = [item for item in words if item[0] != "and"][:used]
    year_end = kept[-1][1] + len(kept[-1][0])
    if _COUNTED.match(text, year_end):
        return None
    month_start, month_end = match.span("month")
    day_start = match.start("day")
    day = [(ch, day_start) for ch in str(day_number)]
    month = [(ch, month_start + k) for k, ch in enumerate(text[month_start:month_end])]
    # In the order spoken: "4 March 1982" or "March 4, 1982", both the detector's forms.
    if day_start < month_start:
        pieces = [*day, (" ", day_start), *month, (" ", month_end)]
    else:
        pieces = [*month, (" ", month_end), *day, (",", day_start), (" ", day_start)]
    pieces.extend(zip(str(year_value), _year_origins(text, kept), strict=True))
    start = min(day_start, month_start)
    return start, year_end, "".join(ch for ch, _ in pieces), tuple(at for _, at in pieces)


def _year_origins(text: str, words: list[tuple[str, int]]) -> list[int]:
    """Where each of the year's four digits comes from: written digits from themselves
    ("82" as 1982: the century from the "8"), words from the first word, the last digit
    from the last word (so a span ending on it covers the whole year)."""
    start = words[0][1]
    if len(words) == 1 and words[0][0].lstrip("'").isdigit():
        digits = words[0][0]
        at = start + len(digits) - 4
        return [max(start, at + k) for k in range(4)]
    return [start, start, start, words[-1][1]]


def _day(day: str) -> int | None:
    if day[0].isdigit():
        return int(day.rstrip("stndrh"))
    parts = re.split(r"[ \t-]+", day)
    if len(parts) == 2:
        return int(TENS[parts[0]]) * 10 + ORDINALS[parts[1]]
    return ORDINALS[parts[0]]


def _year(words: list[str]) -> tuple[int, int] | None:
    """The year ``words`` begin with and how many words it takes, or None."""
    if not words:
        return None
    first = words[0]
    if first[0] in "'0123456789":
        digits = first.lstrip("'")
        if len(digits) == 4:
            value = int(digits)
            return (value, 1) if 1900 <= value <= 2099 else None
        return _pivoted(int(digits)), 1
    if len(words) > 1 and words[1] in ("thousand", "hundred"):
        base = int(DIGITS.get(first, "0")) * 1000 if words[1] == "thousand" else 0
        if words[1] == "hundred" and first in TEENS:
            base = int(TEENS[first]) * 100
        if not 1900 <= base <= 2000:
            return None
        rest = _pair(words[2:])
        return (base + rest[0], 2 + rest[1]) if rest is not None else (base, 2)
    high = _pair(words)
    if high is None:
        return None
    low = _pair(words[high[1] :])
    if low is None or high[0] not in (19, 20):
        return _pivoted(high[0]), high[1]
    return high[0] * 100 + low[0], high[1] + low[1]


def _pair(words: list[str]) -> tuple[int, int] | None:
    """The 0..99 that ``words`` begin with (two words before one), and the words taken."""
    for taken in (2, 1):
        if len(words) >= taken and (value := cardinal(words[:taken])) is not None:
            return value, taken
    return None


def _pivoted(two_digits: int) -> int:
    return (1900 if two_digits >= PIVOT_YEAR else 2000) + two_digits
