"""Canonical values found in the sources, and whether a fact is among them.

Each kind's set is built on first use, with one regex pass over the joined
sources: an answer with no dates never pays for reading dates. Lookups are set
membership; only an amount that no source states directly reaches the
(bounded) sum search.

Sources are read more generously than the answer: single digits count, the
digits inside IDs, dates and phones support IDs (an answer may restate "order
88213" from "A-88213"), and a lower-case month is a month. An amount, though,
is supported only by a standalone number (``standalone``): never by the digits
of a date, a phone, an ID or a time.

Judgement calls, each documented where it is decided:

* ``15%`` is supported by a source's ``15``, ``15%`` or ``0.15`` (a rate);
* an ambiguous number ("5.100", "3,500") has both readings, in the answer
  and in the sources (``numbers.readings``);
* two phone numbers are the same when, without an international "00" or a
  trunk "0", one ends with the other and the shorter has seven digits or more
  ("030 901820" is "+49 30 901820");
* a flight number's padding zero is formatting ("BA0287" is "BA287");
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

import re
from datetime import date, timedelta
from decimal import Decimal
from functools import cached_property
from itertools import chain

from turncheck.worker.checks import candidates, scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.dates import DateKey, date_keys, find_dates
from turncheck.worker.checks.facts.extract import Fact
from turncheck.worker.checks.facts.folded import fold
from turncheck.worker.checks.facts.numbers import round_tolerance
from turncheck.worker.checks.facts.patterns import (
    BARE_DOMAIN,
    DIGITS,
    EMAIL,
    ID_SEPARATOR,
    PHONE,
    SOURCE_TOKEN,
    SPACED_ID,
    URL,
    flight_key,
    id_key,
    link_key,
    long_quote_key,
    national_number,
    phone_digits,
    spaced_id_key,
    strip_trailing,
)
from turncheck.worker.checks.facts.standalone import Bounds, Standalone, compound_spans
from turncheck.worker.checks.facts.starts import phone_starts
from turncheck.worker.checks.facts.suffixes import Suffixes
from turncheck.worker.checks.facts.sums import adds_up
from turncheck.worker.checks.facts.words import SPELLED_BELOW, spellings
from turncheck.worker.checks.gates import Candidates, Gates
from turncheck.worker.checks.gates.facts import FACT_GATES, FACT_SEEDS

MonthDay = tuple[int, int]
# An ID as ``SOURCE_TOKEN`` reads one: letters and digits, parts joined by "-" or "_", a digit.
_WRITTEN_TOKEN = re.compile(r"(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
# Reading source tokens checks the budget once per so many.
_CHECK_EVERY = 1024
# The extractors' gates (``gates.facts``) that also stand before the sources' scans.
SOURCE_GATES = frozenset({"phone", "spaced_id"})
# The seeds (``gates.facts.FACT_SEEDS``) whose offsets the same scan of the sources gives.
SOURCE_SEEDS = ("months",)
_DateSets = tuple[set[DateKey], set[MonthDay], set[tuple[int | None, int]], set[MonthDay]]


def source_gates(seeded: bool = False) -> Gates:
    """``SOURCE_GATES`` compiled, once per check, with the engine checks compiled now get;
    ``seeded``: with the seeds of the months' offsets too (``SOURCE_SEEDS``)."""
    gates = {name: FACT_GATES[name] for name in SOURCE_GATES}
    return Gates(gates, seeds={name: FACT_SEEDS[name] for name in SOURCE_SEEDS} if seeded else None)


