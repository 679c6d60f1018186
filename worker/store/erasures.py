"""The statements of erasure: the ledger of erased persons (a keyed hash each, never
the id), and the deletion of what is stored of one person."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import (
    check_results,
    erasures,
    judge_pending,
    labels,
    outbox,
    passed_results,
)

CHUNK = 500
"""Ids per IN list: well under every driver's limit on bound parameters."""


@dataclass(frozen=True, slots=True)
class ErasedRows:
    """What one erasure deleted."""

    results: int
    pending_judgements: int
    events: int
    labels: int = 0


class ErasureTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def erase(
        self, person_key: str, person_id: str, *, requested_at: datetime, now: datetime
    ) -> ErasedRows:
        """In one transaction: the ledger row first (kept if already there), then the
        person's results in both shapes, their labels, pending judgements and unsent
        events."""
        r, p, o = check_results.c, judge_pending.c, outbox.c
        async with self.database.transaction() as conn:
            await conn.execute(
                self.database.insert(erasures)
                .values(person_key=person_key, requested_at=requested_at, erased_at=now)
                .on_conflict_do_nothing(index_elements=["person_key"])
            )
            turns = (
                select(r.turn_id)
                .where(r.person_id == person_id)
                .union(select(p.turn_id).where(p.person_id == person_id))
            )
            turn_ids = [row[0] for row in await conn.execute(turns)]
            events = 0
            for start in range(0, len(turn_ids), CHUNK):
                chunk = turn_ids[start : start + CHUNK]
                unsent = delete(outbox).where(o.key.in_(chunk), o.sent_at.is_(None))
                events += (await conn.execute(unsent)).rowcount
            # Pending rows before parts, the order a judged result's write takes them in
            # (``ResultWriter.save_judged``), so the two never wait on each other in a circle.
            pending = await conn.execute(delete(judge_pending).where(p.person_id == person_id))
            results = await conn.execute(delete(check_results).where(r.person_id == person_id))
            # After the results: a label being set locks its result first
            # (``LabelTable.set``), so this sees the label once that result is free.
            labelled = await conn.execute(delete(labels).where(labels.c.person_id == person_id))
            passed = await conn.execute(
                delete(passed_results)
                .where(passed_results.c.person_id == person_id)
                .returning(passed_results.c.passed)
            )
            passed_count = sum(n for (n,) in passed)
        return ErasedRows(
            results.rowcount + passed_count, pending.rowcount, events, labelled.rowcount
        )

    async def known(self, person_keys: Sequence[str]) -> set[str]:
        """Which of these keys the ledger holds."""
        column = erasures.c.person_key
        found: set[str] = set()
        async with self.database.transaction() as conn:
            for start in range(0, len(person_keys), CHUNK):
                query = select(column).where(column.in_(person_keys[start : start + CHUNK]))
                found |= {key for (key,) in await conn.execute(query)}
        return found

    async def holds_any(self) -> bool:
        """Whether anyone was ever erased: one EXISTS on the primary key, cheap enough to
        ask before every batch."""
        query = select(select(erasures.c.person_key).exists())
        async with self.database.transaction() as conn:
            return bool((await conn.execute(query)).scalar())

    async def count(self) -> int:
        """How many persons the ledger holds."""
        query = select(func.count()).select_from(erasures)
        async with self.database.transaction() as conn:
            return int((await conn.execute(query)).scalar_one())

    async def oldest_since(self, since: datetime) -> datetime | None:
        """When the oldest erasure made at or after ``since`` was made; None if none was."""
        query = (
            select(erasures.c.erased_at)
            .where(erasures.c.erased_at >= since)
            .order_by(erasures.c.erased_at)
            .limit(1)
        )
        async with self.database.transaction() as conn:
            return (await conn.execute(query)).scalar()
