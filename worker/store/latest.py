"""A check's latest results across both shapes, newest first: what pages and alerts read.

"Latest" is by the turn's time, the one every window, list and chart uses: the order is
(turn_created_at, write_id, position), newest first, ties on the later write. Full rows
come from ``ix_check_results_latest``; passed results from the agent's writes in the
same order (``ix_passed_results_latest``) that hold the check.

Two bounds keep the reading short, and neither assumes that turns are stored in turn
order (a replay of two old weeks is stored after today's turns):

- once ``limit`` full rows are found, a result of an older turn than the last of them
  sorts after all of them, so no write older than that turn is read (``not_before``);
- a write holds at most one result of a check, so the first ``limit`` writes holding
  it, in this order, hold every passed result that can be among the latest.

How many writes are read to find those depends on how many of the agent's newest turns'
writes hold the check. Rule checks run on every turn of the agent, so most do. A replay
writes a turn's new results as a later part at the turn's own time, among that turn's
other writes, never above the newest turns; a judged result, written later, sits with
its turn the same way. A check the agent's newest turns do not have (removed, or stored
only by replaying old turns) makes the walk read down past them to where it begins.
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
"""(turn_created_at, write_id, position)."""


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
    """The agent's writes holding passed results of ``check``, newest turn first: at most
    ``limit``, of turns created at or after ``not_before`` and before ``until``, at or
    before the write of ``after`` (its results still need comparing with ``after`` one by
    one). ``columns``: those to read besides turn_created_at and id (None: all).

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
            select(
                p.turn_created_at, p.id, holds, *(passed_results.c if columns is None else columns)
            )
            .where(p.agent_id == agent)
            .order_by(p.turn_created_at.desc(), p.id.desc())
            .limit(page)
        )
        if not_before is not None:
            query = query.where(p.turn_created_at >= not_before)
        if until is not None:
            query = query.where(p.turn_created_at < until)
        if mark is not None:
            query = query.where(before(p.turn_created_at, mark[0], p.id < mark[1]))
        rows = (await conn.execute(query)).mappings().all()
        kept += [row for row in rows if row["holds"]]
        if len(kept) >= limit or len(rows) < page:
            return kept[:limit]
        mark = (rows[-1]["turn_created_at"], rows[-1]["id"])


def older_than(columns: Any, after: Order) -> Any:
    """Full rows older than ``after`` in this order: those a page after it may hold."""
    created_at, write_id, position = after
    older_in_tie = or_(
        columns.write_id < write_id,
        and_(columns.write_id == write_id, columns.position < position),
    )
    return before(columns.turn_created_at, created_at, older_in_tie)


def before(column: Any, moment: datetime, in_tie: Any) -> Any:
    """Rows whose ``column`` is before ``moment``, or at it and ``in_tie``. Spelled with a
    plain ``<=`` first for PostgreSQL, which starts an index scan there but not from the
    OR alone: given only the OR, it read an agent's writes from the newest down to where
    the page begins (100,000 rows filtered out, 40 ms against 0.05, for a page that deep).
    SQLite finds the bound either way."""
    return and_(column <= moment, or_(column < moment, in_tie))
