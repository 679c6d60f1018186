"""What alerts read of the stored results: a check's latest verdicts, and its hourly
counts for the trend."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import and_, case, func, literal, select

from turncheck.alerts.notice import WindowCounts
from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results, pass_rate_rollups


class Readings:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def latest_counts(
        self, check: str, agent_id: str, latest: int, not_judged: Sequence[str]
    ) -> WindowCounts:
        """Verdicts of the check's ``latest`` results, newest by when they were stored."""
        r = check_results.c
        window = (
            select(r.verdict, r.reason, r.checked_at)
            .where(r.check_name == check, r.agent_id == agent_id)
            .order_by(r.checked_at.desc(), r.id.desc())
            .limit(latest)
            .subquery()
        )
        worker_errored = and_(window.c.verdict == "errored", window.c.reason.in_(not_judged))
        bucket = case((worker_errored, literal("not_judged")), else_=window.c.verdict)
        query = select(
            bucket.label("bucket"),
            func.count().label("n"),
            func.min(window.c.checked_at).label("oldest"),
        ).group_by(bucket)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        counts = {row.bucket: int(row.n) for row in rows}
        oldest = [row.oldest for row in rows if row.oldest is not None]
        return WindowCounts(
            passed=counts.get("passed", 0),
            failed=counts.get("failed", 0),
            errored=counts.get("errored", 0),
            not_judged=counts.get("not_judged", 0),
            oldest_at=min(oldest) if oldest else None,
        )

    async def hourly_counts(
        self, check: str, agent_id: str, since: datetime
    ) -> list[tuple[datetime, int, int]]:
        """(hour, passed, total) from the rollups, every agent version together."""
        r = pass_rate_rollups.c
        total = func.sum(r.passed + r.failed + r.errored)
        query = (
            select(r.bucket_start, func.sum(r.passed), total)
            .where(r.check_name == check, r.agent_id == agent_id, r.bucket_start >= since)
            .group_by(r.bucket_start)
            .order_by(r.bucket_start)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [(start, int(passed or 0), int(n or 0)) for start, passed, n in rows]
