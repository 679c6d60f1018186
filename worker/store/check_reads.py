"""What a check's page reads of its results beyond the rollups: the most frequent reasons
of its failed and errored results, and how many were errored by the worker rather than
the check (not judged).

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


@dataclass(frozen=True, slots=True)
class ReasonCount:
    verdict: str
    reason: str | None
    count: int


class CheckReads:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def top_reasons(
        self, check: str, agent_id: str, *, since: datetime, until: datetime, limit: int = 10
    ) -> list[ReasonCount]:
        """The ``limit`` most frequent (verdict, reason) of the results that did not pass,
        of turns created in [since, until): most frequent first, then by reason."""
        r = check_results.c
        count = func.count().label("n")
        query = (
            select(r.verdict, r.reason, count)
            .where(
                r.check_name == check,
                r.agent_id == agent_id,
                r.turn_created_at >= since,
                r.turn_created_at < until,
                r.verdict != "passed",
            )
            .group_by(r.verdict, r.reason)
            .order_by(count.desc(), r.verdict, r.reason)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [ReasonCount(verdict, reason, int(n)) for verdict, reason, n in rows]

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
