"""The numbers that stand on their own in the sources: the only ones that support an amount.

The digits of a date, a phone number, an ID or a time belong to that fact.
Read as amounts they once supported "30 days" with the area code of ``+49 30
901820``, and "491 kWh" as a total of 41 (meter ``MTR 0041 7723``), 419 and 31
(``2026-01-31``). So the sources are read as the answer is: dates, phones and
IDs (spaced, or digit groups joined by hyphens that ``is_id_token`` calls an
ID) claim their characters first; a number is standalone when none of its
characters was claimed and it is not glued to a word, nor a time, an ordinal
or a version (``numbers.SOURCE_NUMBER``).

Those digits still support the same date, phone or ID in the answer: ``index``
reads them for those kinds from the whole text.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from functools import cached_property

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.extract import is_id_token
from turncheck.worker.checks.facts.folded import fold, folded
from turncheck.worker.checks.facts.numbers import CURRENCY, SOURCE_NUMBER, readings, scaled
from turncheck.worker.checks.facts.patterns import COMPOUND

Bounds = tuple[int, int]
# A word character: a number right after a claimed span is glued to it.
_CLAIMED = "_"
# Characters either side that tell two statements of one value apart.
_AROUND = 32
# Reading the sources' numbers checks the budget once per so many forms.
_CHECK_EVERY = 1024
_CURRENCY = frozenset(CURRENCY)
# ``COMPOUND`` to run on the sources ``fold``-ed: a quicker scan, the same spans.
_FOLDED_COMPOUND = folded(COMPOUND)


def compound_spans(blob: str, budget: Budget, folded_blob: str | None = None) -> list[Bounds]:
    """Spans of the IDs among digit groups joined by hyphens or underscores;
    ``folded_blob``: ``folded.fold(blob)`` when the caller has it."""
    spans = []
    folded_blob = fold(blob) if folded_blob is None else folded_blob
    for m in scan.finditer(_FOLDED_COMPOUND, folded_blob, budget):
        start, end = m.span()
        # The digits of "ORD-2024-0042": a code led it, so it is an ID whatever follows.
        led_by_code = start > 1 and blob[start - 1] in "-_" and blob[start - 2].isalpha()
        if led_by_code or is_id_token(blob[start:end]):
            spans.append((start, end))
    return spans


def _masked(blob: str, spans: Iterable[Bounds]) -> str:
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        start = max(start, pos)
        pieces += (blob[pos:start], _CLAIMED * (end - start))
        pos = end
    if not pieces:
        return blob
    pieces.append(blob[pos:])
    return "".join(pieces)


class Standalone:
    """The numbers of a source text outside the ``claimed`` spans."""

    def __init__(self, blob: str, claimed: Iterable[Bounds], budget: Budget) -> None:
        self.text = _masked(blob, claimed)
        self.budget = budget
        # ``readings`` of each ``num`` read: ``terms`` reads again the figures ``values`` read.
        self._readings: dict[str, tuple[Decimal, ...]] = {}

    def _readings_of(self, num: str) -> tuple[Decimal, ...]:
        found = self._readings.get(num)
        if found is None:
            found = self._readings[num] = readings(num)
        return found

    @cached_property
    def values(self) -> frozenset[Decimal]:
        """Every reading, as written and with its multiplier; a percent also as a rate."""
        found: set[Decimal] = set()
        # Sources repeat their figures: each written form is read once.
        forms = set(scan.findall(SOURCE_NUMBER, self.text, self.budget))
        for seen, (num, mult, pct) in enumerate(forms):
            if not seen % _CHECK_EVERY:
                self.budget.check()
            for raw in self._readings_of(num):
                found.add(raw)
                value = scaled(raw, mult)
                if value is not None:
                    found.add(value)
                if pct:
                    found.add(raw.scaleb(-2))
        return frozenset(found)

    @cached_property
    def terms(self) -> tuple[Decimal, ...]:
        """Amounts a total may add up, in source order, once per statement.

        Not percents, bare single digits or years (a total of random digits would
        support any number). A value is stated again only with other text around it:
        two charges of 240 with their own IDs are two terms, a policy sentence
        repeated in two passages is one.
        """
        text = self.text
        terms: list[Decimal] = []
        stated: dict[Decimal, set[str]] = {}
        for m in scan.finditer(SOURCE_NUMBER, text, self.budget):
            self.budget.check()
            num, mult, pct = m.group("num", "mult", "pct")
            if pct:
                continue
            found = self._readings_of(num)
            term = scaled(found[0], mult) if found else None
            if term is None:
                continue
            start, end = m.span()
            plain = not (mult or "." in num or "," in num or " " in num)
            # Bare single digits and years are terms only with a currency ("$5").
            small_or_year = term < 10 or 1900 <= term <= 2100
            currency = not _CURRENCY.isdisjoint(text[max(0, start - 2) : start])
            if plain and small_or_year and not currency:
                continue
            around = text[max(0, start - _AROUND) : end + _AROUND]
            if around in stated.setdefault(term, set()):
                continue  # the same statement again: a passage quoted twice
            stated[term].add(around)
            terms.append(term)
        return tuple(terms)
