"""Where the check's ``allowed`` strings stand in the answer: the facts inside are covered.

One alternation of the phrases, longest first, ignoring case, read from the left
as ``finditer`` reads it. That pattern opens with no literal and no class ``re``
can skip ahead to, so it was tried at every character of the answer. In ASCII
text and phrases, ignoring case is lower-casing, and each phrase is a literal:
``str.find`` finds each one's occurrences, and the leftmost, first phrase first,
past the one before, are the spans ``finditer`` gives.
"""

from __future__ import annotations

import re

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.textmap import normalize_plain

_Bounds = tuple[int, int]


class AllowedPhrases:
    """A check's ``allowed`` strings, normalised as the answer is, compiled once."""

    def __init__(self, allowed: list[str]) -> None:
        # Matched against the normalised answer, so normalised the same way.
        normalised = (normalize_plain(a, Budget.unlimited()).strip() for a in allowed)
        phrases = sorted({a for a in normalised if a}, key=len, reverse=True)
        self.regex = (
            re.compile("|".join(re.escape(p) for p in phrases), re.IGNORECASE) if phrases else None
        )
        ascii_ = all(p.isascii() for p in phrases)
        self._lowered = tuple(p.lower() for p in phrases) if ascii_ else None

    def spans(self, text: str, budget: Budget) -> list[_Bounds]:
        """The spans of ``regex``'s matches in ``text``, as ``finditer`` gives them."""
        if self.regex is None:
            return []
        if self._lowered is None or not text.isascii() or len(text) > scan.LONG_TEXT_CHARS:
            return [m.span() for m in scan.finditer(self.regex, text, budget)]
        return _leftmost(text.lower(), self._lowered)


def _leftmost(text: str, phrases: tuple[str, ...]) -> list[_Bounds]:
    """What an alternation of the literals ``phrases`` matches in ``text``, read from the
    left: the leftmost occurrence past the last match, the first phrase there."""
    found: list[tuple[int, int, int]] = []
    for order, phrase in enumerate(phrases):
        at = text.find(phrase)
        while at != -1:
            found.append((at, order, at + len(phrase)))
            at = text.find(phrase, at + 1)
    found.sort()
    spans = []
    resume = 0
    for start, _, end in found:
        if start >= resume:
            spans.append((start, end))
            resume = end
    return spans
