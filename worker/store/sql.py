"""The SQL store (SQLAlchemy async): PostgreSQL in production, SQLite embedded.

Writes are idempotent: a redelivered turn writes no second result, no second
rollup count, no second event and no second pending judgement. Results,
rollups, outbox rows and pending judgements of a batch are one transaction,
so they never disagree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import delete, event, func, select, tuple_, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from turncheck.worker.checks import CheckResult, Verdict
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.store.records import (
    PassRate,
    PendingEvent,
    PendingJudgement,
    SaveReport,
    StoredResult,
    TurnRef,
    TurnResults,
)
from turncheck.worker.store.rows import (
    ROLLUP_COUNTS,
    ROLLUP_KEY,
    bucket_of,
    event_row,
    pending_from_row,
    pending_row,
    result_row,
    rollup_values,
)
from turncheck.worker.store.tables import check_results, judge_pending, outbox, pass_rate_rollups

Key = tuple[str, str, str]
RESULT_KEY = ("turn_id", "check_name", "check_version")


def create_engine(url: str) -> AsyncEngine:
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_async_engine(url, pool_pre_ping=True)


class SqlStore:
    def __init__(self, engine: AsyncEngine, *, events_topic: str) -> None:
        self.engine = engine
        self.events_topic = events_topic
        dialect = engine.dialect.name
        self._insert = postgresql.insert if dialect == "postgresql" else sqlite.insert

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncConnection]:
        try:
            async with self.engine.begin() as conn:
                yield conn
        except (OperationalError, InterfaceError, OSError, ConnectionError) as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        except DBAPIError as exc:
            if exc.connection_invalidated:
                raise StoreUnavailable(type(exc).__name__) from exc
            raise

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        """Store a batch's results and pending judgements once; say what was new."""
        results = [
            (item.turn, result, item.turn.created_at + item.retention)
            for item in batch
            for result in item.results
        ]
        pending = [
            (p, item.turn.created_at + item.retention) for item in batch for p in item.pending
        ]
        if not results and not pending:
            return SaveReport(0, frozenset())
        async with self._transaction() as conn:
            new = await self._write_results(conn, results, now)
            recorded = await self._write_pending(conn, pending, now)
        return SaveReport(new, recorded)

    async def save_judged(
        self, turn: TurnRef, result: CheckResult, expires_at: datetime, now: datetime
    ) -> bool:
        """Store a judged result and drop its pending judgement; False if already stored."""
        async with self._transaction() as conn:
            new = await self._write_results(conn, [(turn, result, expires_at)], now)
            await conn.execute(
                delete(judge_pending).where(
                    judge_pending.c.turn_id == turn.turn_id,
                    judge_pending.c.check_name == result.check,
                    judge_pending.c.check_version == result.check_version,
                )
            )
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
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [pending_from_row(row) for row in rows]

    async def _write_results(
        self,
        conn: AsyncConnection,
        results: list[tuple[TurnRef, CheckResult, datetime]],
        now: datetime,
    ) -> int:
        if not results:
            return 0
        rows = [result_row(turn, result, now, expires) for turn, result, expires in results]
        statement = (
            self._insert(check_results)
            .on_conflict_do_nothing(index_elements=list(RESULT_KEY))
            .returning(*(check_results.c[name] for name in RESULT_KEY))
        )
        inserted = {tuple(r) for r in await conn.execute(statement, rows)}
        new_rows = [row for row in rows if tuple(row[k] for k in RESULT_KEY) in inserted]
        await self._add_to_rollups(conn, new_rows)
        events = [
            event_row(turn, result, self.events_topic, now)
            for turn, result, _ in results
            if (turn.turn_id, result.check, result.check_version) in inserted
            and result.verdict is not Verdict.PASSED
        ]
        if events:
            await conn.execute(
                self._insert(outbox).on_conflict_do_nothing(index_elements=["event_id"]), events
            )
        return len(new_rows)

    async def _add_to_rollups(self, conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
        values = rollup_values(rows)
        if not values:
            return
        statement = self._insert(pass_rate_rollups)
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
    ) -> frozenset[Key]:
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
            self._insert(judge_pending)
            .on_conflict_do_nothing(index_elements=list(RESULT_KEY))
            .returning(*(judge_pending.c[name] for name in RESULT_KEY))
        )
        return frozenset(tuple(r) for r in await conn.execute(statement, rows))

    async def results_for_turn(self, turn_id: str) -> list[StoredResult]:
        query = (
            select(check_results)
            .where(check_results.c.turn_id == turn_id)
            .order_by(check_results.c.id)
        )
        async with self._transaction() as conn:
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
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).mappings().all()
        return [
            PassRate(row["check_name"], row["agent_id"], *(int(row[n] or 0) for n in ROLLUP_COUNTS))
            for row in rows
        ]

    async def pending_events(self, limit: int) -> list[PendingEvent]:
        query = (
            select(outbox.c.id, outbox.c.topic, outbox.c.key, outbox.c.payload)
            .where(outbox.c.sent_at.is_(None))
            .order_by(outbox.c.id)
            .limit(limit)
        )
        async with self._transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [PendingEvent(row.id, row.topic, row.key, row.payload) for row in rows]

    async def mark_sent(self, ids: Sequence[int], now: datetime) -> None:
        if ids:
            async with self._transaction() as conn:
                await conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(sent_at=now))

    async def mark_failed(self, ids: Sequence[int]) -> None:
        if ids:
            async with self._transaction() as conn:
                await conn.execute(
                    update(outbox)
                    .where(outbox.c.id.in_(ids))
                    .values(attempts=outbox.c.attempts + 1)
                )

    async def close(self) -> None:
        await self.engine.dispose()
