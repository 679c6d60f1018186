"""What a check's page reads of its results beyond the rollups: the most frequent reasons
of its latest failed and errored results, and how many were errored by the worker rather
than the check (not judged).

Both read full rows only (``check_results``: every result that did not pass is one) of
one check and agent over a window of the turns' ``created_at``: a range of the index
``ix_check_results_latest``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results

REASONS_READ = 10_000
"""Reasons are counted among this many of the latest results that did not pass: the
read stays bounded however many there are (a check failing half of a million turns)."""


@dataclass(frozen=True, slots=True)
class ReasonCount:
    verdict: str
    reason: str | None
    count: int


@dataclass(frozen=True, slots=True)
class TopReasons:
    """The most frequent reasons, and how many results they were counted among."""

    top: list[ReasonCount]
    read: int
    among: int
    """The most that were read."""

    @property
    def capped(self) -> bool:
        """Whether there may have been more than were read: the counts are of the latest."""
        return self.read >= self.among


class CheckReads:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def top_reasons(
        self,
        check: str,
        agent_id: str,
        *,
        since: datetime,
        until: datetime,
        limit: int = 10,
        among: int = REASONS_READ,
    ) -> TopReasons:
        """The ``limit`` most frequent (verdict, reason) among the latest ``among`` results
        that did not pass, of turns created in [since, until): most frequent first, then
        by verdict and reason."""
        r = check_results.c
        latest = (
            select(r.verdict, r.reason)
            .where(
                r.check_name == check,
                r.agent_id == agent_id,
                r.turn_created_at >= since,
                r.turn_created_at < until,
                r.verdict != "passed",
            )
            .order_by(r.turn_created_at.desc(), r.write_id.desc(), r.position.desc())
            .limit(among)
            .subquery()
        )
        count = func.count().label("n")
        # Every group's count summed over all groups, before the limit: how many were read.
        read = func.sum(func.count()).over().label("read")
        query = (
            select(latest.c.verdict, latest.c.reason, count, read)
            .group_by(latest.c.verdict, latest.c.reason)
            .order_by(count.desc(), latest.c.verdict, latest.c.reason)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        found = [ReasonCount(verdict, reason, int(n)) for verdict, reason, n, _ in rows]
        return TopReasons(found, int(rows[0][3]) if rows else 0, among)

    async def errored_with(
        self,
        check: str,
        agent_id: str,
        reasons: Sequence[str],
        *,
        since: datetime,
        until: datetime,
    ) -> int:
        """How many results of turns created in [since, until) were errored with one of
        ``reasons`` (the worker's own: ``judge/runner.py`` ``NOT_JUDGED``)."""
        r = check_results.c
        query = select(func.count()).where(
            r.check_name == check,
            r.agent_id == agent_id,
            r.turn_created_at >= since,
            r.turn_created_at < until,
            r.verdict == "errored",
            r.reason.in_(list(reasons)),
        )
        async with self.database.transaction() as conn:
            return int((await conn.execute(query)).scalar() or 0)
