"""Waits that grow between tries of something that failed."""

from __future__ import annotations

from dataclasses import dataclass, field

# 2.0 ** 1024 raises OverflowError; 2.0 ** 1023 times any positive wait is past any ceiling.
_MAX_DOUBLINGS = 1023


def doubled_s(first_s: float, max_s: float, attempt: int) -> float:
    """``first_s`` doubled ``attempt - 1`` times (``attempt`` counts from 1), at most
    ``max_s``; never raises, however many attempts were made."""
    return min(max_s, first_s * 2.0 ** min(max(attempt - 1, 0), _MAX_DOUBLINGS))


@dataclass(slots=True)
class Backoff:
    """Successive waits: ``first_s``, doubling, at most ``max_s``; ``reset`` after a success."""

    first_s: float
    max_s: float
    _next_s: float = field(init=False)

    def __post_init__(self) -> None:
        self._next_s = self.first_s

    def take(self) -> float:
        current, self._next_s = self._next_s, min(self._next_s * 2, self.max_s)
        return current

    def reset(self) -> None:
        self._next_s = self.first_s
