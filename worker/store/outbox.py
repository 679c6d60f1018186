"""The outbox table: events written with their results, waiting to be sent."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select, update

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import outbox
from turncheck.worker.store.views import PendingEvent


class OutboxTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def pending_events(self, limit: int) -> list[PendingEvent]:
        query = (
            select(outbox.c.id, outbox.c.topic, outbox.c.key, outbox.c.payload)
            .where(outbox.c.sent_at.is_(None))
            .order_by(outbox.c.id)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [PendingEvent(row.id, row.topic, row.key, row.payload) for row in rows]

    async def mark_sent(self, ids: Sequence[int], now: datetime) -> None:
        if ids:
            async with self.database.transaction() as conn:
                await conn.execute(update(outbox).where(outbox.c.id.in_(ids)).values(sent_at=now))

    async def mark_failed(self, ids: Sequence[int]) -> None:
        if ids:
            async with self.database.transaction() as conn:
                await conn.execute(
                    update(outbox)
                    .where(outbox.c.id.in_(ids))
                    .values(attempts=outbox.c.attempts + 1)
                )
