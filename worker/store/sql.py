"""The SQL store (SQLAlchemy async): PostgreSQL in production, SQLite embedded.

``save`` is idempotent: a redelivered turn writes no second result, no second
rollup count and no second event. Results, rollups and outbox rows of a batch
are one transaction, so they can never disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from worker.checks import Verdict
from worker.errors import StoreUnavailable
from worker.events import check_failed_event
from worker.store.records import PassRate, PendingEvent, StoredResult, TurnResults
from worker.store.tables import check_results, outbox, pass_rate_rollups

ROLLUP_BUCKET = timedelta(hours=1)


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


def bucket_of(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


class SqlStore:
    def __init__(self, engine: AsyncEngine, *, events_topic: str) -> None:
        self.engine = engine
        self.events_topic = events_topic
        dialect = engine.dialect.name
        self._insert = postgresql.insert if dialect == "postgresql" else sqlite.insert

    @asynccontextmanager
    async def _transaction(self) -> Any:
        try:
            async with self.engine.begin() as conn:
                yield conn
        except (OperationalError, InterfaceError, OSError, ConnectionError) as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        except DBAPIError as exc:
            if exc.connection_invalidated:
                raise StoreUnavailable(type(exc).__name__) from exc
            raise

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> int:
        """Store every result of the batch once; return how many were new."""
        rows = list(_result_rows(batch, now))
        if not rows:
            return 0
        async with self._transaction() as conn:
            inserted = await self._insert_results(conn, rows)
            new = [
                row
                for row in rows
                if (row["turn_id"], row["check_name"], row["check_version"]) in inserted
            ]
            await self._add_to_rollups(conn, new)
            await self._add_events(conn, batch, inserted, now)
        return len(new)

    async def _insert_results(
        self, conn: AsyncConnection, rows: list[dict[str, Any]]
    ) -> set[tuple[str, str, str]]:
        statement = (
            self._insert(check_results)
            .on_conflict_do_nothing(index_elements=["turn_id", "check_name", "check_version"])
            .returning(
                check_results.c.turn_id, check_results.c.check_name, check_results.c.check_version
            )
        )
        result = await conn.execute(statement, rows)
        return {(r.turn_id, r.check_name, r.check_version) for r in result}

    async def _add_to_rollups(self, conn: AsyncConnection, rows: list[dict[str, Any]]) -> None:
        counts: Counter[tuple[str, str, str, datetime, str]] = Counter(
            (
                r["check_name"],
                r["agent_id"],
                r["agent_version"],
                bucket_of(r["turn_created_at"]),
                r["verdict"],
            )
            for r in rows
        )
        keys = sorted(
            {key[:4] for key in counts}
        )  # one order everywhere: no deadlocks between replicas
        if not keys:
            return
        values = [
            {
                "check_name": k[0],
                "agent_id": k[1],
                "agent_version": k[2],
                "bucket_start": k[3],
                **{verdict.value: counts[(*k, verdict.value)] for verdict in Verdict},
            }
            for k in keys
        ]
        statement = self._insert(pass_rate_rollups)
        statement = statement.on_conflict_do_update(
            index_elements=["check_name", "agent_id", "agent_version", "bucket_start"],
            set_={
                name: getattr(pass_rate_rollups.c, name) + getattr(statement.excluded, name)
                for name in ("passed", "failed", "errored")
            },
        )
        await conn.execute(statement, values)

    async def _add_events(
        self,
        conn: AsyncConnection,
        batch: Sequence[TurnResults],
        inserted: set[tuple[str, str, str]],
        now: datetime,
    ) -> None:
        rows = []
        for item in batch:
            for result in item.results:
                if result.verdict is Verdict.PASSED:
                    continue
                if (item.turn.turn_id, result.check, result.check_version) not in inserted:
                    continue
                evt = check_failed_event(item.turn, result, now)
                rows.append(
                    {
                        "event_id": evt.id,
                        "topic": self.events_topic,
                        "key": item.turn.turn_id,
                        "payload": evt.model_dump_json(),
                        "created_at": now,
                        "attempts": 0,
                    }
                )
        if rows:
            await conn.execute(
                self._insert(outbox).on_conflict_do_nothing(index_elements=["event_id"]), rows
            )

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
                r.check_name,
                r.agent_id,
                func.sum(r.passed).label("passed"),
                func.sum(r.failed).label("failed"),
                func.sum(r.errored).label("errored"),
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
            rows = (await conn.execute(query)).all()
        return [
            PassRate(
                row.check_name, row.agent_id, int(row.passed), int(row.failed), int(row.errored)
            )
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


def _result_rows(batch: Sequence[TurnResults], now: datetime) -> Iterator[dict[str, Any]]:
    for item in batch:
        turn = item.turn
        expires_at = turn.created_at + item.retention
        for result in item.results:
            yield {
                "turn_id": turn.turn_id,
                "check_name": result.check,
                "check_version": result.check_version,
                "check_kind": result.kind,
                "stage": result.stage,
                "mode": result.mode,
                "verdict": result.verdict.value,
                "score": result.score,
                "reason": result.reason,
                "spans": [span.as_dict() for span in result.spans],
                "usage": None,
                "thread_id": turn.thread_id,
                "person_id": turn.person_id,
                "agent_id": turn.agent.id,
                "agent_version": str(turn.agent.version),
                "turn_created_at": turn.created_at,
                "checked_at": now,
                "expires_at": expires_at,
            }


__all__ = ["SqlStore", "create_engine"]
