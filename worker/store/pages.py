"""Results a page at a time, newest first, for the HTTP API.

Pages are keyset pages on (checked_at, id): a page after ``Position`` holds only rows
strictly older than it, so rows stored while someone pages (newer, or the same
moment with a larger id) never shift a later page, and no row is given twice.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, or_, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page ended: its last row's (checked_at, id)."""

    checked_at: datetime
    id: int


@dataclass(frozen=True, slots=True)
class ResultRow:
    """A stored result with its turn's ids; never text of the turn (none is stored)."""

    id: int
    turn_id: str
    thread_id: str | None
    agent_id: str
    agent_version: str
    check: str
    check_version: str
    kind: str
    stage: str
    mode: str
    verdict: str
    score: float | None
    reason: str | None
    spans: list[dict[str, Any]]
    checked_at: datetime
    turn_created_at: datetime

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> ResultRow:
        return cls(
            id=row["id"],
            turn_id=row["turn_id"],
            thread_id=row["thread_id"],
            agent_id=row["agent_id"],
            agent_version=row["agent_version"],
            check=row["check_name"],
            check_version=row["check_version"],
            kind=row["check_kind"],
            stage=row["stage"],
            mode=row["mode"],
            verdict=row["verdict"],
            score=row["score"],
            reason=row["reason"],
            spans=row["spans"],
            checked_at=row["checked_at"],
            turn_created_at=row["turn_created_at"],
        )

    @property
    def position(self) -> Position:
        return Position(self.checked_at, self.id)


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
    ) -> tuple[list[ResultRow], Position | None]:
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
            rows = [ResultRow.from_row(row) for row in (await conn.execute(query)).mappings()]
        if len(rows) <= limit:
            return rows, None
        rows = rows[:limit]
        return rows, rows[-1].position

    async def of_turn(self, turn_id: str) -> list[ResultRow]:
        """Every stored result of one turn, in the order they were stored."""
        r = check_results.c
        query = select(check_results).where(r.turn_id == turn_id).order_by(r.id)
        async with self.database.transaction() as conn:
            return [ResultRow.from_row(row) for row in (await conn.execute(query)).mappings()]
