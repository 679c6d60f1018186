"""Writing a batch: results, pass-rate rollups, outbox rows and pending judgements.

Idempotent: a redelivered turn, or a turn sent twice in one batch, writes no
second result, no second rollup count, no second event and no second pending
judgement. A batch's rows are one transaction, so they never disagree.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select, tuple_
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.checks import CheckResult, Verdict
from turncheck.worker.records import (
    PendingJudgement,
    ResultKey,
    SaveReport,
    TurnRef,
    TurnResults,
)
from turncheck.worker.store.database import Database
from turncheck.worker.store.rows import (
    RESULT_KEY,
    ROLLUP_COUNTS,
    ROLLUP_KEY,
    event_row,
    pending_from_row,
    pending_row,
    result_row,
    rollup_values,
)
from turncheck.worker.store.tables import check_results, judge_pending, outbox, pass_rate_rollups

Scheduled = tuple[TurnRef, CheckResult, datetime]
"""A result with its turn and when it expires."""

CHUNK_ROWS = 250
"""Rows built and sent per statement. Building and encoding rows is CPU work on the
event loop; in chunks, heartbeats and the outbox run between them."""


def _first_of_each(items: Sequence[Any], key: Any) -> list[Any]:
    """Keep the first item of each key: a producer that retried may put a turn in a
    batch twice, and one statement must not count the same row twice."""
    seen: set[Any] = set()
    kept = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            kept.append(item)
    return kept


class ResultWriter:
    def __init__(self, database: Database, *, events_topic: str) -> None:
        self.database = database
        self.events_topic = events_topic

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        """Store a batch's results and pending judgements once; say what was new."""
        results = _first_of_each(
            [(item.turn, r, item.expires_at) for item in batch for r in item.results],
            lambda s: s[0].key(s[1].check),
        )
        pending = _first_of_each(
            [(p, item.expires_at) for item in batch for p in item.pending], lambda p: p[0].key
        )
        if not results and not pending:
            return SaveReport(0, frozenset())
        async with self.database.transaction() as conn:
            new = await self._write_results(conn, results, now)
            recorded = await self._write_pending(conn, pending, now)
        return SaveReport(new, recorded)

    async def save_judged(
        self, turn: TurnRef, result: CheckResult, expires_at: datetime, now: datetime
    ) -> bool:
        """Store a judged result in place of its pending judgement; False if already stored,
        or if the judgement is no longer pending: another worker settled it, or the person
        was erased meanwhile, and the result must not come back."""
        async with self.database.transaction() as conn:
            claimed = await conn.execute(
                delete(judge_pending).where(
                    judge_pending.c.turn_id == turn.turn_id,
                    judge_pending.c.check_name == result.check.name,
                    judge_pending.c.check_version == result.check.version,
                )
            )
            if not claimed.rowcount:
                return False
            new = await self._write_results(conn, [(turn, result, expires_at)], now)
        return new == 1

    async def overdue_judgements(
        self, now: datetime, limit: int = 200
    ) -> list[tuple[PendingJudgement, datetime]]:
        """Pending judgements past their deadline: their worker is gone or too late."""
        query = (
            select(judge_pending)
            .where(judge_pending.c.deadline_at < now)
            .order_by(judge_pending.c.deadline_at)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [pending_from_row(row) for row in rows]

    async def _write_results(
        self, conn: AsyncConnection, results: list[Scheduled], now: datetime
    ) -> int:
        insert = self.database.insert
        statement = (
            insert(check_results)
            .on_conflict_do_nothing(index_elements=list(RESULT_KEY))
            .returning(*(check_results.c[name] for name in RESULT_KEY))
        )
        new_rows: list[dict[str, Any]] = []
        new_results: list[Scheduled] = []
        for start in range(0, len(results), CHUNK_ROWS):
            chunk = results[start : start + CHUNK_ROWS]
            rows = [result_row(turn, result, now, expires) for turn, result, expires in chunk]
            inserted = {tuple(r) for r in await conn.execute(statement, rows)}
            new_rows += [row for row in rows if tuple(row[k] for k in RESULT_KEY) in inserted]
            new_results += [s for s in chunk if s[0].key(s[1].check) in inserted]
        await self._add_to_rollups(conn, new_rows)
        failed = [s for s in new_results if s[1].verdict is not Verdict.PASSED]
        for start in range(0, len(failed), CHUNK_ROWS):
            events = [
                event_row(turn, result, self.events_topic, now)
                for turn, result, _ in failed[start : start + CHUNK_ROWS]
            ]
            await conn.execute(
                insert(outbox).on_conflict_do_nothing(index_elements=["event_id"]), events
            )
        return len(new_rows)

    async def _add_to_rollups(self, conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
        values = rollup_values(rows)
        if not values:
            return
        statement = self.database.insert(pass_rate_rollups)
        statement = statement.on_conflict_do_update(
            index_elements=list(ROLLUP_KEY),
            set_={
                name: pass_rate_rollups.c[name] + statement.excluded[name] for name in ROLLUP_COUNTS
            },
        )
        await conn.execute(statement, values)

    async def _write_pending(
        self,
        conn: AsyncConnection,
        pending: list[tuple[PendingJudgement, datetime]],
        now: datetime,
    ) -> frozenset[ResultKey]:
        """Record judgements to make, except those already judged or already pending."""
        if not pending:
            return frozenset()
        keys = [item.key for item, _ in pending]
        done = {
            tuple(r)
            for r in await conn.execute(
                select(*(check_results.c[name] for name in RESULT_KEY)).where(
                    tuple_(*(check_results.c[name] for name in RESULT_KEY)).in_(keys)
                )
            )
        }
        rows = [
            pending_row(item, expires, now) for item, expires in pending if item.key not in done
        ]
        if not rows:
            return frozenset()
        statement = (
            self.database.insert(judge_pending)
            .on_conflict_do_nothing(index_elements=list(RESULT_KEY))
            .returning(*(judge_pending.c[name] for name in RESULT_KEY))
        )
        return frozenset(tuple(r) for r in await conn.execute(statement, rows))
