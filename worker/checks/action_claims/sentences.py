"""Sentences and clauses of an answer, as offsets into the text read.

The detectors elsewhere split sentences on word indices of their own texts
(``sensitive.copies``); a claim is judged on the characters around its verb,
so this splitter keeps character offsets. A sentence ends at ``.``, ``!`` or
``?`` before white space, at a line break (a bullet or a heading is its own
sentence) and at the end of the text. A clause ends at ``;``, a spaced dash, or
a comma or "but" that joins another clause ("..., and once it is approved ...").
"""

from __future__ import annotations

from collections.abc import Iterator

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget

_SENTENCE_END = regex.compile(r"[.!?]+[\"'\u201d)\]*_]*(?=\s|$)|\n")
_CLAUSE_END = regex.compile(
    r";|\s-\s|,?\s+but\s+|,\s*(?:so|while|although|though|however|whereas|"
    r"and|or|then|plus)\s+|\s+(?:and|so)\s+(?=(?:the|your|my|our|i|i'|we|it|it's|a|an|you|"
    r"this|that|they|if|once|when|after|as\s+soon|unless|until|there)\b)",
    regex.IGNORECASE,
)


def sentences(text: str, budget: Budget) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each sentence holding a letter, without the white space
    around it."""
    start = 0
    for match in scan.finditer(_SENTENCE_END, text, budget):
        yield from _trimmed(text, start, match.end())
        start = match.end()
    yield from _trimmed(text, start, len(text))


def clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each clause of the sentence ``text[start:end]``."""
    found = []
    for match in _CLAUSE_END.finditer(text, start, end):
        found.append((start, match.start()))
        start = match.end()
    found.append((start, end))
    return [(s, e) for s, e in found if e > s]


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start and any(ch.isalpha() for ch in text[start:end]):
        yield start, end
