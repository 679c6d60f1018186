"""``does_not_contain``: none of a list of phrases may appear, as whole words.

Matching ignores case and accents and treats any run of white space in a
phrase as any run in the text, so "Acme  Support" finds "ACME support". It also
reads the text as a reader sees it (``markup.plain``): trademark signs,
emphasis and HTML tags hide no phrase, so ``**Acme** Support``, ``<b>Acme</b>
Support`` and ``Acme Support™`` are "Acme Support". Both readings count: what
the text as written matches still does (a phrase inside a link target, say).
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from turncheck.schemas.checkfile import DoesNotContainCheck
from turncheck.worker.checks import markup, scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import Gates
from turncheck.worker.checks.gates.literals import phrase_gates
from turncheck.worker.checks.result import PASSED, Outcome, Span, Verdict
from turncheck.worker.checks.textmap import MappedText, fold
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turns.structs import Turn

REASON = "The text contains a banned phrase."


def _folded(phrases: list[str]) -> set[str]:
    return {fold(_read(p), Budget.unlimited()).text.strip() for p in phrases}


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


def _read(phrase: str) -> str:
    """A phrase read like the text: "Acme™ Support" is the phrase "Acme Support". One
    that is all markup ("<br>") stays as written: it has no words to read otherwise."""
    plain = markup.plain(phrase, Budget.unlimited()).text
    return plain if any(ch.isalnum() for ch in plain) else phrase


def compile_check(definition: DoesNotContainCheck) -> Callable[[Turn, Budget], Outcome]:
    phrases = _phrase_regex(definition.phrases)
    gates = Gates(phrase_gates(sorted(_folded(definition.phrases))))
    stage = definition.stage

    def run(turn: Turn, budget: Budget) -> Outcome:
        spans: list[Span] = []
        for field, text in stage_texts(turn, stage, with_rounds=True):
            budget.check()
            found = _found(phrases, gates, fold(text, budget), budget)
            view = markup.plain(text, budget)
            if view.breaks:  # markup was taken out: what a reader sees may hold more
                for start, end in _found(phrases, gates, fold(view.text, budget), budget):
                    found.append(view.span(start, end))
            spans.extend(Span(field, start, end, "phrase") for start, end in sorted(set(found)))
        if spans:
            return Outcome(Verdict.FAILED, REASON, tuple(spans))
        return PASSED

    return run


def _found(
    phrases: regex.Pattern[str], gates: Gates, folded: MappedText, budget: Budget
) -> list[tuple[int, int]]:
    """Spans of the phrases in the text ``folded`` was folded from."""
    if not gates.open(folded.text):
        return []  # each phrase misses a word in the text: none can match
    return [folded.span(*m.span()) for m in scan.finditer(phrases, folded.text, budget)]
