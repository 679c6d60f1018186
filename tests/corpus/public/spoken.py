"""How a voice agent or a speech-to-text engine writes numbers, dates and addresses.

Each renderer takes digits (or a date, an address) and a seeded ``random.Random`` and
returns the words; build.py wraps them in sentences.
"""

from __future__ import annotations

import random
from datetime import date

DIGIT = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TEENS = [
    "ten", "eleven", "twelve", "thirteen", "fourteen",
    "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
]  # fmt: skip
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
ORDINAL = [
    "", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth", "twentieth", "twenty-first", "twenty-second",
    "twenty-third", "twenty-fourth", "twenty-fifth", "twenty-sixth", "twenty-seventh",
    "twenty-eighth", "twenty-ninth", "thirtieth", "thirty-first",
]  # fmt: skip
MONTHS = [
    "", "January", "February", "March", "April", "May", "June", "July",
    "August", "September", "October", "November", "December",
]  # fmt: skip
STYLES = ("words", "oh", "runs", "pairs", "mixed")


def two_digits(n: int) -> str:
    """0-99 as spoken: "oh five", "eleven", "forty-one"."""
    if n < 10:
        return f"oh {'oh' if n == 0 else DIGIT[n]}"
    if n < 20:
        return TEENS[n - 10]
    tens, ones = divmod(n, 10)
    return TENS[tens] + (f"-{DIGIT[ones]}" if ones else "")


def number_words(n: int) -> str:
    """0-999,999 in words, with "and" as British and many US speakers say it."""
    if n < 10:
        return DIGIT[n]
    if n < 100:
        return two_digits(n)
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return f"{DIGIT[hundreds]} hundred" + (f" and {number_words(rest)}" if rest else "")
    thousands, rest = divmod(n, 1000)
    tail = "" if not rest else (" and " if rest < 100 else " ") + number_words(rest)
    return f"{number_words(thousands)} thousand{tail}"


def digits_spoken(digits: str, style: str, rng: random.Random) -> str:
    """``digits`` read out in ``style`` (one of STYLES)."""
    if style == "words":
        return " ".join(DIGIT[int(d)] for d in digits)
    if style == "oh":
        return " ".join("oh" if d == "0" else DIGIT[int(d)] for d in digits)
    if style == "runs":
        return _runs(digits)
    if style == "pairs":
        parts = [two_digits(int(digits[i : i + 2])) for i in range(0, len(digits) - 1, 2)]
        if len(digits) % 2:
            parts.append(DIGIT[int(digits[-1])])
        return " ".join(parts)
    # mixed: some groups of four as digits, the rest as words
    groups = [digits[i : i + 4] for i in range(0, len(digits), 4)]
    return " ".join(g if rng.random() < 0.4 else " ".join(DIGIT[int(d)] for d in g) for g in groups)


def _runs(digits: str) -> str:
    out = []
    i = 0
    while i < len(digits):
        j = i
        while j < len(digits) and digits[j] == digits[i] and j - i < 3:
            j += 1
        word = "oh" if digits[i] == "0" else DIGIT[int(digits[i])]
        out.append({1: word, 2: f"double {word}", 3: f"triple {word}"}[j - i])
        i = j
    return " ".join(out)


def grouped(digits: str, sizes: tuple[int, ...], style: str, rng: random.Random) -> str:
    """Digits spoken group by group (``sizes``), with the pause a speaker makes as a comma."""
    parts = []
    i = 0
    for size in sizes:
        parts.append(digits_spoken(digits[i : i + size], style, rng))
        i += size
    if i < len(digits):
        parts.append(digits_spoken(digits[i:], style, rng))
    return ", ".join(p for p in parts if p)


def year_words(year: int) -> str:
    if 2000 <= year < 2010:
        return "two thousand" + (f" and {DIGIT[year - 2000]}" if year > 2000 else "")
    high, low = divmod(year, 100)
    return f"{two_digits(high)} {two_digits(low) if low else 'hundred'}"


def date_spoken(day: date, rng: random.Random) -> str:
    month, nth, year = MONTHS[day.month], ORDINAL[day.day], year_words(day.year)
    return rng.choice(
        [
            f"the {nth} of {month} {year}",
            f"{month} {nth}, {year}",
            f"{month} the {nth} {year}",
            f"{nth} {month} {year}",
        ]
    )


def email_spoken(address: str) -> str:
    local, domain = address.split("@")
    said = {".": " dot ", "_": " underscore ", "-": " dash "}
    spell = "".join(said.get(ch, ch) for ch in local)
    return f"{spell} at {' dot '.join(domain.split('.'))}"


def ip_spoken(address: str, rng: random.Random) -> str:
    def part(octet: str) -> str:
        if rng.random() < 0.5:
            return " ".join(DIGIT[int(d)] for d in octet)
        return number_words(int(octet))

    return " dot ".join(part(o) for o in address.split("."))
