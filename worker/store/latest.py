"""A check's latest results across both shapes, newest first: what pages and alerts read.

Order is (checked_at, write_id, position), newest first. Full rows come from
``ix_check_results_latest``; passed results from the agent's latest writes
(``ix_passed_results_latest``) that hold the check. A check belongs to an agent, and
rule checks run on every turn of it, so the writes holding one are the agent's latest
ones; and once ``limit`` full rows are found, no write older than the last of them is
read.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import RowMapping, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.store.passed import holding
from turncheck.worker.store.tables import pass_rate_rollups, passed_results

Order = tuple[datetime, int, int]
"""(checked_at, write_id, position)."""


async def agents_of(conn: AsyncConnection, check: str) -> list[str]:
    """The agents a check has results for (from the rollups: a few rows per hour)."""
    r = pass_rate_rollups.c
    query = select(r.agent_id).where(r.check_name == check).distinct()
    return sorted(agent for (agent,) in await conn.execute(query))


async def passed_writes(
    conn: AsyncConnection,
    check: str,
    agent: str,
    *,
    limit: int,
    not_before: datetime | None = None,
    until: datetime | None = None,
    after: Order | None = None,
    columns: Sequence[Any] | None = None,
) -> list[RowMapping]:
    """The agent's latest writes holding passed results of ``check``, newest first: at
    most ``limit``, checked at or after ``not_before``, before ``until``, at or before the
    write of ``after`` (its results still need comparing with ``after`` one by one).
    ``columns``: those to read besides checked_at and id (None: all).

    The agent's writes are read newest first down its index, a page at a time, and the
    database says of each whether it holds the check: asked with the LIKE in the WHERE
    clause, the planner guesses few rows match and sorts every write of the agent
    instead; and a reader of counts need not be sent the writes' text."""
    p = passed_results.c
    # A plain substring test: LIKE is blind to case on SQLite ("Cards" would find "cards").
    position = func.strpos if conn.dialect.name == "postgresql" else func.instr
    holds = (position(p.checks, holding(check)) > 0).label("holds")
    page = limit + 100
    kept: list[RowMapping] = []
    mark = (after[0], after[1] + 1) if after is not None else None
    while True:
        query = (
            select(p.checked_at, p.id, holds, *(passed_results.c if columns is None else columns))
            .where(p.agent_id == agent)
            .order_by(p.checked_at.desc(), p.id.desc())
            .limit(page)
        )
        if not_before is not None:
            query = query.where(p.checked_at >= not_before)
        if until is not None:
            query = query.where(p.checked_at < until)
        if mark is not None:
            query = query.where(
                or_(p.checked_at < mark[0], and_(p.checked_at == mark[0], p.id < mark[1]))
            )
        rows = (await conn.execute(query)).mappings().all()
        kept += [row for row in rows if row["holds"]]
        if len(kept) >= limit or len(rows) < page:
            return kept[:limit]
        mark = (rows[-1]["checked_at"], rows[-1]["id"])


def older_than(columns: Any, after: Order) -> Any:
    """Full rows that sort before ``after``, newest first."""
    checked_at, write_id, position = after
    return or_(
        columns.checked_at < checked_at,
        and_(
            columns.checked_at == checked_at,
            or_(
                columns.write_id < write_id,
                and_(columns.write_id == write_id, columns.position < position),
            ),
        ),
    )
