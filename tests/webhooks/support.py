"""Webhook test helpers: a secret, an endpoint, a clock that moves when told, and a
deliverer over a real store."""

from __future__ import annotations

import asyncio
import base64
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from tests.store.outbox_rows import add_events
from turncheck.worker.store import Store
from turncheck.worker.store.tables import outbox
from turncheck.worker.store.webhook_admin import WebhookEndpoints
from turncheck.worker.store.webhooks import HORIZON, WebhookTable
from turncheck.worker.webhooks import Deliverer, Endpoint, WebhookPolicy, WebhookSender
from turncheck.worker.webhooks.signing import secret_key

SECRET = "whsec_" + base64.b64encode(b"k" * 32).decode()


class Clock:
    """Starts at the real time (signatures are checked against it) and moves when told."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC).replace(microsecond=0)

    def __call__(self) -> datetime:
        return self.at

    def advance(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


def endpoint(url: str, name: str = "ops", enabled: bool = True) -> Endpoint:
    return Endpoint(name, url, secret_key(SECRET), enabled)


def deliverer(
    senders: list[WebhookSender],
    store: Store,
    endpoints: list[Endpoint],
    clock: Clock,
    *,
    allow_private: bool = True,
    policy: WebhookPolicy = WebhookPolicy(),
    jitter: float = 0.5,
    timeout_s: float = 5,
) -> Deliverer:
    """A deliverer posting for real (its sender added to ``senders``, to close);
    ``jitter`` fixed so backoffs are known."""
    sender = WebhookSender(timeout_s=timeout_s, allow_private=allow_private)
    senders.append(sender)
    return Deliverer(
        endpoints,
        WebhookTable(store.database),
        WebhookEndpoints(store.database),
        sender,
        clock,
        policy,
        jitter=lambda: jitter,
    )


async def add_settled(store: Store, count: int, **options: Any) -> list[str]:
    """``add_events``, then wait until no open transaction on the server (another test
    run's, say) holds them back from webhooks, so a round's count is exact."""
    ids = await add_events(store, count, **options)
    if store.database.dialect == "postgresql":
        horizon = select(func.count()).where(outbox.c.xid >= HORIZON)
        deadline = asyncio.get_running_loop().time() + 10
        while True:
            async with store.database.transaction() as conn:
                if not (await conn.execute(horizon)).scalar_one():
                    break
            assert asyncio.get_running_loop().time() < deadline, "an open transaction held them"
            await asyncio.sleep(0.01)
    return ids
