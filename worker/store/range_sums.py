"""Counts of every check and agent over several ranges of hours at once, summed in the
database from the hourly rollups: one query, one row per (check, agent), however many
hours and versions the rollups hold. What a page showing every check's rates over a few
periods reads, instead of every hour of every check."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, case, func, literal, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import pass_rate_rollups

Range = tuple[datetime, datetime]
"""[start, end) of the hours counted, by their ``bucket_start``: an hour counts whole
toward the range it starts in."""


@dataclass(frozen=True, slots=True)
class RangeCount:
    passed: int = 0
    total: int = 0
    """Passed, failed and errored together."""


async def range_sums(
    database: Database,
    ranges: Sequence[Range],
    *,
    agent: str | None = None,
    agent_version: str | None = None,
) -> dict[tuple[str, str], tuple[RangeCount, ...]]:
    """(check, agent) → its counts in each of ``ranges``, in their order, every check
    version (and agent version, unless ``agent_version`` is given) together. A (check,
    agent) with no hour in any range is absent."""
    if not ranges:
        return {}
    r = pass_rate_rollups.c
    total = r.passed + r.failed + r.errored
    sums = []
    for start, end in ranges:
        inside = and_(r.bucket_start >= start, r.bucket_start < end)
        sums += [func.sum(_when(inside, r.passed)), func.sum(_when(inside, total))]
    query = (
        select(r.check_name, r.agent_id, *sums)
        .where(
            r.bucket_start >= min(start for start, _ in ranges),
            r.bucket_start < max(end for _, end in ranges),
        )
        .group_by(r.check_name, r.agent_id)
    )
    if agent is not None:
        query = query.where(r.agent_id == agent)
    if agent_version is not None:
        query = query.where(r.agent_version == agent_version)
    async with database.transaction() as conn:
        rows = (await conn.execute(query)).all()
    found = {}
    for check, agent_id, *counts in rows:
        found[check, agent_id] = tuple(
            RangeCount(int(counts[i] or 0), int(counts[i + 1] or 0))
            for i in range(0, len(counts), 2)
        )
    return found


def _when(inside: ColumnElement[bool], value: ColumnElement[int]) -> ColumnElement[int]:
    return case((inside, value), else_=literal(0))
