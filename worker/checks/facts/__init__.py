"""``facts``: every fact in the answer must come from the conversation.

The answer (``output.text``) is read like a person reads it (``extract``):
amounts, dates, links, email addresses, phone numbers, IDs and quoted phrases.
Each is compared by canonical value, never by surface, with what the
conversation put in front of the agent (``sources``): ``$1,200.00`` is
``1200``, ``nine hundred`` is ``900``, ``(555) 010-2030`` is ``5550102030``.
A total that adds up two to ``max_sum_terms`` source amounts is supported too
(``sums``). Values in the check's ``allowed`` list are always supported.

The outcome is ``failed`` when any checked fact is unsupported: the reason
names the kind of the first one in text order, never the fact, and one span
per unsupported fact points into ``output.text``. The check raises
``BudgetSpent`` when the turn's budget runs out; the caller marks the result
errored.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from turncheck.schemas.checkfile import FactKind, FactsCheck
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts.allowed import AllowedPhrases
from turncheck.worker.checks.facts.extract import Fact
from turncheck.worker.checks.facts.index import source_gates
from turncheck.worker.checks.facts.reading import reading_of
from turncheck.worker.checks.gates import Gates, engine_name
from turncheck.worker.checks.gates.facts import FACT_GATES, FACT_SEEDS
from turncheck.worker.checks.result import PASSED, Outcome, Span, Verdict
from turncheck.worker.turns.structs import Turn

__all__ = ["REASONS", "compile_check"]

REASONS: dict[FactKind, str] = {
    "amount": "An amount is not supported by the conversation.",
    "date": "A date is not supported by the conversation.",
    "link": "A link is not supported by the conversation.",
    "email": "An email address is not supported by the conversation.",
    "phone": "A phone number is not supported by the conversation.",
    "id": "An ID is not supported by the conversation.",
    "quote": "A quoted phrase is not supported by the conversation.",
}


def _inside(fact: Fact, starts: list[int], ends: list[int]) -> bool:
    """Whether ``fact`` lies inside one of the spans (in order and apart, as a scan finds
    them) starting at ``starts`` and ending at ``ends``: only the last one starting at or
    before it can hold it."""
    k = bisect_right(starts, fact.start)
    return k > 0 and fact.end <= ends[k - 1]


def compile_check(definition: FactsCheck) -> Callable[[Turn, Budget], Outcome]:
    """Compile a ``facts`` definition once; the returned call is pure and thread-safe."""
    kinds = frozenset(definition.kinds)
    allowed = tuple(definition.allowed)
    allowed_phrases = AllowedPhrases(definition.allowed)
    max_sum_terms = definition.max_sum_terms
    # The seeds spare two scans on Hyperscan; the pure-Python engine would pay a scan per
    # seed for them, more than the scans they spare.
    seeded = engine_name() == "hyperscan"
    gates = Gates(FACT_GATES, seeds=FACT_SEEDS if seeded else None)
    gated = gates.engine != "off"
    sources_gates = source_gates(seeded)
    index_key = (allowed, max_sum_terms)

    def run(turn: Turn, budget: Budget) -> Outcome:
        budget.check()
        reading = reading_of(turn, budget)
        answer = reading.answer(gates if gated else None)
        facts = [f for f in answer.facts if f.kind in kinds]
        if not facts:
            return PASSED
        text = answer.text
        if allowed_phrases.regex is not None:
            # An allowed string written out in the answer covers the facts in it.
            covered = allowed_phrases.spans(text.text, budget)
            starts, ends = [s for s, _ in covered], [e for _, e in covered]
            facts = [f for f in facts if not _inside(f, starts, ends)]
        index = reading.index(index_key, sources_gates)
        unsupported = []
        for fact in facts:
            budget.check()
            if not index.supports(fact, text.text[fact.start : fact.end]):
                unsupported.append(fact)
        if not unsupported:
            return PASSED
        spans = tuple(
            Span("output.text", *text.span(f.start, f.end), label=f.kind) for f in unsupported
        )
        return Outcome(Verdict.FAILED, REASONS[unsupported[0].kind], spans)

    return run
