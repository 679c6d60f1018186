"""One reading of a turn, shared by every ``facts`` check that runs on it.

A check set may hold several ``facts`` checks (one per kind, a strict one and a
lenient one): each used to normalise the answer, extract its facts and build its
own ``SourceIndex``, reading the same kilobytes again. Here the answer's facts
and each source index are kept for the turn's life, the run of checks that
share one ``Budget`` (``pipeline.evaluate``), and the next check reads them.

What determines each, and so keys it:

* the answer's facts: the answer alone, extracted for every kind (a check then
  keeps the kinds it checks);
* a source index: the turn's sources plus the check's ``allowed`` values (a
  source too), and ``max_sum_terms`` (the sums search); within an index each
  kind's set is built on the first fact that needs it and kept, so a later
  check of the same kind reads it, never builds it again.

The cache holds one turn per thread, by identity (the turn and its budget), and
is dropped when another comes: no check sees another turn's reading, and a
thread pool running checks stays safe. The last turn's reading stays in memory
until the thread's next ``facts`` check: one turn's worth, never more.
Everything kept is a value computed from the turn, so a check is still a
function of its turn; nothing is built when a budget runs out midway
(``BudgetSpent`` leaves no entry).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.extract import Fact, extract_facts
from turncheck.worker.checks.facts.index import SourceIndex
from turncheck.worker.checks.facts.sources import join_sources, source_texts
from turncheck.worker.checks.gates import Gates
from turncheck.worker.checks.textmap import MappedText, normalize
from turncheck.worker.turns.structs import Turn

IndexKey = tuple[tuple[str, ...], int]
"""(``allowed``, ``max_sum_terms``) of a check: with the turn, what its index holds."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The answer normalised, and every fact in it in text order, offsets into ``text``."""

    text: MappedText
    facts: tuple[Fact, ...]


class TurnReading:
    """The answer's facts and the source indexes of one turn, built on first use."""

    def __init__(self, turn: Turn, budget: Budget) -> None:
        self.turn = turn
        self.budget = budget
        self._answer: Answer | None = None
        self._indexes: dict[IndexKey, SourceIndex] = {}

    def answer(self, gates: Gates | None) -> Answer:
        """The answer read once; ``gates``: the extractors' (``gates.facts``), None for off.
        Gates (and their seeds) decide only which scans run and where, never what they
        find, so the first check's gates serve every check."""
        if self._answer is None:
            text = normalize(self.turn.output.text, self.budget)
            opened, starts = gates.read(text.text) if gates is not None else (None, None)
            facts = tuple(extract_facts(text.text, self.budget, opened, starts))
            self._answer = Answer(text, facts)
        return self._answer

    def index(self, key: IndexKey, gates: Gates | None) -> SourceIndex:
        """The sources with ``key``'s ``allowed`` values, indexed for ``key``'s sums;
        ``gates``: ``index.SOURCE_GATES`` compiled (``index.source_gates``), the first
        check's serving every check as in ``answer``."""
        index = self._indexes.get(key)
        if index is None:
            allowed, max_sum_terms = key
            blob = join_sources(source_texts(self.turn, allowed, self.budget), self.budget)
            today = self.turn.created_at.date()
            index = SourceIndex(blob, today, max_sum_terms, self.budget, gates)
            self._indexes[key] = index
        return index


class _Last(threading.local):
    reading: TurnReading | None = None


_last = _Last()


def reading_of(turn: Turn, budget: Budget) -> TurnReading:
    """The reading of ``turn`` under ``budget``: the one the turn's previous ``facts``
    check made in this thread, or a new one (which replaces it)."""
    last = _last.reading
    if last is not None and last.turn is turn and last.budget is budget:
        return last
    reading = TurnReading(turn, budget)
    _last.reading = reading
    return reading
