"""How many of some results passed: the one shape behind every rate a page shows (an
overview period, a chart's hour or day)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PassTally:
    passed: int = 0
    total: int = 0

    @property
    def rate(self) -> float | None:
        """passed / total; None without results, which is not a rate of 0."""
        return self.passed / self.total if self.total else None
