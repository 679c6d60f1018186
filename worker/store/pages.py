"""Results a page at a time, newest first, for the HTTP API.

Pages are keyset pages on (checked_at, id): a page after ``Position`` holds only rows
strictly older than it, so rows stored while someone pages (newer, or the same
moment with a larger id) never shift a later page, and no row is given twice.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, or_, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results
from turncheck.worker.store.views import StoredResult


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page ended: its last row's (checked_at, id)."""

    checked_at: datetime
    id: int


@dataclass(frozen=True, slots=True)
class ResultFilter:
    """Which results of a check: verdicts, an agent, a window on ``checked_at`` [since, until)."""

    verdicts: Collection[str]
    agent: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class ResultPages:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def page(
        self, check: str, where: ResultFilter, *, limit: int, after: Position | None = None
    ) -> tuple[list[StoredResult], Position | None]:
        """Up to ``limit`` results, newest first, older than ``after``; and the position to
        ask for next, None when this page is the last."""
        r = check_results.c
        query = (
            select(check_results)
            .where(r.check_name == check, r.verdict.in_(list(where.verdicts)))
            .order_by(r.checked_at.desc(), r.id.desc())
            .limit(limit + 1)  # one more tells whether another page follows
        )
        if where.agent is not None:
            query = query.where(r.agent_id == where.agent)
        if where.since is not None:
            query = query.where(r.checked_at >= where.since)
        if where.until is not None:
            query = query.where(r.checked_at < where.until)
        if after is not None:
            query = query.where(
                or_(
                    r.checked_at < after.checked_at,
                    and_(r.checked_at == after.checked_at, r.id < after.id),
                )
            )
        async with self.database.transaction() as conn:
            rows = [StoredResult.from_row(row) for row in (await conn.execute(query)).mappings()]
        if len(rows) <= limit:
            return rows, None
        rows = rows[:limit]
        return rows, Position(rows[-1].checked_at, rows[-1].id)
