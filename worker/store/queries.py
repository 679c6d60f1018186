"""Reading what was stored: a turn's results and pass rates (for the CLI, alerts and the API)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.rows import ROLLUP_COUNTS, bucket_of
from turncheck.worker.store.tables import check_results, pass_rate_rollups
from turncheck.worker.store.views import PassRate, StoredResult


class Queries:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def results_for_turn(self, turn_id: str) -> list[StoredResult]:
        query = (
            select(check_results)
            .where(check_results.c.turn_id == turn_id)
            .order_by(check_results.c.id)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [StoredResult.from_row(row) for row in rows]

    async def not_passed(
        self,
        check: str,
        *,
        agent: str | None,
        since: datetime,
        limit: int,
        until: datetime | None = None,
    ) -> list[StoredResult]:
        """A check's results that did not pass, newest first: the turns an alert points to."""
        r = check_results.c
        query = (
            select(check_results)
            .where(r.check_name == check, r.verdict != "passed", r.checked_at >= since)
            .order_by(r.checked_at.desc(), r.id.desc())
            .limit(limit)
        )
        if agent is not None:
            query = query.where(r.agent_id == agent)
        if until is not None:
            query = query.where(r.checked_at < until)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [StoredResult.from_row(row) for row in rows]

    async def pass_rates(
        self, *, since: datetime | None = None, check: str | None = None, agent: str | None = None
    ) -> list[PassRate]:
        r = pass_rate_rollups.c
        query = (
            select(
                r.check_name, r.agent_id, *(func.sum(r[name]).label(name) for name in ROLLUP_COUNTS)
            )
            .group_by(r.check_name, r.agent_id)
            .order_by(r.check_name, r.agent_id)
        )
        if since is not None:
            query = query.where(r.bucket_start >= bucket_of(since))
        if check is not None:
            query = query.where(r.check_name == check)
        if agent is not None:
            query = query.where(r.agent_id == agent)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [
            PassRate(row["check_name"], row["agent_id"], *(int(row[n] or 0) for n in ROLLUP_COUNTS))
            for row in rows
        ]
