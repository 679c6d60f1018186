"""A time budget shared by all rule checks of one turn.

A check that cannot finish within what is left is ``errored``: a guard that
takes longer than it protects anything is a failure, not a pass (and one
runaway input must never stall the worker).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_TURN_BUDGET_MS = 50.0


class BudgetSpent(Exception):
    """Raised inside a check's loops when the turn's budget is gone."""


@dataclass(slots=True)
class Budget:
    deadline_s: float
    clock: Callable[[], float] = field(default=time.perf_counter)

    @classmethod
    def of_ms(cls, budget_ms: float, clock: Callable[[], float] = time.perf_counter) -> Budget:
        return cls(clock() + budget_ms / 1000, clock)

    @classmethod
    def unlimited(cls) -> Budget:
        return cls(float("inf"))

    def remaining_s(self) -> float:
        return self.deadline_s - self.clock()

    def check(self) -> None:
        """Raise ``BudgetSpent`` when nothing is left; call it in any loop that can grow."""
        if self.clock() >= self.deadline_s:
            raise BudgetSpent