class SourceIndex:
    """The sources of one turn, ``blob`` joined and normalised (``sources.join_sources``).

    Built for one turn and read within its ``budget``: each set is built by scans
    that check it (``scan``), and raises ``BudgetSpent`` when it is gone.
    """

    def __init__(
        self,
        blob: str,
        today: date,
        max_sum_terms: int,
        budget: Budget,
        gates: Gates | None = None,
    ) -> None:
        """``gates``: ``SOURCE_GATES`` compiled (``source_gates``); without, every scan runs."""
        self.blob = blob
        self.gates = gates
        self.today = today
        self.years = frozenset({Decimal(today.year), Decimal(today.year + 1)})
        self.max_sum_terms = max_sum_terms
        self.budget = budget

    def supports(self, fact: Fact, written: str = "") -> bool:
        """True when the sources state ``fact`` (in any format), or add up to it.
        ``written``: the fact as the answer writes it, which may save reading every ID."""
        keys = fact.keys
        if fact.kind == "id" and "ids" not in self.__dict__ and self._states_token(written):
            return True
        if fact.kind == "amount":
            return self._supports_amount(fact)
        if fact.kind == "date":
            return any(self._supports_date(k) for k in keys)  # type: ignore[arg-type]
        if fact.kind == "link":
            key = str(keys[0])
            return key in self.links[0] or ("/" not in key and key in self.links[1])
        if fact.kind == "email":
            stated = None if "emails" in self.__dict__ else self._states_email(str(keys[0]))
            return keys[0] in self.emails if stated is None else stated
        if fact.kind == "phone":
            return self._supports_phone(str(keys[0]))
        if fact.kind == "id":
            return self._supports_id(fact)
        return f" {keys[0]} " in self.quote_text

    def _states_token(self, written: str) -> bool:
        """Whether ``written`` (``A-88213``, ``4170``) stands in the sources whole, as a
        token or the tail of one, so that its ``id_key`` is among ``ids`` (a digit run is a
        whole run of digits); a quick look for the common case, before ``ids`` reads every
        token of the sources."""
        written = written.lstrip("#")
        if not _WRITTEN_TOKEN.fullmatch(written):
            return False
        digits = written.isdigit()
        blob, size = self.blob, len(written)
        at = blob.find(written)
        while at != -1:
            self.budget.check()
            before, after = blob[at - 1 : at] if at else "", blob[at + size : at + size + 2]
            if digits:
                if not (before.isdigit() or after[:1].isdigit()):
                    return True
            elif (
                before not in _ALNUM
                and after[:1] not in _ALNUM
                and not (after[:1] in ("-", "_") and after[1:] in _ALNUM)
            ):
                return True
            at = blob.find(written, at + 1)
        return False

    def _states_email(self, key: str) -> bool | None:
        """Whether ``key`` (lower case) is among ``emails``, told from where it is written,
        before ``emails`` reads every address of the sources; None when that cannot tell.

        In an ASCII text every address lower-cased stands in the text lower-cased, so one
        that is not there is not among them. One that is, not after an "@" (the character
        before it is then in no address, so the scan reaches it) and matched there exactly
        by ``EMAIL``, is the address the scan finds: a text longer than ``scan`` reads whole
        is left to the scan, which reads it in windows."""
        blob = self.blob
        if not blob.isascii():
            return None
        lowered = self.lowered
        at = lowered.find(key)
        if at == -1:
            return False
        if len(blob) > scan.LONG_TEXT_CHARS:
            return None
        while at != -1:
            self.budget.check()
            if not (at and blob[at - 1] == "@"):
                m = EMAIL.match(blob, at)
                if m is not None and m.end() == at + len(key):
                    return True
            at = lowered.find(key, at + 1)
        return None

    def _supports_id(self, fact: Fact) -> bool:
        if any(key in self.ids for key in fact.keys):
            return True
        key = str(fact.keys[0])
        if fact.tail:
            return self.digit_tails.ending_with(key)
        # A digit-only ID may be a number or a phone in a tool's result.
        return key.isdigit() and (Decimal(key) in self.numbers or self._supports_phone(key))

    def _supports_phone(self, digits: str) -> bool:
        """The same national number, or one of seven digits or more that ends the other."""
        number = national_number(digits)
        phones = self.phones
        if number in phones or (len(number) >= 7 and phones.ending_with(number, longer=True)):
            return True
        return phones.ending(number, 7)

    def _supports_amount(self, fact: Fact) -> bool:
        values = [k for k in fact.keys if isinstance(k, Decimal)]
        if any(v in self.numbers for v in values):
            return True
        if fact.plain and values[0] in self.years:
            return True
        if fact.approx:
            for value in values:
                tolerance = round_tolerance(value)
                self.budget.check()
                if any(abs(n - value) <= tolerance for n in self.numbers):
                    return True
        if any(self._in_words(v) for v in values):
            return True
        if fact.percent:
            return False  # a rate, never a total
        terms = self.standalone.terms
        return any(adds_up(v, terms, self.max_sum_terms, self.budget) for v in values)

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
        """Every standalone number, in each reading, as written and with its multiplier;
        a percent also as a rate."""
        return self.standalone.values

    @cached_property
    def standalone(self) -> Standalone:
        claimed: list[Bounds] = [m.span() for m in self.date_matches]
        claimed += (span for span, _ in self.phone_matches)
        claimed += (span for span, _ in self.spaced_ids)
        claimed += compound_spans(self.blob, self.budget, self.folded)
        return Standalone(self.blob, claimed, self.budget)

    def _in_words(self, value: Decimal) -> bool:
        """A source writes ``value`` out in words ("nine hundred"): the spelling is looked up
        in the source text with punctuation folded, one substring search, never a scan."""
        # Only whole numbers in the range ``spellings`` writes out, tested on the Decimal:
        # turning a long one into an int costs time quadratic in its length.
        if value != value.to_integral_value() or not 0 < value < SPELLED_BELOW:
            return False
        # ``quote_text`` keeps the runs of word characters of the sources case-folded, as
        # they are: a spelling with a word the case-folded sources lack is not in it, told
        # without building it (most amounts looked up here are not in words).
        folded = self.casefolded
        found = [w for w in spellings(int(value)) if all(p in folded for p in w.split(" "))]
        text = self.quote_text if found else ""
        return any(f" {words} " in text for words in found)

    @cached_property
    def casefolded(self) -> str:
        return self.blob.casefold()

    @cached_property
    def dates(self) -> _DateSets:
        """(full dates, month-days of any date, year-months, month-days stated without a year)."""
        full: set[DateKey] = set()
        month_days: set[MonthDay] = set()
        month_years: set[tuple[int | None, int]] = set()
        yearless: set[MonthDay] = set()
        around = [self.today + timedelta(days=d) for d in (-1, 0, 1)]
        keys: list[DateKey] = [(d.year, d.month, d.day) for d in around]
        for m in self.date_matches:
            self.budget.check()
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
            for m in scan.finditer(pattern, self.blob, self.budget):
                end = strip_trailing(self.blob, m.start(), m.end())
                keys.add(link_key(self.blob[m.start() : end]))
        hosts = {key.split("/", 1)[0] for key in keys}
        hosts.update(email.rsplit("@", 1)[1] for email in self.emails)
        return keys, hosts

    @cached_property
    def lowered(self) -> str:
        return self.blob.lower()

    @cached_property
    def emails(self) -> frozenset[str]:
        emails = scan.finditer(EMAIL, self.blob, self.budget)
        return frozenset(m.group().lower() for m in emails)

    @cached_property
    def date_matches(self) -> list[re.Match[str]]:
        starts = self._read[1]
        months = None if starts is None else starts["months"]
        return list(find_dates(self.blob, self.budget, months, self.folded))

    @cached_property
    def folded(self) -> str:
        """The sources ``folded.fold``-ed, which the scans for dates and IDs read."""
        return fold(self.blob)

    @cached_property
    def _read(self) -> tuple[frozenset[str], Candidates | None]:
        """The ``SOURCE_GATES`` that open for the sources: most hold no phone number or
        spaced ID, and one gate scan for both costs far less than either pattern's; and
        from the same scan, where ``SOURCE_SEEDS`` match when the gates have them."""
        return (SOURCE_GATES, None) if self.gates is None else self.gates.read(self.blob)

    @property
    def opened(self) -> frozenset[str]:
        return self._read[0]

    @cached_property
    def phone_matches(self) -> list[tuple[Bounds, str]]:
        """(span, digits) of each phone number."""
        if "phone" not in self.opened:
            return []
        if len(self.blob) > scan.LONG_TEXT_CHARS:
            phones = scan.finditer(PHONE, self.blob, self.budget)
        else:  # tried where ``phone_starts`` says one may start: the same matches, sooner
            starts = phone_starts(self.blob, self.folded)
            phones = candidates.matches(PHONE, self.blob, self.budget, starts)
        return [(m.span(), phone_digits(m.group())) for m in phones]

    @cached_property
    def spaced_ids(self) -> list[tuple[Bounds, str]]:
        """(span, key) of each ID written in spaced groups ("MTR 0041 7723")."""
        if "spaced_id" not in self.opened:
            return []
        ids = scan.finditer(SPACED_ID, self.blob, self.budget)
        found = ((m.span(), spaced_id_key(m)) for m in ids)
        return [(span, key) for span, key in found if key is not None]

    @cached_property
    def phones(self) -> Suffixes:
        """National numbers of phones and of every digit run of seven or more."""
        found = {national_number(digits) for _, digits in self.phone_matches}
        found.update(national_number(run) for run in self.digit_runs if len(run) >= 7)
        return Suffixes(found, self.budget)

    @cached_property
    def digit_runs(self) -> frozenset[str]:
        """Every run of digits, each once."""
        return frozenset(scan.findall(DIGITS, self.blob, self.budget))

    @cached_property
    def digit_tails(self) -> Suffixes:
        """``digit_runs``, searchable by how they end."""
        return Suffixes(self.digit_runs, self.budget)

    @cached_property
    def ids(self) -> frozenset[str]:
        """Every token holding a digit, its tails, and every digit run, canonical; a padded
        flight number also without its padding."""
        found: set[str] = set()
        distinct = set(scan.findall(SOURCE_TOKEN, self.blob, self.budget))
        tokens = chain(map(ID_SEPARATOR.split, distinct), ([key] for _, key in self.spaced_ids))
        for seen, parts in enumerate(tokens):
            if not seen % _CHECK_EVERY:
                self.budget.check()
            key = id_key("".join(parts))
            found.add(key)
            if len(key) <= 7 and (flight := flight_key(key)) is not None:
                found.add(flight)
            # The tail of a compound ID is the same reference: "2024-0042" of "ORD-2024-0042".
            for i in range(1, len(parts)):
                self.budget.check()  # each tail is as long as the ID: "1-1-1-..." has many
                found.add(id_key("".join(parts[i:])))
        found.update(self.digit_runs)
        return frozenset(found)

    @cached_property
    def quote_text(self) -> str:
        """The sources lower-cased, each run of punctuation and spaces one space."""
        return f" {long_quote_key(self.blob, self.budget)} "
