"""Numbers written in digits, as a person reads them: separators, suffixes, readings.

Every reader returns exact ``Decimal`` values; ``Decimal("1200.00") ==
Decimal("1200")`` and both hash alike, so canonical sets compare by value and
never by surface: ``$1,200.00`` = ``1200`` = ``1,200``; ``500k`` = ``500000``;
``1.5 million`` = ``1500000``. Numbers in words are read in ``words``.

Separators are read the English and the European way: ``1,200.50`` and
``1.200,50`` are both 1200.50, ``€3,50`` is 3.50, ``12 800`` is 12800 (a
space, after normalisation also a no-break or narrow one, before a group of
exactly three digits). A form with one separator before three digits is
ambiguous ("5.100", "3,500"): ``readings`` gives both values, the English one
first, and either one being in the sources supports it, as dates read as d/m
and m/d do.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from turncheck.worker.checks.facts.words import SCALE_WORDS

CURRENCY = "$€£¥₹"

# Attached suffixes only: "$1.2M", "500k", "3bn". Lower-case "m" stays a unit
# (metres, minutes), and "5 M" with a space is not read as a million.
_SUFFIXES = {"k": 3, "K": 3, "M": 6, "MM": 6, "mn": 6, "B": 9, "bn": 9}

# The first digit is read outside the alternation so that a pattern opening
# with it starts with a class, which ``re`` skips ahead to; ``{lead}`` may put
# a lookbehind on it. Grouped forms come first, each refusing to stop inside
# a longer digit run; a decimal comma takes exactly two decimals ("3,50"), so
# "1,2 or 3" stays a list.
_NUM = (
    r"(?P<num>[0-9]{lead}(?:"
    r"[0-9]{{0,2}}(?:,[0-9]{{3}})+(?:\.[0-9]+)?(?![0-9])"
    r"|[0-9]{{0,2}}(?:\.[0-9]{{3}})+(?:,[0-9]+)?(?![0-9])"
    r"|[0-9]{{0,2}}(?: [0-9]{{3}})+(?:[.,][0-9]+)?(?![0-9])"
    r"|[0-9]*,[0-9]{{2}}(?![0-9]|,[0-9])"
    r"|[0-9]*(?:\.[0-9]+)?))"
)
_MULT_PCT = (
    r"(?P<mult>\s?(?:thousand|million|billion|trillion)\b|(?:MM|mn|bn|[kKMB])(?![A-Za-z]))?"
    r"(?P<pct>\s?(?:%|percent\b|per cent\b))?"
)
NUMBER = re.compile(rf"(?P<cur>[{CURRENCY}]\s?)?{_NUM.format(lead='')}{_MULT_PCT}")
# ``NUMBER`` without the currency: the same numbers in the same order (a
# currency sign holds no digit, so leaving it out moves no match), found by a
# scan that skips ahead to digits.
BARE_NUMBER = re.compile(_NUM.format(lead="") + _MULT_PCT)
# A standalone number in the sources (``standalone``): not glued to a word, a
# decimal point or a colon ("T14:30", "A88213"), not the tail of "COVID-19";
# not followed by more digits (no shorter match inside a longer number), by a
# version's or a time's next part ("2.1.3", "20:00", "9am"), an ordinal's
# suffix ("22nd"), or letters and digits ("1Z999AA1...").
SOURCE_NUMBER = re.compile(
    _NUM.format(lead=r"(?<![\w.:].)(?<![A-Za-z]-.)")
    + _MULT_PCT
    + r"(?![0-9]|[.,:][0-9]|[A-Za-z]+[0-9]|\s?[ap]\.?m\b|(?:st|nd|rd|th)\b)"
)


def readings(digits: str, *, money: bool = False) -> tuple[Decimal, ...]:
    """Every value ``digits`` (a ``NUMBER``'s ``num``) may stand for, the English reading
    first: ``"1,200.50"`` -> 1200.50; ``"5.100"`` -> 5.1 and 5100; ``"3,50"`` -> 3.50.

    ``money`` (a currency sign before it) keeps "5.100" to 5100: no price has three
    decimals.
    """
    text = digits.replace(" ", "")
    comma, dot = text.rfind(","), text.rfind(".")
    try:
        if comma < 0 and dot < 0:
            return (Decimal(text),)
        if comma >= 0 and dot >= 0:
            # Both: the last one is the decimal separator.
            if comma > dot:
                return (Decimal(text.replace(".", "").replace(",", ".")),)
            return (Decimal(text.replace(",", "")),)
        mark = "," if comma >= 0 else "."
        head, *groups = text.split(mark)
        if len(groups) > 1:
            return (Decimal(text.replace(mark, "")),)  # "1,234,567", "1.234.567": thousands
        decimal = Decimal(text.replace(",", "."))
        if " " in digits or len(groups[0]) != 3:
            return (decimal,)  # "3,50", "3.5", "12 800,50": a decimal
        grouped = Decimal(text.replace(mark, ""))
        if head.startswith("0"):
            return (decimal,)  # "0.287": no thousands group starts with 0
        if money or groups[0] == "000":
            return (grouped,)  # "$9,000", "€1.150": money has two decimals, "9,000" is not 9
        return (grouped, decimal) if mark == "," else (decimal, grouped)
    except InvalidOperation:
        return ()


def to_decimal(digits: str) -> Decimal | None:
    """The English reading of ``digits``: ``"1,200.50"`` -> ``Decimal("1200.50")``."""
    values = readings(digits)
    return values[0] if values else None


def number_values(match: re.Match[str]) -> tuple[Decimal, ...]:
    """Every reading of a ``NUMBER`` match, its multiplier applied; a percent stays ``15``."""
    mult = match["mult"]
    found = readings(match["num"], money=bool(match["cur"]))
    return tuple(v for v in (scaled(r, mult) for r in found) if v is not None)


def number_value(match: re.Match[str]) -> Decimal | None:
    """The English reading of a ``NUMBER`` match, its multiplier applied."""
    return scaled(to_decimal(match["num"]), match["mult"])


def scaled(value: Decimal | None, mult: str | None) -> Decimal | None:
    """``value`` times the multiplier ``mult`` ("k", " million"); unchanged without one."""
    if value is None or not mult:
        return value
    word = mult.strip()
    exponent = SCALE_WORDS.get(word.lower()) or _SUFFIXES.get(word, 0)
    return value.scaleb(exponent)


def round_tolerance(value: Decimal) -> Decimal:
    """Half a unit of the last significant digit: "about 1,500" may stand for 1,487."""
    sign, digits, exponent = value.normalize().as_tuple()
    del sign, digits
    if not isinstance(exponent, int):
        return Decimal(0)
    return Decimal(5).scaleb(exponent - 1)
