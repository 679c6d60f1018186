"""Waits that grow between tries of something that failed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Backoff:
    """Successive waits: ``next_s``, doubling, at most ``max_s``."""

    next_s: float
    max_s: float

    def take(self) -> float:
        current, self.next_s = self.next_s, min(self.next_s * 2, self.max_s)
        return current
