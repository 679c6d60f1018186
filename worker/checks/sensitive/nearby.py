"""Whole-word keyword proximity, shared by the detectors that need a label.

A number alone is often ambiguous (nine digits may be an SSN, a routing
number or an order number); the words around it decide. ``Keywords`` compiles
a set of words and phrases once and answers, for a span of the text, whether
one of them is near it, or which one is the closest label before or after it.

Matching is case-insensitive and whole-word: a keyword never matches inside a
longer word, so "lic" never fires inside "public" and "born" not inside
"airborne". Only letters count as word characters at the edges, so "SS#",
"DL:" and "acct12345678" still show their keyword. Inside a phrase, a space
matches any run of white space, hyphens or underscores ("date-of-birth",
"driver_license" as a JSON key) and an apostrophe is optional and may be
curly ("drivers license", "driver\N{RIGHT SINGLE QUOTATION MARK}s license").
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget

DEFAULT_WINDOW_CHARS = 80
# Straight, right single quotation mark and modifier letter apostrophe.
_APOSTROPHES = "'\u2019\u02bc"


def _phrase(phrase: str) -> str:
    parts = []
    for ch in phrase:
        if ch.isspace():
            parts.append(r"[\s\-_]+")
        elif ch in _APOSTROPHES:
            parts.append(f"[{_APOSTROPHES}]?")
        else:
            parts.append(regex.escape(ch))
    # Collapse repeated space runs that a double space in a phrase would make.
    return "".join(parts).replace(r"[\s\-_]+[\s\-_]+", r"[\s\-_]+")


def _needle(phrase: str) -> str:
    """The longest piece of ``phrase`` that ``_phrase`` matches literally, case-folded."""
    pieces = "".join(" " if ch.isspace() or ch in _APOSTROPHES else ch for ch in phrase)
    return max(pieces.split(), key=len).casefold()


class Keywords:
    """A compiled set of whole-word keywords; immutable and safe to share."""

    __slots__ = ("_longest", "_needles", "_pattern")

    def __init__(self, phrases: Iterable[str]) -> None:
        words = sorted({p.strip() for p in phrases if p.strip()}, key=len, reverse=True)
        if not words:
            raise ValueError("Keywords needs at least one phrase.")
        alternation = "|".join(_phrase(w) for w in words)
        self._pattern = regex.compile(
            rf"(?<!\p{{L}})(?:{alternation})(?!\p{{L}})", regex.IGNORECASE
        )
        # Every match holds, case-folded, the longest literal piece of its phrase:
        # a substring test for these rules most texts out before any regex runs.
        needles = {_needle(w) for w in words}
        # One needle inside another ("ss" in "ssn") makes the longer one redundant.
        self._needles = tuple(n for n in needles if not any(o != n and o in n for o in needles))
        # A keyword's printed length can exceed its phrase's (runs of spaces);
        # twice the phrase is a generous bound for the scan margins below.
        self._longest = 2 * len(words[0]) + 8

    @property
    def needles(self) -> tuple[str, ...]:
        """Case-folded literals one of which every keyword found holds (gates read them)."""
        return self._needles

    def all_in(self, text: str, budget: Budget) -> list[tuple[int, int]]:
        """Every keyword of ``text``, in order; ``[]`` at once when none can be there.

        Each keyword found in a part of ``text`` (``near``, ``last_in``,
        ``first_in``) overlaps one of these, so a span with none of them within
        its windows has no label of this set.
        """
        # The regex matches "İ" (U+0130) as "i", which case-folds to "i" + U+0307.
        folded = text.casefold().replace("\u0307", "")
        if not any(needle in folded for needle in self._needles):
            return []
        return [m.span() for m in scan.finditer(self._pattern, text, budget)]

    def _spans(self, text: str, lo: int, hi: int) -> list[tuple[int, int]]:
        """Keywords that start and end inside ``text[lo:hi]``, in order."""
        lo, hi = max(lo, 0), min(hi, len(text))
        if lo >= hi:
            return []
        # One character past ``hi`` so the whole-word check sees what follows:
        # "lic" at the edge of the window must not match the start of "license".
        found = self._pattern.finditer(text, lo, min(hi + 1, len(text)))
        return [m.span() for m in found if m.end() <= hi]

    def near(
        self,
        text: str,
        start: int,
        end: int,
        before: int = DEFAULT_WINDOW_CHARS,
        after: int = DEFAULT_WINDOW_CHARS,
    ) -> bool:
        """Whether a keyword overlaps ``text[start - before : end + after]``."""
        lo, hi = start - before, end + after
        margin = self._longest
        return any(e > lo and s < hi for s, e in self._spans(text, lo - margin, hi + margin))

    def last_in(self, text: str, lo: int, hi: int) -> int:
        """End offset of the last keyword wholly inside ``text[lo:hi]``; -1 if none."""
        spans = self._spans(text, lo, hi)
        return spans[-1][1] if spans else -1

    def last_span_in(self, text: str, lo: int, hi: int) -> tuple[int, int] | None:
        """``(start, end)`` of the last keyword wholly inside ``text[lo:hi]``; None if none."""
        spans = self._spans(text, lo, hi)
        return spans[-1] if spans else None

    def first_span_in(self, text: str, lo: int, hi: int) -> tuple[int, int] | None:
        """``(start, end)`` of the first keyword wholly inside ``text[lo:hi]``; None if none."""
        spans = self._spans(text, lo, hi)
        return spans[0] if spans else None

    def first_in(self, text: str, lo: int, hi: int) -> int:
        """Start offset of the first keyword wholly inside ``text[lo:hi]``; -1 if none."""
        spans = self._spans(text, lo, hi)
        return spans[0][0] if spans else -1


def overlaps(spans: list[tuple[int, int]], lo: int, hi: int) -> bool:
    """Whether one of ``spans`` (in order, not overlapping, from ``all_in``) overlaps ``lo:hi``."""
    i = bisect_left(spans, (hi,))
    return i > 0 and spans[i - 1][1] > lo


_LAST_NUMBER = regex.compile(r"[0-9]{3,}", regex.REVERSE)
_NEXT_NUMBER = regex.compile(r"[0-9]{3,}")


def label_is(
    text: str,
    start: int,
    end: int,
    wanted: Keywords,
    other: Keywords,
    before: int = DEFAULT_WINDOW_CHARS,
    after: int = DEFAULT_WINDOW_CHARS,
    *,
    wanted_first: bool = False,
) -> bool:
    """Whether the label closest to ``text[start:end]`` is one of ``wanted``, not of ``other``.

    The label before the span counts first ("account balance is 1500" is a
    balance, "order 1234 on your account" an order); only when there is none
    does the first one after it ("12345678 is my account number"). The search
    stops at another number of three or more digits, whose label that is.
    With ``wanted_first``, any ``wanted`` label before the span wins, however
    close a rival is ("the routing number of your account is ...").
    """
    lo = start - before
    previous = _LAST_NUMBER.search(text, max(lo, 0), start)
    if previous is not None:
        lo = previous.end()
    got, rival = wanted.last_in(text, lo, start), other.last_in(text, lo, start)
    if got >= 0 or rival >= 0:
        return got > rival or (wanted_first and got >= 0)
    hi = end + after
    following = _NEXT_NUMBER.search(text, end, min(hi, len(text)))
    if following is not None:
        hi = following.start()
    got, rival = wanted.first_in(text, end, hi), other.first_in(text, end, hi)
    return got >= 0 and (rival < 0 or got < rival)
