"""A time budget shared by all rule checks of one turn.

A check that cannot finish within what is left is ``errored``: a guard that
takes longer than it protects anything is a failure, not a pass (and one
runaway input must never stall the worker).

The budget is the checks' own work: the wall clock is read first (cheap),
and only once it says the budget is spent is the thread's CPU time asked
whether the checks really used it, so a worker descheduled on a busy machine
does not turn good turns into errored ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_TURN_BUDGET_MS = 50.0

INFINITY = float("inf")


class BudgetSpent(Exception):
    """Raised inside a check's loops when the turn's budget is gone."""


@dataclass(slots=True)
class Budget:
    deadline_s: float
    clock: Callable[[], float] = field(default=time.perf_counter)
    cpu_clock: Callable[[], float] | None = None
    """When set, a deadline passed on ``clock`` counts only once ``cpu_deadline_s`` has too."""
    cpu_deadline_s: float = INFINITY

    @classmethod
    def of_ms(cls, budget_ms: float, clock: Callable[[], float] = time.perf_counter) -> Budget:
        """``budget_ms`` from now. With the real clock, confirmed on the thread's CPU time;
        with another clock (tests), on that clock alone."""
        if clock is not time.perf_counter:
            return cls(clock() + budget_ms / 1000, clock)
        return cls(
            clock() + budget_ms / 1000,
            clock,
            time.thread_time,
            time.thread_time() + budget_ms / 1000,
        )

    @classmethod
    def unlimited(cls) -> Budget:
        return cls(INFINITY)

    def capped_ms(self, limit_ms: float) -> Budget:
        """This budget, ending ``limit_ms`` from now if that comes first (a pattern's own limit)."""
        own = Budget.of_ms(limit_ms, self.clock)
        return Budget(
            min(self.deadline_s, own.deadline_s),
            self.clock,
            self.cpu_clock or own.cpu_clock,
            min(self.cpu_deadline_s, own.cpu_deadline_s),
        )

    def remaining_s(self) -> float:
        wall = self.deadline_s - self.clock()
        if self.cpu_clock is None or wall > 0:
            return wall
        return self.cpu_deadline_s - self.cpu_clock()

    def check(self) -> None:
        """Raise ``BudgetSpent`` when nothing is left; call it in any loop that can grow."""
        if self.clock() >= self.deadline_s and (
            self.cpu_clock is None or self.cpu_clock() >= self.cpu_deadline_s
        ):
            raise BudgetSpent
