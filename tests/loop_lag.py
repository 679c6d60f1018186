"""How late the event loop wakes while work runs, against what this machine gives any work now.

A ticker sleeps 10 ms at a time and records how late it woke. Work that runs
off the loop (``asyncio.to_thread``) still shares the interpreter with it, and
a loaded machine lends the process a fraction of a core and deschedules it at
will: both make the ticker late without the loop being blocked. So the bound
is not a fixed wall time but ``STALL_S``, stretched by how much longer than
its CPU time the work took (a process lent half a core waits twice as long for
anything), plus the baseline: the worst lag the same ticker saw, in the same
test just before, beside a thread doing plain Python work. Work run on the
loop itself blocks it for the whole batch, seconds, far past that bound.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

STALL_S = 0.2
"""The longest pause the loop may take on an idle machine: heartbeats and the outbox keep
their pace well within it."""

TICK_S = 0.01
BASELINE_S = 1.0


@dataclass(frozen=True, slots=True)
class LoopLag:
    worst_s: float
    ticks: int
    stretch: float
    """Wall time over the process's CPU time while the work ran, at least 1."""
    baseline_s: float

    @property
    def allowed_s(self) -> float:
        return STALL_S * self.stretch + self.baseline_s

    def __str__(self) -> str:
        return (
            f"the loop stalled {self.worst_s:.3f} s over {self.ticks} ticks; allowed "
            f"{self.allowed_s:.3f} s = {STALL_S} s x {self.stretch:.2f} (wall over CPU time) "
            f"+ {self.baseline_s:.3f} s (baseline)"
        )


async def _lags_until(done: Callable[[], bool]) -> list[float]:
    loop = asyncio.get_running_loop()
    lags = [0.0]
    while not done():
        before = loop.time()
        await asyncio.sleep(TICK_S)
        lags.append(loop.time() - before - TICK_S)
    return lags


def _python_work(seconds: float) -> None:
    """Plain Python work, which hands the interpreter to the loop every switch interval."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(range(100))


async def baseline_lag_s() -> float:
    """The worst lag of the ticker beside a thread doing plain Python work for ``BASELINE_S``:
    what the interpreter and this machine, now, cost the loop with nothing wrong."""
    beside = asyncio.ensure_future(asyncio.to_thread(_python_work, BASELINE_S))
    lags = await _lags_until(beside.done)
    await beside
    return max(lags)


async def lag_while(work: Awaitable[object], baseline_s: float) -> LoopLag:
    """Run ``work`` to its end and measure the ticker beside it."""
    task = asyncio.ensure_future(work)
    wall, cpu = time.perf_counter(), time.process_time()
    lags = await _lags_until(task.done)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    await task
    return LoopLag(max(lags), len(lags) - 1, max(1.0, wall / max(cpu, 1e-6)), baseline_s)
