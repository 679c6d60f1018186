"""Outbox rows for tests: written straight into the table, read straight back."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import select, update

from tests.factories import FIXED_NOW
from turncheck.worker.store import Store
from turncheck.worker.store.tables import outbox

TOPIC = "events"


async def add_events(
    store: Store, count: int, prefix: str = "e", topic: str = TOPIC, now: datetime = FIXED_NOW
) -> list[str]:
    """Insert ``count`` unsent events; return their event ids, oldest first."""
    ids = [f"evt_{prefix}{i:05d}" for i in range(count)]
    rows = [
        {
            "event_id": event_id,
            "topic": topic,
            "key": f"{prefix}-{i}",
            "payload": json.dumps({"id": event_id}),
            "created_at": now,
        }
        for i, event_id in enumerate(ids)
    ]
    async with store.database.transaction() as conn:
        await conn.execute(outbox.insert(), rows)
    return ids


async def rows_by_event(store: Store) -> dict[str, Any]:
    """Every outbox row, by event id."""
    async with store.database.transaction() as conn:
        rows = (await conn.execute(select(outbox))).all()
    return {row.event_id: row for row in rows}


async def set_sent(store: Store, event_ids: list[str], sent_at: datetime) -> None:
    async with store.database.transaction() as conn:
        await conn.execute(
            update(outbox).where(outbox.c.event_id.in_(event_ids)).values(sent_at=sent_at)
        )


def event_id_of(payload: bytes) -> str:
    event_id: str = json.loads(payload)["id"]
    return event_id
