"""Results a page at a time, newest first, for the HTTP API.

Pages are keyset pages on (turn_created_at, write_id, position), the order of
``worker/store/latest.py``: a page after ``Position`` holds only results strictly older
than it in that order. Every result stored before the first page is given once, and no
result twice. A result stored while someone pages lands where its turn's time puts it:
before the first page for a new turn; for an old turn (a replay), in a page still to
come, or among those already read, and then it is not given. Passed results come from
both shapes.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from turncheck.worker.store.database import Database
from turncheck.worker.store.latest import agents_of, older_than, passed_writes
from turncheck.worker.store.passed import expand
from turncheck.worker.store.tables import check_results
from turncheck.worker.store.views import StoredResult


@dataclass(frozen=True, slots=True)
class Position:
    """Where a page ended: its last result's (turn_created_at, write_id, position)."""

    turn_created_at: datetime
    write_id: int
    position: int


@dataclass(frozen=True, slots=True)
class ResultFilter:
    """Which results of a check: verdicts, an agent, and a window [since, until) on the
    turn's ``created_at``."""

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
        wanted = limit + 1  # one more tells whether another page follows
        mark = (after.turn_created_at, after.write_id, after.position) if after else None
        r = check_results.c
        query = (
            select(check_results)
            .where(r.check_name == check, r.verdict.in_(list(where.verdicts)))
            .order_by(r.turn_created_at.desc(), r.write_id.desc(), r.position.desc())
            .limit(wanted)
        )
        if where.agent is not None:
            query = query.where(r.agent_id == where.agent)
        if where.since is not None:
            query = query.where(r.turn_created_at >= where.since)
        if where.until is not None:
            query = query.where(r.turn_created_at < where.until)
        if mark is not None:
            query = query.where(older_than(r, mark))
        async with self.database.transaction() as conn:
            rows = [StoredResult.from_row(row) for row in (await conn.execute(query)).mappings()]
            if "passed" in where.verdicts:
                not_before = rows[-1].turn_created_at if len(rows) == wanted else where.since
                agents = [where.agent] if where.agent else await agents_of(conn, check)
                for agent in agents:
                    writes = await passed_writes(
                        conn,
                        check,
                        agent,
                        # The write of ``after`` is among those read, and may hold no
                        # result past it: one write more, or a page would end too soon.
                        limit=wanted if mark is None else wanted + 1,
                        not_before=not_before,
                        until=where.until,
                        after=mark,
                    )
                    for row in writes:
                        rows += [
                            result
                            for result in expand(row, only=check)
                            if mark is None or result.order < mark
                        ]
        rows.sort(key=lambda result: result.order, reverse=True)
        if len(rows) <= limit:
            return rows, None
        rows = rows[:limit]
        last = rows[-1]
        return rows, Position(last.turn_created_at, last.write_id, last.position)
