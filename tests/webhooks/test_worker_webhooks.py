"""The webhook loop inside the real worker, on the in-memory and the real broker: a
failing turn's events reach a receiver signed, the same JSON as on Kafka, no text."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from standardwebhooks.webhooks import Webhook

from tests.conftest import fresh_store, service
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes
from tests.kafka.backends import Backend, MemoryBackend, RealBackend, topic_names
from tests.webhooks.receiver import Receiver, receiving
from tests.webhooks.support import SECRET
from turncheck.worker.app import build_worker, plan
from turncheck.worker.settings import Settings
from turncheck.worker.store.webhook_admin import WebhookEndpoints

SECRET_ANSWER = "Ask HelpCo, your ticket TCK-123456 is with them"


@pytest.fixture(params=["memory", pytest.param("real", marks=pytest.mark.kafka)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend()
    return RealBackend(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))


async def until(probe: Callable[[], Awaitable[bool]], timeout_s: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not await probe():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def test_the_worker_posts_a_failing_turns_events_to_the_webhook(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """Two failed checks: two signed posts whose bodies are the Kafka events, without the turn's text."""
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    database = (
        f"sqlite+aiosqlite:///{tmp_path}/t.db"
        if isinstance(backend, MemoryBackend)
        else request.getfixturevalue("run_database_url")
    )
    async with receiving() as receiver:
        s = Settings(
            kafka_bootstrap=backend.bootstrap,
            database_url=database,
            checks=[checks],
            outbox_interval_s=0.05,
            batch_timeout_ms=50,
            shutdown_timeout_s=5,
            webhooks=json.dumps([{"name": "ops", "url": receiver.url, "secret": SECRET}]),
            webhook_allow_private=True,
            webhook_interval_s=0.05,
            **topic_names(),
        )
        store = await fresh_store(s.database_url, s.topic_events)
        await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq)
        app = build_worker(plan(s), store=store)
        endpoints = WebhookEndpoints(store.database)
        async with backend.running(app, [s.topic_events]):
            # A new endpoint starts at the newest event: produce once it is recorded.
            await until(lambda: _recorded(endpoints))
            await backend.produce(s.topic_turns, [(b"t-1", turn_bytes("t-1", SECRET_ANSWER))])
            await until(lambda: _arrived(receiver, 2))
            events = await backend.read(s.topic_events, 2)
    verifier = Webhook(SECRET)
    bodies = sorted(r.body for r in receiver.requests)
    assert bodies == sorted(e.value for e in events if e.value is not None)
    for req in receiver.requests:
        payload = verifier.verify(req.body, req.headers)
        assert payload["type"] == "response.check_failed"
        assert req.headers["webhook-id"] == payload["id"]
        assert payload["data"]["turn_id"] == "t-1"
        for fragment in ("HelpCo", "TCK-123456", "with them"):
            assert fragment not in req.body.decode()


async def _recorded(endpoints: WebhookEndpoints) -> bool:
    return bool(await endpoints.status())


async def _arrived(receiver: Receiver, count: int) -> bool:
    return len(receiver.requests) >= count
