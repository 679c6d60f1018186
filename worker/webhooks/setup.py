"""Webhooks as the settings configure them: the endpoints, checked, and the loop."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from turncheck.worker.clock import Clock
from turncheck.worker.settings import Settings, secret_variable
from turncheck.worker.store import Database
from turncheck.worker.store.webhook_admin import WebhookEndpoints
from turncheck.worker.store.webhooks import WebhookTable
from turncheck.worker.webhooks.config import Endpoint, load_webhooks
from turncheck.worker.webhooks.delivery import Deliverer, WebhookPolicy, run_webhooks
from turncheck.worker.webhooks.sender import WebhookSender


def webhook_endpoints(settings: Settings) -> list[Endpoint]:
    """The configured endpoints; ``WebhookConfigError`` for a bad one (at start)."""
    return load_webhooks(settings.webhooks, secret_variable, settings.webhook_allow_private)


async def serve_webhooks(
    settings: Settings,
    endpoints: Sequence[Endpoint],
    database: Database,
    clock: Clock,
    stop: asyncio.Event,
) -> None:
    """Deliver to ``endpoints`` until ``stop`` is set, then give requests in hand up to
    ``shutdown_timeout_s`` to end; the HTTP client closes after."""
    sender = WebhookSender(settings.webhook_timeout_s, settings.webhook_allow_private)
    deliverer = Deliverer(
        endpoints,
        WebhookTable(database),
        WebhookEndpoints(database),
        sender,
        clock,
        WebhookPolicy.of(settings),
    )
    try:
        await run_webhooks(
            deliverer, settings.webhook_interval_s, stop, settings.shutdown_timeout_s
        )
    finally:
        await sender.aclose()
