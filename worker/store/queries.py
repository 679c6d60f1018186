"""Reading what was stored: a turn's results and pass rates (for the CLI, alerts and the API)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Select, func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.latest import agents_of
from turncheck.worker.store.passed import expand
from turncheck.worker.store.rows import ROLLUP_BUCKET, ROLLUP_COUNTS, bucket_of
from turncheck.worker.store.tables import check_results, pass_rate_rollups, passed_results
from turncheck.worker.store.views import PassRate, StoredResult


class Queries:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def results_for_turn(self, turn_id: str) -> list[StoredResult]:
        """Every result of the turn, in both shapes, in the order they were stored."""
        full = select(check_results).where(check_results.c.turn_id == turn_id)
        passed = select(passed_results).where(passed_results.c.turn_id == turn_id)
        async with self.database.transaction() as conn:
            results = [StoredResult.from_row(row) for row in (await conn.execute(full)).mappings()]
            for row in (await conn.execute(passed)).mappings():
                results += expand(row)
        return sorted(results, key=lambda result: (result.write_id, result.position))

    async def checks_with_results(self) -> list[str]:
        """Every check with results counted, from the rollups: they outlive the results
        purged past retention, so a check is known as long as its pass rates are."""
        r = pass_rate_rollups.c
        async with self.database.transaction() as conn:
            found = await conn.execute(select(r.check_name).distinct())
            return sorted(name for (name,) in found)

    async def agents_with_results(self, check: str | None = None) -> list[str]:
        """The agents with results counted, of ``check`` or of any check (the rollups)."""
        async with self.database.transaction() as conn:
            if check is not None:
                return await agents_of(conn, check)
            r = pass_rate_rollups.c
            found = await conn.execute(select(r.agent_id).distinct())
            return sorted(agent for (agent,) in found)

    async def not_passed(
        self,
        check: str,
        *,
        agent: str | None,
        since: datetime,
        limit: int,
        until: datetime | None = None,
    ) -> list[StoredResult]:
        """A check's results that did not pass, of turns created in [since, until), newest
        turn first: the turns an alert points to. All are full rows: only passed results
        are ever compact."""
        r = check_results.c
        query = (
            select(check_results)
            .where(r.check_name == check, r.verdict != "passed", r.turn_created_at >= since)
            .order_by(r.turn_created_at.desc(), r.write_id.desc(), r.position.desc())
            .limit(limit)
        )
        if agent is not None:
            query = query.where(r.agent_id == agent)
        if until is not None:
            query = query.where(r.turn_created_at < until)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [StoredResult.from_row(row) for row in rows]

    async def pass_rates(
        self,
        *,
        since: datetime | None = None,
        check: str | None = None,
        agent: str | None = None,
        until: datetime | None = None,
        agent_version: str | None = None,
    ) -> list[PassRate]:
        """Counts per check and agent over every hour of turns' ``created_at`` that overlaps
        [since, until): rollups are hourly, so a window is widened to whole hours."""
        r = pass_rate_rollups.c
        query = (
            select(
                r.check_name, r.agent_id, *(func.sum(r[name]).label(name) for name in ROLLUP_COUNTS)
            )
            .group_by(r.check_name, r.agent_id)
            .order_by(r.check_name, r.agent_id)
        )
        query = _rollup_window(query, since, until, check, agent, agent_version)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [
            PassRate(row["check_name"], row["agent_id"], *(int(row[n] or 0) for n in ROLLUP_COUNTS))
            for row in rows
        ]

    async def bucketed_pass_rates(
        self,
        bucket: timedelta,
        *,
        since: datetime,
        until: datetime | None = None,
        check: str | None = None,
        agent: str | None = None,
        agent_version: str | None = None,
    ) -> list[tuple[datetime, PassRate]]:
        """As ``pass_rates``, per bucket of one hour or one UTC day, oldest first. A day's
        counts hold only the hours inside the window, so the first and last day may be
        partial."""
        if bucket not in (ROLLUP_BUCKET, DAY):
            raise ValueError("buckets are an hour or a day")
        r = pass_rate_rollups.c
        query = select(
            r.bucket_start,
            r.check_name,
            r.agent_id,
            *(func.sum(r[name]).label(name) for name in ROLLUP_COUNTS),
        ).group_by(r.bucket_start, r.check_name, r.agent_id)
        query = _rollup_window(query, since, until, check, agent, agent_version)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        # Days are summed here rather than in SQL: truncating a time to its day is
        # spelled differently on SQLite and PostgreSQL, and there are at most 24 rows a day.
        sums: dict[tuple[datetime, str, str], list[int]] = {}
        for row in rows:
            start: datetime = row["bucket_start"]
            if bucket == DAY:
                start = start.replace(hour=0)
            counts = sums.setdefault((start, row["check_name"], row["agent_id"]), [0] * 5)
            for i, name in enumerate(ROLLUP_COUNTS):
                counts[i] += int(row[name] or 0)
        return [
            (start, PassRate(check_name, agent_id, *counts))
            for (start, check_name, agent_id), counts in sorted(sums.items())
        ]


DAY = timedelta(days=1)

Selection = TypeVar("Selection", bound=Select[Any])


def _rollup_window(
    query: Selection,
    since: datetime | None,
    until: datetime | None,
    check: str | None,
    agent: str | None,
    agent_version: str | None,
) -> Selection:
    r = pass_rate_rollups.c
    if since is not None:
        query = query.where(r.bucket_start >= bucket_of(since))
    if until is not None:
        query = query.where(r.bucket_start < until)
    if check is not None:
        query = query.where(r.check_name == check)
    if agent is not None:
        query = query.where(r.agent_id == agent)
    if agent_version is not None:
        query = query.where(r.agent_version == agent_version)
    return query
