"""Dates as a person reads them, canonical as ``(year | None, month, day | None)``.

Read: ``March 4, 2026``, ``Mar. 4``, ``March 4th``, ``4 March 2026``, ``4th of
March``, ``2026-03-04`` (also inside an ISO timestamp), ``03/04/2026``,
``4.3.26``, and ``March 2026`` (day None). A slashed date is ambiguous between
month/day and day/month, so it yields both readings; either one being in the
sources supports it. Weekdays and relative words ("Friday", "tomorrow") are
not dates: they hold nothing a source could contradict.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.folded import fold, folded

DateKey = tuple[int | None, int, int | None]

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"


def _date_pattern(month: str) -> str:
    return rf"""
        (?<![\w.,/-])
        (?:
            (?P<iy>[0-9]{{4}})[-/.](?P<im>[0-9]{{1,2}})[-/.](?P<id>[0-9]{{1,2}})(?![0-9])
          | (?P<na>[0-9]{{1,2}})(?P<sep>[/.-])(?P<nb>[0-9]{{1,2}})(?P=sep)
            (?P<ny>[0-9]{{4}}|[0-9]{{2}})(?![0-9/.-][0-9])
          | (?P<mm>{month})\.?\s+(?P<md>[0-9]{{1,2}}){_ORD}(?![0-9])
            (?:,?\s+(?P<my>[0-9]{{4}})(?![-/.]?[0-9]))?
          | (?P<dd>[0-9]{{1,2}}){_ORD}\s+(?:of\s+)?(?P<dm>{month})\b\.?
            (?:,?\s+(?P<dy>[0-9]{{4}})(?![-/.]?[0-9]))?
          | (?P<ym>{month})\b\.?,?\s+(?P<yy>[0-9]{{4}})(?![-/.]?[0-9])
        )
        """


DATE = re.compile(_date_pattern(_MONTH), re.IGNORECASE | re.VERBOSE)
# For ASCII text, lower-cased: the same matches at the same offsets (lower-casing
# ASCII changes no length and no class) for half the cost of matching while
# ignoring case. Not for other text: "İ" lower-cases to two characters.
_LOWER_DATE = re.compile(_date_pattern(_MONTH.lower()), re.VERBOSE)


# Where a date written in figures may start in lower-cased text, found by a scan
# that skips ahead to digits: a digit not inside a word, and what must follow it
# (two separators, or a month word). A date led by its month starts at one of
# ``MONTH_STARTS`` not inside a word, found by ``str.find``: a scan that read
# every letter that may start a month ("a", "d", "m", "s" ...) cost more.
_DIGIT_START = re.compile(
    r"""
    [0-9](?<![\w.,/-].)
    (?=[0-9]{3}[-/.][0-9]|[0-9]?[/.-][0-9]{1,2}[/.-][0-9]{2}
      |[0-9]?(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|ma[ry]|apr|ju[nl]|aug|sep|oct|nov|dec))
    """,
    re.VERBOSE,
)
# ``_DIGIT_START`` on the text as written, its digits folded (``folded``): a month word
# in any case is the lower-cased one, in ASCII text.
_FOLDED_DIGIT_START = folded(_DIGIT_START, re.IGNORECASE)
MONTH_STARTS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
# In ASCII text: what ``[\w.,/-]`` matches, where a month word may not follow.
_INSIDE_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,/-")


def _starts(
    lowered: str, folded_text: str, budget: Budget, months: Sequence[int] | None
) -> list[int]:
    """Every offset of lower-cased ASCII ``lowered`` where a ``DATE`` match may start,
    in order; most are dates. ``folded_text``: the text, ``fold``-ed. ``months``: every
    offset where one of ``MONTH_STARTS`` stands, in any case, when the gates' scan found
    them (``gates.facts.FACT_SEEDS``)."""
    found = [m.start() for m in scan.finditer(_FOLDED_DIGIT_START, folded_text, budget)]
    named = _month_offsets(lowered, budget) if months is None else months
    budget.check()
    found += (at for at in named if not at or lowered[at - 1] not in _INSIDE_WORD)
    found.sort()
    return found


def _month_offsets(lowered: str, budget: Budget) -> list[int]:
    offsets = []
    for name in MONTH_STARTS:
        at = lowered.find(name)
        while at != -1:
            offsets.append(at)
            # No name overlaps itself: the next one starts past this one.
            at = lowered.find(name, at + 3)
        budget.check()
    return offsets


def find_dates(
    text: str,
    budget: Budget,
    months: Sequence[int] | None = None,
    folded_text: str | None = None,
) -> Iterator[re.Match[str]]:
    """The ``DATE`` matches in ``text``; the month names they hold may be lower-cased.
    ``months``: the offsets of ``text`` where one of ``MONTH_STARTS`` stands in any case,
    all of them (the gates' scan, ``gates.facts.FACT_SEEDS``), or None to find them here.
    ``folded_text``: ``folded.fold(text)`` when the caller has it."""
    if not text.isascii():
        yield from scan.finditer(DATE, text, budget)
        return
    lowered = text.lower()
    folded_text = fold(text) if folded_text is None else folded_text
    end = 0
    for start in _starts(lowered, folded_text, budget, months):
        if start < end:
            continue  # inside the date before, as ``finditer`` would skip it
        m = _LOWER_DATE.match(lowered, start)
        if m is not None:
            end = m.end()
            yield m


def _month(name: str) -> int:
    return _MONTHS.index(name[:3].lower()) + 1


def _valid(year: int | None, month: int, day: int | None) -> bool:
    if not 1 <= month <= 12:
        return False
    if year is not None and not 1900 <= year <= 2199:
        return False
    return day is None or 1 <= day <= (29 if month == 2 else 30 if month in (4, 6, 9, 11) else 31)


def _year(text: str | None) -> int | None:
    if text is None:
        return None
    year = int(text)
    return year + 2000 if len(text) == 2 else year


def date_keys(match: re.Match[str], *, case_from: str | None) -> tuple[DateKey, ...]:
    """Every valid reading of a ``find_dates`` match; empty when it is not a date.

    With ``case_from``, the text the match was found in as written, a
    lower-case month word ("you may 12 ...", "march 10 people") is refused:
    that is how the answer is read. Sources are read leniently (None).
    """
    candidates: list[DateKey] = []
    if match["iy"]:
        candidates.append((int(match["iy"]), int(match["im"]), int(match["id"])))
    elif match["na"]:
        a, b, year = int(match["na"]), int(match["nb"]), _year(match["ny"])
        candidates += [(year, a, b), (year, b, a)]
    else:
        group = "mm" if match["mm"] else "dm" if match["dm"] else "ym"
        name = match[group]
        if case_from is not None and case_from[match.start(group)].islower():
            return ()
        month = _month(name)
        if match["mm"]:
            candidates.append((_year(match["my"]), month, int(match["md"])))
        elif match["dm"]:
            candidates.append((_year(match["dy"]), month, int(match["dd"])))
        else:
            candidates.append((_year(match["yy"]), month, None))
    return tuple(dict.fromkeys(c for c in candidates if _valid(*c)))
