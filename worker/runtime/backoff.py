"""Waits that grow between tries of something that failed."""

from __future__ import annotations

from dataclasses import dataclass, field


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
