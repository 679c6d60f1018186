"""Writing a batch: results, pass-rate rollups, outbox rows and pending judgements.

Idempotent: a redelivered turn, or a turn sent twice in one batch, writes no
second result, no second rollup count, no second event and no second pending
judgement. A batch's rows are one transaction, so they never disagree.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Hashable, Sequence
from datetime import datetime
from typing import TypeVar

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.checks import CheckResult
from turncheck.worker.pipeline.records import (
    PendingJudgement,
    ResultKey,
    SaveReport,
    TurnRef,
    TurnResults,
)
from turncheck.worker.store.database import Database
from turncheck.worker.store.rows import RESULT_KEY, pending_from_row, pending_row
from turncheck.worker.store.tables import judge_pending
from turncheck.worker.store.turn_parts import stored_keys
from turncheck.worker.store.turn_writes import COPY_FROM, CopyFrom, TurnWrite, TurnWriter

T = TypeVar("T")


def _writes(batch: Sequence[TurnResults]) -> list[TurnWrite]:
    """One write per turn, each result key once: a producer that retried may put a turn in
    a batch twice, and one statement must not count the same result twice."""
    if len({item.turn.turn_id for item in batch}) == len(batch):
        # The usual batch: every turn once, so only a turn's own results can repeat a key.
        return [
            TurnWrite.of(item.turn, _unique(item.results), item.expires_at)
            for item in batch
            if item.results
        ]
    writes: dict[str, tuple[TurnResults, list[CheckResult]]] = {}
    seen: set[ResultKey] = set()
    for item in batch:
        results = []
        for result in item.results:
            key = item.turn.key(result.check)
            if key not in seen:
                seen.add(key)
                results.append(result)
        if not results:
            continue
        earlier = writes.get(item.turn.turn_id)
        if earlier is None:
            writes[item.turn.turn_id] = (item, results)
        else:
            earlier[1].extend(results)
    return [TurnWrite.of(item.turn, results, item.expires_at) for item, results in writes.values()]


def _unique(results: list[CheckResult]) -> list[CheckResult]:
    if len({(r.check.name, r.check.version) for r in results}) == len(results):
        return results
    return _first_of_each(results, lambda r: (r.check.name, r.check.version))


def _first_of_each(items: Sequence[T], key: Callable[[T], Hashable]) -> list[T]:
    """Keep the first item of each key (a turn twice in a batch)."""
    seen: set[Hashable] = set()
    kept = []
    for item in items:
        k = key(item)
        if k not in seen:
            seen.add(k)
            kept.append(item)
    return kept


class ResultWriter:
    def __init__(
        self,
        database: Database,
        *,
        events_topic: str,
        shadow: frozenset[tuple[str, str]] = frozenset(),
        copy: bool = True,
        copy_from: CopyFrom = COPY_FROM,
    ) -> None:
        """``copy``: on PostgreSQL, a table's rows go in by COPY (``staging``) when they are
        as many as ``copy_from`` says; False keeps them all to statements, as on SQLite
        (the bench and the tests compare the two)."""
        self.database = database
        self.turns = TurnWriter(
            database,
            events_topic=events_topic,
            shadow=shadow,
            copy=copy,
            copy_from=copy_from,
        )

    def with_shadow(self, shadow: frozenset[tuple[str, str]]) -> ResultWriter:
        """This writer for a check set whose checks ``shadow`` ((agent, check name)) are
        shadow: their results are stored and counted the same, with no event. A copy, so
        a writer that does more than store (a test's, a wrapper) keeps doing it."""
        writer = copy.copy(self)
        writer.turns = TurnWriter(
            self.database,
            events_topic=self.turns.events_topic,
            shadow=shadow,
            copy=self.turns.copy,
            copy_from=self.turns.copy_from,
        )
        return writer

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        """Store a batch's results and pending judgements once; say what was new."""
        writes = _writes(batch)
        pending = _first_of_each(
            [(p, item.expires_at) for item in batch for p in item.pending], lambda p: p[0].key
        )
        if not writes and not pending:
            return SaveReport(0, frozenset())
        async with self.database.transaction() as conn:
            new = await self.turns.write(conn, writes, now) if writes else []
            recorded = await self._write_pending(conn, pending, now)
        return SaveReport(sum(len(results) for _, results in new), recorded)

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
            new = await self.turns.write(conn, [TurnWrite.of(turn, [result], expires_at)], now)
        return sum(len(results) for _, results in new) == 1

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

    async def _write_pending(
        self,
        conn: AsyncConnection,
        pending: list[tuple[PendingJudgement, datetime]],
        now: datetime,
    ) -> frozenset[ResultKey]:
        """Record judgements to make, except those already judged or already pending."""
        if not pending:
            return frozenset()
        done, _ = await stored_keys(conn, [item.turn.turn_id for item, _ in pending])
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
