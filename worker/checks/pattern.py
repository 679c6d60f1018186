"""``pattern``: a regular expression that must not match.

The pattern reads the text normalised (NFKC, dashes as '-', every script's digits
as ASCII, invisible characters removed), so such characters cannot hide a match,
and the text as written too, so a pattern that spells out an en dash still
matches it; spans point into the text as stored. A match may be narrowed by
context keywords (whole words within a window of characters around it) and by
the card checksum. The pattern runs under a time
limit, its own ``timeout_ms`` or what is left of the turn's budget if that is
less, checked between matches too: a pattern that runs away, or matches a
million times, leaves the result ``errored``, never a hung worker.
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from turncheck.schemas.checkfile import PatternCheck
from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget, BudgetSpent
from turncheck.worker.checks.gates import Gates
from turncheck.worker.checks.gates.literals import pattern_gate
from turncheck.worker.checks.result import PASSED, Outcome, Span, Verdict
from turncheck.worker.checks.textmap import MappedText, normalize
from turncheck.worker.checks.texts import stage_texts
from turncheck.worker.turns.structs import Turn

REASON = "The text matches the check's pattern."

FLAGS = {
    "ignorecase": regex.IGNORECASE,
    "multiline": regex.MULTILINE,
    "dotall": regex.DOTALL,
    "verbose": regex.VERBOSE,
    "ascii": regex.ASCII,
}


def _keywords_regex(keywords: list[str]) -> regex.Pattern[str] | None:
    if not keywords:
        return None
    words = "|".join(regex.escape(k) for k in sorted(keywords, key=len, reverse=True))
    # Whole words only: a keyword "lic" must not fire inside "public".
    return regex.compile(rf"(?<!\w)(?:{words})(?!\w)", regex.IGNORECASE)


_NOT_DIGIT = regex.compile(r"[^0-9]+")
# The digit sum of each digit doubled, as the checksum counts every second digit.
_DOUBLED = (0, 2, 4, 6, 8, 1, 3, 5, 7, 9)


def _passes_luhn(matched: str) -> bool:
    """The card checksum of the match's digits, counted in C: a match may be megabytes long."""
    digits = _NOT_DIGIT.sub("", matched)[::-1]
    if len(digits) < 2:
        return False
    kept, doubled = digits[::2], digits[1::2]
    total = sum(d * kept.count(str(d)) + _DOUBLED[d] * doubled.count(str(d)) for d in range(10))
    return total % 10 == 0


def compile_check(definition: PatternCheck) -> Callable[[Turn, Budget], Outcome]:
    flags = 0
    for name in definition.flags:
        flags |= FLAGS[name]
    pattern = regex.compile(definition.pattern, flags)
    gate = pattern_gate(
        definition.pattern, "ignorecase" in definition.flags, "verbose" in definition.flags
    )
    gates = Gates({"pattern": gate})
    keywords = _keywords_regex(definition.context_keywords)
    window = definition.context_window_chars
    use_luhn = definition.luhn
    stage = definition.stage

    def counts(text: str, match: regex.Match[str]) -> bool:
        if use_luhn and not _passes_luhn(match.group()):
            return False
        if keywords is not None:
            nearby = text[max(0, match.start() - window) : match.end() + window]
            return keywords.search(nearby) is not None
        return True

    def run(turn: Turn, budget: Budget) -> Outcome:
        limit: Budget | None = None  # the pattern's own clock starts at its first scan
        spans: list[Span] = []
        try:
            for field, stored in stage_texts(turn, stage, with_rounds=True):
                budget.check()
                mapped = normalize(stored, budget)
                readings = [mapped]
                if mapped.text != stored:
                    # A pattern that spells out a character normalising rewrites (an en
                    # dash, an Arabic digit) still matches the text as written.
                    readings.append(MappedText(stored))
                found: set[tuple[int, int]] = set()
                for reading in readings:
                    text = reading.text
                    if not gates.open(text):
                        continue  # a literal every match holds is not in the text
                    limit = limit or budget.capped_ms(definition.timeout_ms)
                    for match in scan.finditer(pattern, text, limit, runaway=True):
                        if match.end() > match.start() and counts(text, match):
                            found.add(reading.span(match.start(), match.end()))
                spans.extend(Span(field, start, end, "pattern") for start, end in sorted(found))
        except BudgetSpent:
            if budget.remaining_s() <= 0:
                raise
            return Outcome.errored(
                f"The pattern ran past its time limit of {definition.timeout_ms} ms."
            )
        if spans:
            return Outcome(Verdict.FAILED, REASON, tuple(spans))
        return PASSED

    return run
