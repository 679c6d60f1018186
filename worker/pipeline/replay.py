"""Turns from a JSON Lines file, through the same pipeline as the consumer."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from turncheck.worker.pipeline.batch import BatchReport, Pipeline, RawMessage, Rejected

log = logging.getLogger(__name__)


def read_lines(stream: IO[bytes], batch_size: int) -> Iterator[list[RawMessage]]:
    """Batches of non-blank lines; a message's ``offset`` is its line number (from 1)."""
    batch: list[RawMessage] = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        batch.append(RawMessage(value=line.rstrip(b"\r\n"), offset=number))
        if len(batch) >= batch_size:
            yield batch
            batch = []
    if batch:
        yield batch


@dataclass
class ReplayTotals:
    turns: int = 0
    results: int = 0
    new_results: int = 0
    not_passed: int = 0
    expired: int = 0
    """Turns past their retention window: skipped, neither stored nor counted."""
    erased: int = 0
    """Turns of erased persons: skipped, neither stored nor counted."""
    rejected: list[Rejected] = field(default_factory=list)

    def add(self, report: BatchReport) -> None:
        self.turns += report.turns
        self.results += report.results
        self.new_results += report.new_results
        self.not_passed += report.not_passed
        self.expired += report.expired
        self.erased += report.erased


class CollectRejected:
    """A file has no dead-letter topic: bad lines are reported by line number instead."""

    def __init__(self, totals: ReplayTotals) -> None:
        self.totals = totals

    async def __call__(self, rejected: Sequence[Rejected]) -> None:
        self.totals.rejected.extend(rejected)


async def _no_commit() -> None:
    """The file is the source of truth; there is no position to keep."""


async def replay_file(
    path: Path,
    make_pipeline: Callable[[CollectRejected], Pipeline],
    *,
    batch_size: int,
    on_progress: Callable[[int], None] | None = None,
) -> ReplayTotals:
    totals = ReplayTotals()
    pipeline = make_pipeline(CollectRejected(totals))
    with sys.stdin.buffer if str(path) == "-" else path.open("rb") as stream:
        for batch in read_lines(stream, batch_size):
            totals.add(await pipeline.handle_batch(batch, _no_commit))
            if on_progress is not None:
                on_progress(len(batch))
    return totals
