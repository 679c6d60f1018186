"""Several processes, one report: the partitions' ranges are shared out by size over
forked processes, each reads its own with its own consumer and returns its report, and
the reports merge (``report.merge``). A file, judging and a small range run in one."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from turncheck.worker.backtest.counting import FORK, TurnCount
from turncheck.worker.backtest.engine import SMALL_RANGE, Plan, run_part
from turncheck.worker.backtest.report import Report, merge
from turncheck.worker.backtest.request import Progress
from turncheck.worker.backtest.sources import PartitionRange
from turncheck.worker.errors import ConfigurationError, ServiceUnavailable, TurncheckError

PROGRESS_EVERY_S = 0.25

_inherited: tuple[Plan, TurnCount, float, list[list[PartitionRange]]] | None = None
"""What a forked process reads its share from: set before the processes start."""


def processes_for(plan: Plan) -> int:
    """One for a file, judging or a small range (unless asked for more); else as many as
    asked, or one per core, and never more than partitions with something to read."""
    request = plan.request
    if request.file is not None or request.judge is not None:
        return 1
    if request.processes is None and (plan.expected or 0) < SMALL_RANGE:
        return 1
    wanted = request.processes or os.cpu_count() or 1
    return max(1, min(wanted, sum(1 for r in plan.ranges if r.size)))


def shares(ranges: Sequence[PartitionRange], processes: int) -> list[list[PartitionRange]]:
    """The ranges shared out so that each process has about as many messages: the largest
    first, each to the least loaded."""
    loads = [0] * processes
    parts: list[list[PartitionRange]] = [[] for _ in range(processes)]
    for r in sorted((r for r in ranges if r.size), key=lambda r: -r.size):
        least = loads.index(min(loads))
        parts[least].append(r)
        loads[least] += r.size
    return parts


def run_in_processes(
    plan: Plan,
    processes: int,
    count: TurnCount,
    started: float,
    progress: Callable[[Progress], None] | None,
) -> Report:
    global _inherited
    parts = shares(plan.ranges, processes)
    _inherited = (plan, count, started, parts)
    try:
        with concurrent.futures.ProcessPoolExecutor(processes, mp_context=FORK) as pool:
            futures = [pool.submit(_run_share, index) for index in range(processes)]
            pending = set(futures)
            while pending:
                _, pending = concurrent.futures.wait(pending, timeout=PROGRESS_EVERY_S)
                if progress is not None:
                    progress(Progress(count.read, plan.expected, time.monotonic() - started))
            answers = [future.result() for future in futures]
    finally:
        _inherited = None
    return merge(_report_of(answer) for answer in answers)


def _run_share(index: int) -> dict[str, Any]:
    """In a forked process: its share, as a report's dict, or the error a person can fix
    (the error types do not pickle)."""
    assert _inherited is not None
    plan, count, started, parts = _inherited
    try:
        report = asyncio.run(run_part(plan, parts[index], count, started))
    except ServiceUnavailable as exc:
        return {"unavailable": [exc.service, exc.location, exc.cause]}
    except ConfigurationError as exc:
        return {"refused": str(exc)}
    return {"report": report.as_dict()}


def _report_of(answer: dict[str, Any]) -> Report:
    if "unavailable" in answer:
        raise ServiceUnavailable(*answer["unavailable"])
    if "refused" in answer:
        raise ConfigurationError(answer["refused"])
    if "report" not in answer:
        raise TurncheckError("a backtest process gave no report")
    return Report.from_dict(answer["report"])
