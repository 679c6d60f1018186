"""Reading what was stored: a turn's results and pass rates (for the CLI, alerts and the API)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import Select, func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.latest import agents_of
from turncheck.worker.store.passed import expand
from turncheck.worker.store.rates import Split, combine
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
        split: Split = Split.NONE,
    ) -> list[PassRate]:
        """Counts per check and agent (and per check version, agent version or both, as
        ``split`` asks) over every hour of turns' ``created_at`` that overlaps
        [since, until): rollups are hourly, so a window is widened to whole hours. Each
        rate names the check versions and agent versions it covers."""
        r = pass_rate_rollups.c
        query = select(*VERSION_KEY, func.min(r.bucket_start).label("first_at"), *SUMS).group_by(
            *VERSION_KEY
        )
        query = _rollup_window(query, since, until, check, agent, agent_version)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [rate for _, rate in combine(rows, split)]

    async def bucketed_pass_rates(
        self,
        bucket: timedelta,
        *,
        since: datetime,
        until: datetime | None = None,
        check: str | None = None,
        agent: str | None = None,
        agent_version: str | None = None,
        split: Split = Split.NONE,
    ) -> list[tuple[datetime, PassRate]]:
        """As ``pass_rates``, per bucket of one hour or one UTC day, oldest first. A day's
        counts hold only the hours inside the window, so the first and last day may be
        partial."""
        if bucket not in (ROLLUP_BUCKET, DAY):
            raise ValueError("buckets are an hour or a day")
        r = pass_rate_rollups.c
        query = select(
            r.bucket_start, r.bucket_start.label("first_at"), *VERSION_KEY, *SUMS
        ).group_by(r.bucket_start, *VERSION_KEY)
        query = _rollup_window(query, since, until, check, agent, agent_version)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        # Days are summed in Python rather than in SQL: truncating a time to its day is
        # spelled differently on SQLite and PostgreSQL, and there are at most 24 rows a day.
        day = (lambda start: start.replace(hour=0)) if bucket == DAY else (lambda start: start)
        return [(start, rate) for start, rate in combine(rows, split, bucket_of=day) if start]


DAY = timedelta(days=1)

VERSION_KEY = tuple(
    pass_rate_rollups.c[name]
    for name in ("check_name", "agent_id", "agent_version", "check_version")
)
SUMS = tuple(func.sum(pass_rate_rollups.c[name]).label(name) for name in ROLLUP_COUNTS)

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
