"""Numbers as a person reads them: digits with separators, suffixes and words.

Every reader returns exact ``Decimal`` values; ``Decimal("1200.00") ==
Decimal("1200")`` and both hash alike, so canonical sets compare by value and
never by surface: ``$1,200.00`` = ``1200`` = ``1,200``; ``500k`` = ``500000``;
``1.5 million`` = ``1500000``; ``nine hundred`` = ``900``.

English number words are parsed here (about 40 lines) rather than with
``text2num``: we need the offsets of each phrase in the text and one regex pass
over it, and ``alpha2digit`` rewrites the text without telling where.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

CURRENCY = "$€£¥₹"

_SCALE_WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
# Attached suffixes only: "$1.2M", "500k", "3bn". Lower-case "m" stays a unit
# (metres, minutes), and "5 M" with a space is not read as a million.
_SUFFIXES = {"k": 3, "K": 3, "M": 6, "MM": 6, "mn": 6, "B": 9, "bn": 9}

# Digits with thousands separators ("1,200.50") or without; the first digit is
# read outside the alternation so that a pattern opening with it starts with
# a class, which ``re`` skips ahead to.
_NUM = r"(?P<num>[0-9](?:[0-9]{0,2}(?:,[0-9]{3})+(?:\.[0-9]+)?|[0-9]*(?:\.[0-9]+)?))"
_MULT_PCT = (
    r"(?P<mult>\s?(?:thousand|million|billion|trillion)\b|(?:MM|mn|bn|[kKMB])(?![A-Za-z]))?"
    r"(?P<pct>\s?(?:%|percent\b|per cent\b))?"
)
NUMBER = re.compile(rf"(?P<cur>[{CURRENCY}]\s?)?{_NUM}{_MULT_PCT}")
# ``NUMBER`` without the currency: the same numbers in the same order (a
# currency sign holds no digit, so leaving it out moves no match), found by a
# scan that skips ahead to digits. For the sources, where no span is kept.
BARE_NUMBER = re.compile(_NUM + _MULT_PCT)

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_VALUE = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_ALL_WORDS = sorted([*_WORD_VALUE, "hundred", *_SCALE_WORDS], key=len, reverse=True)
# One character class comes first, so ``re`` skips ahead to the letters that
# start a number word: it only does that for a pattern that opens with a class
# or literal (not for an alternation of classes, nor after a ``\b``). A
# lookbehind then picks the words with that first letter. Callers drop matches
# that start inside a word ("someone"). The first letter may be a capital
# ("Twelve"). "a hundred" is not read (see ``extract``).
_FIRSTS = sorted({w[0] for w in _ALL_WORDS})
_W = (
    "["
    + "".join(_FIRSTS)
    + "".join(_FIRSTS).upper()
    + "](?:"
    + "|".join(
        f"(?<=[{f}{f.upper()}])(?:" + "|".join(w[1:] for w in _ALL_WORDS if w[0] == f) + ")"
        for f in _FIRSTS
    )
    + r")\b"
)
WORDS = re.compile(rf"{_W}(?:(?:\s+and\s+|[\s-]+){_W})*")


def to_decimal(digits: str) -> Decimal | None:
    """``"1,200.50"`` -> ``Decimal("1200.50")``; None when it is not a number."""
    try:
        return Decimal(digits.replace(",", ""))
    except InvalidOperation:
        return None


def number_value(match: re.Match[str]) -> Decimal | None:
    """The value of a ``NUMBER`` match, its multiplier applied; a percent stays ``15``."""
    return scaled(to_decimal(match["num"]), match["mult"])


def scaled(value: Decimal | None, mult: str | None) -> Decimal | None:
    """``value`` times the multiplier ``mult`` ("k", " million"); unchanged without one."""
    if value is None or not mult:
        return value
    word = mult.strip()
    exponent = _SCALE_WORDS.get(word.lower()) or _SUFFIXES.get(word, 0)
    return value.scaleb(exponent)


def words_value(phrase: str) -> int | None:
    """``"nine hundred and five"`` -> 905; ``"twenty-four"`` -> 24; None when not a number.

    Sequences a person would not read as one number ("ten twenty") come out as
    None rather than a made-up sum.
    """
    total = 0
    current = 0
    last = ""  # "unit", "tens", "hundred", or "" at the start / after a scale
    tokens = re.findall(r"[a-z]+", phrase.lower())
    if tokens[0] == "hundred" or tokens[0] in _SCALE_WORDS:
        return None  # "thanks a million", "hundreds": no count before the scale
    for token in tokens:
        if token in ("and", "a", "an"):
            if token != "and":
                current = 1
            continue
        if token == "hundred":
            if last == "hundred":
                return None
            current = (current or 1) * 100
            last = "hundred"
        elif token in _SCALE_WORDS:
            total += (current or 1) * 10 ** _SCALE_WORDS[token]
            current = 0
            last = ""
        else:
            value = _WORD_VALUE.get(token, -1)
            if value < 0:
                return None
            # A word after a unit or teen ("ten twenty") or tens after tens is
            # not one number.
            if last == "unit" or (last == "tens" and value >= 10):
                return None
            current += value
            last = "tens" if value >= 20 else "unit"
    return total + current


def round_tolerance(value: Decimal) -> Decimal:
    """Half a unit of the last significant digit: "about 1,500" may stand for 1,487."""
    sign, digits, exponent = value.normalize().as_tuple()
    del sign, digits
    if not isinstance(exponent, int):
        return Decimal(0)
    return Decimal(5).scaleb(exponent - 1)


_SCALE_NAMES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (10**3, "thousand"))


def _below_thousand(n: int, with_and: bool) -> list[str]:
    words: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        words += [_UNITS[hundreds], "hundred"]
        if rest and with_and:
            words.append("and")
    if rest >= 20:
        tens, unit = divmod(rest, 10)
        words.append(_TENS[tens - 2])
        if unit:
            words.append(_UNITS[unit])
    elif rest:
        words.append(_UNITS[rest])
    return words


def spellings(value: int) -> tuple[str, ...]:
    """How a whole number is written in words, lower-case, words split by single spaces:
    ``905`` -> ``("nine hundred five", "nine hundred and five")``; empty when out of range."""
    if not 0 < value < 10**15:
        return ()
    found: list[str] = []
    for with_and in (False, True):
        words: list[str] = []
        rest = value
        for scale, name in _SCALE_NAMES:
            count, rest = divmod(rest, scale)
            if count:
                words += [*_below_thousand(count, with_and), name]
        words += _below_thousand(rest, with_and)
        found.append(" ".join(words))
    # "twelve hundred" for 1200..1999 in round hundreds, as people say prices.
    if 1100 <= value < 10000 and value % 100 == 0 and value % 1000:
        found.append(" ".join([*_below_thousand(value // 100, False), "hundred"]))
    return tuple(dict.fromkeys(found))
