"""Canonical values found in the sources, and whether a fact is among them.

Each kind's set is built on first use, with one regex pass over the joined
sources: an answer with no dates never pays for reading dates. Lookups are set
membership; only an amount that no source states directly reaches the
(bounded) sum search.

Sources are read more generously than the answer: every number counts,
single digits and the digits inside IDs, dates and phones included (an
answer may restate "order 88213" from "A-88213") and a lower-case month is a
month.

Judgement calls, each documented where it is decided:

* ``15%`` is supported by a source's ``15``, ``15%`` or ``0.15`` (a rate);
* a year on its own is supported by the turn's year and the next one, which
  the agent knows without being told;
* the turn's own date (one day either side, for time zones) is a source;
* a date without a year in a source supports the same day in the answer in the
  turn's year or the next;
* a link without a path ("acme.com") is supported by any source link or email
  address on that host;
* "about $43" is supported by a source's 42.50: a hedged amount may be a source
  value rounded to the answer's last significant digit.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from functools import cached_property

from worker.checks.budget import Budget
from worker.checks.facts.dates import DateKey, date_keys, find_dates
from worker.checks.facts.extract import Fact
from worker.checks.facts.numbers import (
    BARE_NUMBER,
    number_value,
    round_tolerance,
    scaled,
    spellings,
    to_decimal,
)
from worker.checks.facts.patterns import (
    ANSWER_NUMBER,
    BARE_DOMAIN,
    DIGITS,
    EMAIL,
    ID_SEPARATOR,
    PHONE,
    SOURCE_TOKEN,
    URL,
    id_key,
    link_key,
    phone_key,
    quote_key,
    strip_trailing,
)
from worker.checks.facts.sums import adds_up

MonthDay = tuple[int, int]
_DateSets = tuple[set[DateKey], set[MonthDay], set[tuple[int | None, int]], set[MonthDay]]


class SourceIndex:
    """The sources of one turn, ``blob`` joined and normalised (``sources.join_sources``)."""

    def __init__(self, blob: str, today: date, max_sum_terms: int) -> None:
        self.blob = blob
        self.today = today
        self.years = frozenset({Decimal(today.year), Decimal(today.year + 1)})
        self.max_sum_terms = max_sum_terms

    def supports(self, fact: Fact, budget: Budget) -> bool:
        """True when the sources state ``fact`` (in any format), or add up to it."""
        keys = fact.keys
        if fact.kind == "amount":
            return self._supports_amount(fact, budget)
        if fact.kind == "date":
            return any(self._supports_date(k) for k in keys)  # type: ignore[arg-type]
        if fact.kind == "link":
            key = str(keys[0])
            return key in self.links[0] or ("/" not in key and key in self.links[1])
        if fact.kind == "email":
            return keys[0] in self.emails
        if fact.kind == "phone":
            return keys[0] in self.phones
        if fact.kind == "id":
            key = str(keys[0])
            if key in self.ids:
                return True
            # A digit-only ID may be a number or a phone in a tool's result.
            return key.isdigit() and (Decimal(key) in self.numbers or key in self.phones)
        return f" {keys[0]} " in self.quote_text

    def _supports_amount(self, fact: Fact, budget: Budget) -> bool:
        values = [k for k in fact.keys if isinstance(k, Decimal)]
        if any(v in self.numbers for v in values):
            return True
        value = values[0]
        if fact.plain and value in self.years:
            return True
        if fact.approx:
            tolerance = round_tolerance(value)
            if any(abs(n - value) <= tolerance for n in self.numbers):
                return True
        if any(self._in_words(v) for v in values):
            return True
        # A percent is a rate, never a total.
        return len(values) == 1 and adds_up(value, self.sum_terms, self.max_sum_terms, budget)

    def _supports_date(self, key: DateKey) -> bool:
        year, month, day = key
        full, month_days, month_years, yearless = self.dates
        if day is None:
            return (year, month) in month_years
        if year is None:
            return (month, day) in month_days
        if key in full:
            return True
        return (month, day) in yearless and year in (self.today.year, self.today.year + 1)

    @cached_property
    def numbers(self) -> frozenset[Decimal]:
        """Every number, as written and with its multiplier; a percent also as a rate."""
        found: set[Decimal] = set()
        # Sources repeat their figures (prices, quantities): each written form
        # is read once.
        for num, mult, pct in set(BARE_NUMBER.findall(self.blob)):
            raw = to_decimal(num)
            if raw is None:
                continue
            found.add(raw)
            value = scaled(raw, mult)
            if value is not None:
                found.add(value)
            if pct:
                found.add(raw.scaleb(-2))
        return frozenset(found)

    def _in_words(self, value: Decimal) -> bool:
        """A source writes ``value`` out in words ("nine hundred"): the spelling is looked up
        in the source text with punctuation folded, one substring search, never a scan."""
        if value != value.to_integral_value():
            return False
        text = self.quote_text
        return any(f" {words} " in text for words in spellings(int(value)))

    @cached_property
    def sum_terms(self) -> list[Decimal]:
        """Standalone amounts a total may add up, most recent source first.

        Not digits inside IDs, dates or phones, not bare single digits or years,
        not percents: a total of random digits would support any number.
        """
        terms: list[Decimal] = []
        for m in ANSWER_NUMBER.finditer(self.blob):
            value = number_value(m)
            if value is None or m["pct"]:
                continue
            if not (m["cur"] or m["mult"] or "." in m["num"] or "," in m["num"]) and (
                value < 10 or 1900 <= value <= 2100
            ):
                continue
            terms.append(value)
        return terms

    @cached_property
    def dates(
        self,
    ) -> tuple[
        set[DateKey], set[tuple[int, int]], set[tuple[int | None, int]], set[tuple[int, int]]
    ]:
        """(full dates, month-days of any date, year-months, month-days stated without a year)."""
        full: set[DateKey] = set()
        month_days: set[MonthDay] = set()
        month_years: set[tuple[int | None, int]] = set()
        yearless: set[MonthDay] = set()
        around = [self.today + timedelta(days=d) for d in (-1, 0, 1)]
        keys: list[DateKey] = [(d.year, d.month, d.day) for d in around]
        for m in find_dates(self.blob):
            keys.extend(date_keys(m, case_from=None))
        for year, month, day in keys:
            month_years.add((year, month))
            if day is None:
                continue
            month_days.add((month, day))
            if year is None:
                yearless.add((month, day))
            else:
                full.add((year, month, day))
        return full, month_days, month_years, yearless

    @cached_property
    def links(self) -> tuple[set[str], set[str]]:
        """(link keys, hosts of links and of email addresses)."""
        keys: set[str] = set()
        for pattern in (URL, BARE_DOMAIN):
            for m in pattern.finditer(self.blob):
                end = strip_trailing(self.blob, m.start(), m.end())
                keys.add(link_key(self.blob[m.start() : end]))
        hosts = {key.split("/", 1)[0] for key in keys}
        hosts.update(email.rsplit("@", 1)[1] for email in self.emails)
        return keys, hosts

    @cached_property
    def emails(self) -> frozenset[str]:
        return frozenset(m.group().lower() for m in EMAIL.finditer(self.blob))

    @cached_property
    def phones(self) -> frozenset[str]:
        """National numbers of phones, and of every digit run of seven or more."""
        found = {phone_key("".join(DIGITS.findall(p))) for p in set(PHONE.findall(self.blob))}
        found.update(phone_key(run) for run in self.digit_runs if len(run) >= 7)
        return frozenset(found)

    @cached_property
    def digit_runs(self) -> frozenset[str]:
        """Every run of digits, each once."""
        return frozenset(DIGITS.findall(self.blob))

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every token holding a digit, its tails, and every digit run, canonical."""
        found: set[str] = set()
        for token in set(SOURCE_TOKEN.findall(self.blob)):
            found.add(id_key(token))
            # The tail of a compound ID is the same reference: "2024-0042" of "ORD-2024-0042".
            parts = ID_SEPARATOR.split(token)
            found.update(id_key("".join(parts[i:])) for i in range(1, len(parts)))
        found.update(self.digit_runs)
        return frozenset(found)

    @cached_property
    def quote_text(self) -> str:
        """The sources lower-cased, each run of punctuation and spaces one space."""
        return f" {quote_key(self.blob)} "
