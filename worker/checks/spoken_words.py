"""The words a number is read aloud with, and what each one is in digits.

Shared by ``spoken`` (runs of digits) and ``spoken_dates`` (days and years).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

DIGITS = {
    "zero": "0", "oh": "0", "nought": "0", "naught": "0", "one": "1", "two": "2",
    "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9",
}  # fmt: skip
TEENS = {
    "ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13", "fourteen": "14",
    "fifteen": "15", "sixteen": "16", "seventeen": "17", "eighteen": "18", "nineteen": "19",
}  # fmt: skip
TENS = {
    "twenty": "2", "thirty": "3", "forty": "4", "fifty": "5", "sixty": "6", "seventy": "7",
    "eighty": "8", "ninety": "9",
}  # fmt: skip
# Words that make a run an amount (or, in a year, a thousand).
SCALES = ("hundred", "thousand", "million", "billion")

ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
    "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}  # fmt: skip

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip


def _alternation(words: Iterable[str]) -> str:
    # Longest first: "nineteen" before "nine", "fourteen" before "four".
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


# One number word or a run of written digits.
TOKEN = "[0-9]+|" + _alternation([*DIGITS, *TEENS, *TENS, *SCALES, "double", "triple"])
NUMBER_WORD = _alternation([*DIGITS, *TEENS, *TENS])
ORDINAL_WORD = _alternation(ORDINALS)
TENS_WORD = _alternation(TENS)
MONTH_WORD = _alternation(MONTHS)


def cardinal(words: list[str]) -> int | None:
    """The value 0..99 of ``words`` ("eighty", "two"; "oh", "five"; "eleven"), else None."""
    if len(words) == 1:
        word = words[0]
        if word in TEENS:
            return int(TEENS[word])
        if word in TENS:
            return int(TENS[word]) * 10
        if word in DIGITS:
            return int(DIGITS[word])
        return int(word) if word.isdigit() and len(word) <= 2 else None
    if len(words) == 2:
        first, second = words
        if first in TENS and second in DIGITS and DIGITS[second] != "0":
            return int(TENS[first]) * 10 + int(DIGITS[second])
        if first == "oh" and second in DIGITS:
            return int(DIGITS[second])
    return None
