from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from turncheck.worker.webhooks import WebhookSender


@pytest.fixture
async def senders() -> AsyncIterator[list[WebhookSender]]:
    """Senders a test made; closed when it ends."""
    made: list[WebhookSender] = []
    yield made
    for sender in made:
        await sender.aclose()
