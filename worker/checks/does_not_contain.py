"""``does_not_contain``: none of a list of phrases may appear, as whole words.

Matching ignores case and accents and treats any run of white space in a
phrase as any run in the text, so "Acme  Support" finds "ACME support".
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from turncheck.schemas.checkfile import DoesNotContainCheck
from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import Gates
from turncheck.worker.checks.gates.literals import phrase_gates
from turncheck.worker.checks.result import PASSED, Outcome, Span, Verdict
from turncheck.worker.checks.textmap import fold
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turn import Turn

REASON = "The text contains a banned phrase."


def _folded(phrases: list[str]) -> set[str]:
    return {fold(p, Budget.unlimited()).text.strip() for p in phrases}


def _phrase_regex(phrases: list[str]) -> regex.Pattern[str]:
    parts = []
    folded = _folded(phrases)
    for phrase in sorted(folded, key=len, reverse=True):
        body = r"\s+".join(regex.escape(word) for word in phrase.split())
        # Boundaries only where the phrase itself starts or ends with a word
        # character: "C++" must still match before a space.
        head = r"(?<!\w)" if regex.match(r"\w", phrase) else ""
        tail = r"(?!\w)" if regex.search(r"\w$", phrase) else ""
        parts.append(f"{head}{body}{tail}")
    return regex.compile("|".join(parts))


def compile_check(definition: DoesNotContainCheck) -> Callable[[Turn, Budget], Outcome]:
    phrases = _phrase_regex(definition.phrases)
    gates = Gates(phrase_gates(sorted(_folded(definition.phrases))))
    stage = definition.stage

    def run(turn: Turn, budget: Budget) -> Outcome:
        spans: list[Span] = []
        for field, text in stage_texts(turn, stage, with_rounds=True):
            budget.check()
            folded = fold(text, budget)
            if not gates.open(folded.text):
                continue  # each phrase misses a word in the text: none can match
            for match in scan.finditer(phrases, folded.text, budget):
                start, end = folded.span(match.start(), match.end())
                spans.append(Span(field, start, end, "phrase"))
        if spans:
            return Outcome(Verdict.FAILED, REASON, tuple(spans))
        return PASSED

    return run
