"""Numbers written in English words: ``nine hundred`` is 900, ``twenty-four`` is 24.

Parsed here (about 40 lines) rather than with ``text2num``: we need the offsets
of each phrase in the text and one regex pass over it, and ``alpha2digit``
rewrites the text without telling where. ``spellings`` goes the other way, for
looking a source's words up by value.

Money in words with cents ("forty-five dollars and fifty cents") is one amount,
45.50: read as two, the cents would be a second, unsupported figure.
"""

from __future__ import annotations

import re
from decimal import Decimal

SCALE_WORDS = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
SPELLED_BELOW = 10**15
"""``spellings`` writes out the whole numbers from 1 up to this one, excluded."""

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
_ALL_WORDS = sorted([*_WORD_VALUE, "hundred", *SCALE_WORDS], key=len, reverse=True)
NUMBER_WORDS = tuple(_ALL_WORDS)
"""Every word a number in words is made of, longest first."""
TEN_OR_MORE_WORDS = tuple(w for w in _ALL_WORDS if _WORD_VALUE.get(w, 100) >= 10)
"""The number words worth ten or more: a number in words of ten or more holds one."""
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


# "forty-five dollars and fifty cents", "12 euros and 5 cents". Only the pair is
# read here: "fifty cents" alone stays what ``extract`` makes of it.
_MONEY_PART = rf"(?:[0-9]{{1,3}}|{_W}(?:(?:\s+and\s+|[\s-]+){_W})*)"
MONEY_WORDS = re.compile(
    rf"(?P<whole>{_MONEY_PART})\s+(?:dollars?|euros?|pounds?|bucks)\s*,?\s+(?:and\s+)?"
    rf"(?P<cents>{_MONEY_PART})\s+(?:cents?|pence)\b",
    re.IGNORECASE,
)


def money_value(match: re.Match[str]) -> Decimal | None:
    """The amount of a ``MONEY_WORDS`` match: 45.50 for "forty-five dollars and fifty cents"."""
    whole, cents = (
        int(part) if part.isdigit() else words_value(part)
        for part in (match["whole"], match["cents"])
    )
    if whole is None or cents is None or cents >= 100:
        return None
    return Decimal(whole) + Decimal(cents).scaleb(-2)


def words_value(phrase: str) -> int | None:
    """``"nine hundred and five"`` -> 905; ``"twenty-four"`` -> 24; None when not a number.

    Sequences a person would not read as one number ("ten twenty") come out as
    None rather than a made-up sum.
    """
    total = 0
    current = 0
    last = ""  # "unit", "tens", "hundred", or "" at the start / after a scale
    tokens = re.findall(r"[a-z]+", phrase.lower())
    if tokens[0] == "hundred" or tokens[0] in SCALE_WORDS:
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
        elif token in SCALE_WORDS:
            total += (current or 1) * 10 ** SCALE_WORDS[token]
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
    if not 0 < value < SPELLED_BELOW:
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
