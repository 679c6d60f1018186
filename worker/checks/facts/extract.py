"""Find the facts in an answer, with their kinds, offsets and canonical keys.

Kinds claim text in a fixed order (link, email, date, phone, spaced ID,
ignored, card ending, id, money in words, amount) so that digits inside a fact
are never read again as another: the day and year of a date, the digits of a
phone or of an ID ("MTR 0041 7723", "TP 202", "ending in 4170") are not
amounts. Quotes
claim nothing; the facts inside a quote are checked too.

Not facts, and why (each was a false alarm on a good reply we wrote):

* single-digit numbers ("in 2 steps", "one of our agents"), unless they carry a
  currency, a percent or decimals ("$5", "5%", "3.5"), which are prices;
* list numbers at the start of a line ("1.", "12)");
* times of day ("9am", "5:30 pm", "17:00"): opening hours are not a kind the
  check knows, and "at 3pm" is about scheduling, not a figure to verify;
* ordinals on their own ("1st", "22nd"): ranks, not quantities ("the 4th of
  March" is a date);
* "24/7";
* version strings ("v2.1", "2.1.3") and numbers glued to a word by a hyphen
  ("GPT-4", "COVID-19"): names, not figures;
* "a hundred", "a million" in words: idioms ("thanks a million") far more often
  than figures; "one hundred" and "nine hundred" are figures.

Facts, though a reader might hesitate: a number of ten or more with a unit
("30 days", "24 hours", "128GB") is a policy or product figure; a year on its
own ("in 2019") is checked, but the turn's year and the next are always
supported (``index``); "iPhone 15" holds the amount 15, supported when a
source names it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Protocol

from turncheck.schemas.checkfile import FactKind
from turncheck.worker.checks import candidates, scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.dates import date_keys, find_dates
from turncheck.worker.checks.facts.folded import fold
from turncheck.worker.checks.facts.numbers import number_values
from turncheck.worker.checks.facts.patterns import (
    BARE_DOMAIN,
    CARD_ENDING,
    EMAIL,
    HEDGE,
    ID_SEPARATOR,
    IGNORED,
    LIST_MARKER,
    MAY_BE_DOMAIN,
    MAY_BE_PHONE,
    PHONE,
    QUOTE,
    SPACED_ID,
    TOKEN,
    UNIT_TOKEN,
    URL,
    WORD,
    answer_numbers,
    email_starts,
    flight_key,
    id_key,
    line_starts,
    link_key,
    phone_digits,
    quote_key,
    spaced_id_key,
    strip_trailing,
)
from turncheck.worker.checks.facts.starts import phone_starts, token_starts
from turncheck.worker.checks.facts.words import MONEY_WORDS, WORDS, money_value, words_value
from turncheck.worker.checks.gates import Candidates

_NOT_DIGIT = re.compile(r"[^0-9]")
_NUMBER_WITH_UNIT = re.compile(r"[0-9]+(?:\.[0-9]+)?-[a-z]+")
_FLIGHT = re.compile(r"[A-Z]{2}[0-9]{2}")


@dataclass(frozen=True, slots=True)
class Fact:
    """One fact in the (normalised) answer; supported when any key is in the sources."""

    kind: FactKind
    start: int
    end: int
    keys: tuple[Hashable, ...]
    approx: bool = False
    """An amount after "about", "around" ...: a rounded source value supports it."""
    plain: bool = False
    """An amount written as a bare integer: no currency, percent, decimals or grouping."""
    percent: bool = False
    """An amount with a percent sign: a rate, never a total."""
    tail: bool = False
    """An ID given by its last digits ("card ending in 4170")."""


class _Adder(Protocol):
    def __call__(
        self, kind: FactKind, start: int, end: int, *keys: Hashable, **flags: bool
    ) -> None: ...


class _Claims:
    """Characters already read as a fact, as a mask: a claim is two C-level slice operations."""

    def __init__(self, size: int) -> None:
        self.mask = bytearray(size)

    def take(self, start: int, end: int) -> bool:
        if 1 in self.mask[start:end]:
            return False
        self.mask[start:end] = b"\x01" * (end - start)
        return True


def is_id_token(token: str) -> bool:
    """Letters and three or more digits ("A-88213", "1Z999AA1..."), a capitalised code
    with two ("SAVE20", the flight "UA64"), or a digit run of five or more.

    Hyphenated digit groups are an ID only with three groups or a leading zero
    ("2024-0042"); "100-2000" is a range of two amounts.
    """
    token = token.lstrip("#")
    if token.isascii() and token.isdigit():
        return len(token) >= 5  # most tokens: one run of digits, which the rest reads so
    if _NUMBER_WITH_UNIT.fullmatch(token):
        return False  # "120-night", "30-day": an amount and its unit
    bare = ID_SEPARATOR.sub("", token)
    digits = len(_NOT_DIGIT.sub("", bare))
    if not bare.isdigit():
        if UNIT_TOKEN.fullmatch(token) is not None:
            return False
        # Two digits make a code only in capitals ("SAVE20", "WELCOME10"); "iOS17"
        # and "Win11" are product names.
        code = bare.upper() == bare and (len(bare) >= 5 or _FLIGHT.fullmatch(bare) is not None)
        return digits >= 3 or (digits == 2 and code)
    groups = ID_SEPARATOR.split(token)
    if len(groups) == 1:
        return digits >= 5
    # Nobody writes a range of seven-digit numbers without commas: "125-2419873360"
    # is an airline e-ticket (a carrier code and a serial).
    return digits >= 5 and (
        len(groups) >= 3 or any(g[0] == "0" or len(g) >= 7 for g in groups if g)
    )


def extract_facts(
    text: str,
    budget: Budget,
    opened: frozenset[str] | None = None,
    starts: Candidates | None = None,
) -> list[Fact]:
    """Every fact in ``text`` in text order; offsets are into ``text``. Each scan checks
    ``budget`` between its matches (``scan``), and raises ``BudgetSpent`` when it is gone.

    ``opened``: the extractors whose gates opened for ``text`` (``gates.facts``); None
    runs each behind its own cheap test. ``starts``: where the seeds of the same scan
    (``gates.facts.FACT_SEEDS``) match in ``text``, or None: the facts are the same."""
    claims = _Claims(len(text))
    facts: list[Fact] = []

    def add(kind: FactKind, start: int, end: int, *keys: Hashable, **flags: bool) -> None:
        if claims.take(start, end):
            facts.append(Fact(kind, start, end, keys, **flags))

    def matches(
        pattern: re.Pattern[str], wanted: object = True, at: Sequence[int] | None = None
    ) -> Iterator[re.Match[str]]:
        """``pattern``'s matches in ``text``, none unless ``wanted`` (a cheap test first);
        tried at ``at`` alone when given (every start of a match is among them)."""
        if wanted:
            for m in candidates.matches(pattern, text, budget, at):
                budget.check()
                yield m

    def gate(name: str, test: Callable[[], object] = lambda: True) -> object:
        return test() if opened is None else name in opened

    # Cheap tests first: most answers hold no link or email address.
    for m in matches(URL, gate("link", lambda: "://" in text or "www." in text)):
        end = strip_trailing(text, m.start(), m.end())
        add("link", m.start(), end, link_key(text[m.start() : end]))
    at_signs = None if starts is None else email_starts(text, starts["email"])
    for m in matches(EMAIL, gate("email", lambda: "@" in text), at_signs):
        add("email", m.start(), m.end(), m.group().lower())
    for m in matches(BARE_DOMAIN, gate("domain", lambda: scan.search(MAY_BE_DOMAIN, text, budget))):
        end = strip_trailing(text, m.start(), m.end())
        add("link", m.start(), end, link_key(text[m.start() : end]))
    months = starts["months"] if starts is not None else None
    numeric = gate("digits")
    folded_text = fold(text) if numeric else ""
    for m in find_dates(text, budget, months, folded_text) if numeric else ():
        keys = date_keys(m, case_from=text)
        if keys:
            add("date", m.start(), m.end(), *keys)
    may_be_phone = lambda: "+" in text or scan.search(MAY_BE_PHONE, text, budget)  # noqa: E731
    phone = gate("phone", may_be_phone)
    # Tried where ``phone_starts`` says a match may start, in a text read whole.
    short = numeric and len(text) <= scan.LONG_TEXT_CHARS
    for m in matches(PHONE, phone, phone_starts(text, folded_text) if phone and short else None):
        digits = phone_digits(m.group())
        if 7 <= len(digits) <= 15:
            add("phone", m.start(), m.end(), digits)
    for m in matches(SPACED_ID, gate("spaced_id")):
        key = spaced_id_key(m)
        if key is not None:
            add("id", m.start(), m.end(), *_id_keys(key))
    for m in matches(IGNORED, numeric):
        claims.take(m.start(), m.end())
    # A list marker starts a line: tried there alone.
    for m in matches(LIST_MARKER, numeric, line_starts(text) if numeric else None):
        claims.take(m.start(), m.end())
    lower = text.lower() if opened is None else ""
    ending = lambda: "ending" in lower or "ends " in lower or "last " in lower  # noqa: E731
    card_starts = None if starts is None else starts["card_ending"]
    for m in matches(CARD_ENDING, gate("card_ending", ending), card_starts):
        add("id", m.start("digits"), m.end(), m["digits"], tail=True)
    for m in matches(TOKEN, numeric, token_starts(text, folded_text) if short else None):
        if is_id_token(m.group()):
            add("id", m.start(), m.end(), *_id_keys(id_key(m.group())))
    for m in matches(MONEY_WORDS, gate("money_words", lambda: "cent" in lower or "pence" in lower)):
        money = money_value(m)
        if money is not None and not (m.start() and text[m.start() - 1].isalnum()):
            add("amount", m.start(), m.end(), money, approx=_hedged(text, m))
    for m in answer_numbers(text, budget, folded_text) if numeric else ():
        budget.check()
        _add_number(m, text, add)
    for m in matches(WORDS, gate("words")):
        if m.start() and text[m.start() - 1].isalnum():
            continue  # inside a word: "someone", "often"
        value = words_value(m.group())
        if value is not None and value >= 10:
            add("amount", m.start(), m.end(), Decimal(value), plain=True, approx=_hedged(text, m))
    for m in matches(QUOTE, gate("quote")):
        phrase = m["d"] or m["c"] or m["s"] or ""
        if len(WORD.findall(phrase)) >= 3:
            facts.append(Fact("quote", m.start(), m.end(), (quote_key(phrase),)))
    facts.sort(key=lambda f: (f.start, f.end))
    return facts


# ``HEDGE``'s words, lower-cased, as the text before a hedged amount ends, spaces aside.
_HEDGE_WORDS = (
    *("about", "around", "roughly", "approximately", "approx", "approx."),
    *("nearly", "almost", "close to", "some", "~"),
)


def _hedged(text: str, match: re.Match[str]) -> bool:
    start = match.start()
    lo = max(0, start - 16)
    # ``HEDGE`` searched at each of 16 offsets cost more than the amount's other reading.
    # In ASCII, ignoring case is lower-casing, and ``rstrip`` drops what ``\s`` matches:
    # the window ends with a hedge word, spaces aside. Outside ASCII, the search.
    before = text[lo:start].rstrip()
    if before.isascii():
        return before.lower().endswith(_HEDGE_WORDS)
    return HEDGE.search(text, lo, start) is not None


def _id_keys(key: str) -> tuple[str, ...]:
    flight = flight_key(key)
    return (key,) if flight is None else (key, flight)


_SUBUNIT = re.compile(r"\s?(?:cents?\b|¢|pence\b|p\b)")


def _add_number(m: re.Match[str], text: str, add: _Adder) -> None:
    values = number_values(m)
    if not values:
        return
    num = m["num"]
    plain = not (m["cur"] or m["mult"] or m["pct"] or "." in num or "," in num or " " in num)
    if plain and values[0] < 10:
        return  # a single digit
    keys: tuple[Hashable, ...] = values
    if m["pct"] or _SUBUNIT.match(text, m.end()):
        # A tool's rate 0.15 is the answer's 15%; its $0.40 the answer's "40 cents",
        # its £0.287 the answer's "28.7p".
        keys = (*values, *(v.scaleb(-2) for v in values))
    start, end = m.span()
    add("amount", start, end, *keys, plain=plain, approx=_hedged(text, m), percent=bool(m["pct"]))
