"""What a backtest is asked to do, and how far it has come."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from turncheck.worker.checks import CheckSet

MAX_PARTITION = 100_000
"""More partitions than any broker allows a topic: a bound on what a list expands to."""
_PARTS = re.compile(r"\s*(\d{1,6})\s*(?:-\s*(\d{1,6})\s*)?")


def parse_partitions(text: str) -> tuple[int, ...]:
    """``0-5``, ``0,2,4`` or both (``0-2,7``) as partition numbers; ``ValueError`` saying
    what is wanted."""
    found: set[int] = set()
    for part in text.split(","):
        match = _PARTS.fullmatch(part)
        if match is None:
            raise ValueError("partition numbers and ranges: 0-5, 0,2,4 or 0-2,7")
        first = int(match[1])
        last = int(match[2]) if match[2] is not None else first
        if last < first or last >= MAX_PARTITION:
            raise ValueError(f"a range from low to high, below {MAX_PARTITION}")
        found.update(range(first, last + 1))
    return tuple(sorted(found))


@dataclass(frozen=True)
class BacktestRequest:
    """A draft check set to try on past turns. With ``file`` the turns are its lines;
    without, the turns topic's messages whose timestamps fall in [``since``, ``until``)
    (None: from the oldest the topic keeps; up to the end offsets found at the start)."""

    draft: CheckSet
    since: datetime | None = None
    until: datetime | None = None
    limit: int | None = None
    """At most this many turns read, across every process; None: all in the range."""
    partitions: tuple[int, ...] | None = None
    """The topic's partitions to read; None: every one."""
    file: Path | None = None
    processes: int | None = None
    """How many processes share the partitions; None: one per core. A file, a small range
    and judging always run in one."""
    labels: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(turn_id, check name) → ``"false_alarm"`` or ``"confirmed"``."""
    judge: object | None = None
    """The judging options (``worker/backtest/judging.py``); None: rule checks only."""
    compare: bool = True
    """Compare with the stored results of live checks of the same names (read only). The
    erasure ledger is read either way."""


@dataclass(frozen=True, slots=True)
class Progress:
    turns_read: int
    turns_expected: int | None
    """None when it cannot be known beforehand (a file)."""
    elapsed_s: float
