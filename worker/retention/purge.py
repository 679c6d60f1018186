"""Retention: delete what has expired, a bounded chunk per transaction.

Results (both shapes), their labels and pending judgements go once their turn's retention
window has passed (``expires_at``), sent events once the outbox has kept them long enough.
Each chunk is one short transaction deleting at most ``chunk_rows`` rows by primary key, so the
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

from turncheck.worker.outbox.publisher import OutboxStore, purge_sent_events
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.settings import DEFAULTS
from turncheck.worker.store.database import Database
from turncheck.worker.store.erasures import ErasureTable
from turncheck.worker.store.expiry import ExpiryTable

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
    labels: int = 0
    """Labels of the expired results (``worker/store/labels.py``)."""
    chunks: int = 0
    longest_chunk_s: float = 0.0
    """The longest single delete transaction: how long its row locks were held."""

    def as_dict(self) -> dict[str, float | int]:
        return {
            "results": self.results,
            "pending_judgements": self.pending_judgements,
            "events": self.events,
            "swept": self.swept,
            "labels": self.labels,
            "chunks": self.chunks,
            "longest_chunk_s": round(self.longest_chunk_s, 4),
        }


class Purger:
    def __init__(
        self,
        database: Database,
        *,
        chunk_rows: int = DEFAULTS.purge_chunk_rows,
        purge_events: Callable[[datetime], Awaitable[int]] | None = None,
        eraser: Eraser | None = None,
        timer: Callable[[], float] | None = None,
    ) -> None:
        """``purge_events``: the outbox's own purge of sent events; ``eraser``: for the
        sweep of recent erasures (None: no erasure key, nothing to sweep)."""
        self.expiry = ExpiryTable(database)
        self.erasures = ErasureTable(database)
        self.chunk_rows = chunk_rows
        self.purge_events = purge_events
        self.eraser = eraser
        self.timer = timer or time.perf_counter
        self._chunks = 0
        self._longest_s = 0.0

    async def purge(self, now: datetime) -> PurgeReport:
        self._chunks, self._longest_s = 0, 0.0
        results = await self._delete_expired("results", now)
        results += await self._delete_expired("passed", now)
        pending = await self._delete_expired("pending_judgements", now)
        labelled = await self._delete_expired("labels", now)
        events = await self.purge_events(now) if self.purge_events else 0
        swept = await self.sweep(now)
        report = PurgeReport(
            results, pending, events, swept, labelled, self._chunks, self._longest_s
        )
        if results or pending or events or swept or labelled:
            log.info(
                "purged results=%d pending_judgements=%d events=%d swept=%d labels=%d chunks=%d",
                results,
                pending,
                events,
                swept,
                labelled,
                self._chunks,
            )
        return report

    async def _delete_expired(self, what: str, now: datetime) -> int:
        """A chunk of the expired rows at a time, until fewer than a chunk are left; the
        results deleted."""
        total = 0
        while True:
            started = self.timer()
            rows, results = await self.expiry.delete_expired(what, now, self.chunk_rows)
            self._chunks += 1
            self._longest_s = max(self._longest_s, self.timer() - started)
            total += results
            if rows < self.chunk_rows:
                return total

    async def sweep(self, now: datetime) -> int:
        """Delete results of persons erased in the last ``SWEEP_WINDOW`` that were stored
        after their erasure began."""
        if self.eraser is None:
            return 0
        since = await self.erasures.oldest_since(now - SWEEP_WINDOW)
        if since is None:
            return 0
        persons = await self.expiry.persons_checked_since(since - timedelta(minutes=5))
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
