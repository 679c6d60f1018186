"""Which source numbers end with which digits: the tail lookups of ``index``.

An answer's "ending in 4170" is supported by a card number in a tool's result
that ends so, and "+49 30 901820" by a source's "030 901820". A set of every
tail of every number answered these in one lookup, but a number n digits long
has n tails of n/2 digits on average: one long run of digits in a source made
that quadratic. Here the numbers are kept reversed and sorted, so the numbers
ending with some digits are the ones starting with them reversed, next to each
other, found by bisection.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from turncheck.worker.checks.budget import Budget

# Reversing the numbers checks the budget once per so many.
_CHECK_EVERY = 1024


class Suffixes:
    """A set of digit strings, searchable by how they end."""

    def __init__(self, numbers: Iterable[str], budget: Budget) -> None:
        self.numbers = frozenset(numbers)
        listed = list(self.numbers)
        reversed_: list[str] = []
        for first in range(0, len(listed), _CHECK_EVERY):
            budget.check()
            reversed_.extend(n[::-1] for n in listed[first : first + _CHECK_EVERY])
        reversed_.sort()
        self._reversed = reversed_
        self._lengths = sorted({len(n) for n in self.numbers})

    def __contains__(self, number: str) -> bool:
        return number in self.numbers

    def ending_with(self, tail: str, *, longer: bool = False) -> bool:
        """Whether a number ends with ``tail``; with ``longer``, one longer than ``tail``."""
        key = tail[::-1]
        i = bisect_left(self._reversed, key)
        # The numbers starting with ``key`` follow it in order, ``key`` itself first.
        if longer and i < len(self._reversed) and self._reversed[i] == key:
            i += 1
        return i < len(self._reversed) and self._reversed[i].startswith(key)

    def ending(self, number: str, shortest: int) -> bool:
        """Whether a number of ``shortest`` digits or more, shorter than ``number``, ends it."""
        return any(
            number[-size:] in self.numbers
            for size in self._lengths
            if shortest <= size < len(number)
        )
