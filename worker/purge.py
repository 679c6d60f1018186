"""Retention: delete what has expired, a bounded chunk per transaction.

Results (both shapes) and pending judgements go once their turn's retention window has passed
(``expires_at``), sent events once the outbox has kept them long enough. Each chunk
is one short transaction deleting at most ``chunk_rows`` rows by primary key, so the
worker's writes never wait long behind a purge. Pass-rate rollups stay: they are
anonymous counts per check and hour, and the rates people query go back further than
the results.

A purge also sweeps recent erasures: a batch that was being checked while its person
was erased can be stored just after; the sweep deletes such results within one purge
interval. It looks at the results stored since the oldest recent erasure only.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Delete, Table, delete, select, tuple_

from turncheck.worker.erasure import Eraser
from turncheck.worker.outbox import OutboxStore, purge_sent_events
from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results, erasures, judge_pending, passed_results

log = logging.getLogger(__name__)

SWEEP_WINDOW = timedelta(hours=1)
"""How long after an erasure its person's results are looked for again."""


@dataclass(frozen=True, slots=True)
class PurgeReport:
    results: int = 0
    pending_judgements: int = 0
    events: int = 0
    swept: int = 0
    """Results of persons erased while their turns were in flight."""
    chunks: int = 0
    longest_chunk_s: float = 0.0
    """The longest single delete transaction: how long its row locks were held."""

    def as_dict(self) -> dict[str, float | int]:
        return {
            "results": self.results,
            "pending_judgements": self.pending_judgements,
            "events": self.events,
            "swept": self.swept,
            "chunks": self.chunks,
            "longest_chunk_s": round(self.longest_chunk_s, 4),
        }


class Purger:
    def __init__(
        self,
        database: Database,
        *,
        chunk_rows: int = 1000,
        purge_events: Callable[[datetime], Awaitable[int]] | None = None,
        eraser: Eraser | None = None,
        timer: Callable[[], float] | None = None,
    ) -> None:
        """``purge_events``: the outbox's own purge of sent events; ``eraser``: for the
        sweep of recent erasures (None: no erasure key, nothing to sweep)."""
        self.database = database
        self.chunk_rows = chunk_rows
        self.purge_events = purge_events
        self.eraser = eraser
        self.timer = timer or time.perf_counter
        self._chunks = 0
        self._longest_s = 0.0

    async def purge(self, now: datetime) -> PurgeReport:
        self._chunks, self._longest_s = 0, 0.0
        results = await self._delete_expired(check_results, now)
        results += await self._delete_expired(passed_results, now, passed_results.c.passed)
        pending = await self._delete_expired(judge_pending, now)
        events = await self.purge_events(now) if self.purge_events else 0
        swept = await self.sweep(now)
        report = PurgeReport(results, pending, events, swept, self._chunks, self._longest_s)
        if results or pending or events or swept:
            log.info(
                "purged results=%d pending_judgements=%d events=%d swept=%d chunks=%d",
                results,
                pending,
                events,
                swept,
                self._chunks,
            )
        return report

    async def _delete_expired(
        self, table: Table, now: datetime, holds: ColumnElement[int] | None = None
    ) -> int:
        """Delete by primary key, a chunk of the expired rows at a time; the results
        deleted: a row each, or the sum of ``holds`` (a write of passed results)."""
        key = tuple_(*table.primary_key.columns)
        total = 0
        while True:
            chunk = select(*table.primary_key.columns).where(table.c.expires_at < now)
            statement = delete(table).where(key.in_(chunk.limit(self.chunk_rows)))
            rows, results = await self._timed(statement, holds)
            total += results
            if rows < self.chunk_rows:
                return total

    async def _timed(
        self, statement: Delete, holds: ColumnElement[int] | None = None
    ) -> tuple[int, int]:
        """Rows deleted, and the results they held."""
        started = self.timer()
        async with self.database.transaction() as conn:
            if holds is None:
                rows = results = int((await conn.execute(statement)).rowcount)
            else:
                counts = [n for (n,) in await conn.execute(statement.returning(holds))]
                rows, results = len(counts), sum(counts)
        self._chunks += 1
        self._longest_s = max(self._longest_s, self.timer() - started)
        return rows, results

    async def sweep(self, now: datetime) -> int:
        """Delete results of persons erased in the last ``SWEEP_WINDOW`` that were stored
        after their erasure began."""
        if self.eraser is None:
            return 0
        async with self.database.transaction() as conn:
            since = (
                await conn.execute(
                    select(erasures.c.erased_at)
                    .where(erasures.c.erased_at >= now - SWEEP_WINDOW)
                    .order_by(erasures.c.erased_at)
                    .limit(1)
                )
            ).scalar()
            if since is None:
                return 0
            persons: set[str] = set()
            for table in (check_results, passed_results):
                recent = select(table.c.person_id).where(
                    table.c.checked_at >= since - timedelta(minutes=5),
                    table.c.person_id.is_not(None),
                )
                persons |= {row[0] for row in await conn.execute(recent.distinct())}
        gone = await self.eraser.erased(persons)
        swept = 0
        for person_id in gone:
            receipt = await self.eraser.erase(person_id, requested_at=now, now=now)
            swept += receipt.results
        return swept


def outbox_purge(
    outbox: OutboxStore, keep_sent_s: float, chunk_rows: int
) -> Callable[[datetime], Awaitable[int]]:
    """The outbox's purge of sent events, run to the end a chunk at a time."""

    async def purge(now: datetime) -> int:
        return await purge_sent_events(outbox, now - timedelta(seconds=keep_sent_s), chunk_rows)

    return purge
