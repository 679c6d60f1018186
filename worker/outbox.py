"""Deliver outbox rows (``response.check_failed`` events) at least once.

A row is marked sent only after the broker acknowledged it; a row whose send
failed stays pending and is tried again on the next round.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Protocol

from turncheck.worker.store import PendingEvent

log = logging.getLogger(__name__)

Send = Callable[[str, str, bytes], Awaitable[None]]
"""``send(topic, key, payload)``: returns once the broker has the event; raises otherwise."""


class OutboxStore(Protocol):
    async def pending_events(self, limit: int) -> list[PendingEvent]: ...
    async def mark_sent(self, ids: Sequence[int], now: datetime) -> None: ...
    async def mark_failed(self, ids: Sequence[int]) -> None: ...


async def publish_pending(
    store: OutboxStore, send: Send, clock: Callable[[], datetime], limit: int = 500
) -> int:
    """Send one round of pending events; return how many were sent."""
    pending = await store.pending_events(limit)
    sent: list[int] = []
    try:
        for row in pending:
            await send(row.topic, row.key, row.payload.encode())
            sent.append(row.id)
    except Exception as exc:
        log.warning("event send failed sent=%d error=%s", len(sent), type(exc).__name__)
        await store.mark_failed([row.id for row in pending[len(sent) : len(sent) + 1]])
    finally:
        await store.mark_sent(sent, clock())
    return len(sent)


async def drain(store: OutboxStore, send: Send, clock: Callable[[], datetime]) -> int:
    """Send until nothing is pending or a round sends nothing."""
    total = 0
    while sent := await publish_pending(store, send, clock):
        total += sent
    return total


async def run_outbox(
    store: OutboxStore,
    send: Send,
    clock: Callable[[], datetime],
    interval_s: float,
    stop: asyncio.Event,
) -> None:
    """Poll and send until ``stop`` is set; one failing round never ends the loop."""
    while not stop.is_set():
        try:
            await drain(store, send, clock)
        except Exception as exc:
            log.warning("outbox round failed error=%s", type(exc).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=interval_s)
