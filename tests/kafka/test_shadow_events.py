"""The Kafka worker with a live and a shadow check, on the in-memory and the real broker:
a turn failing both gives one event on the events topic and one webhook, the live
check's; the shadow check's failure is stored and counted all the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.conftest import fresh_store, service
from tests.factories import turn_bytes
from tests.kafka.backends import Backend, MemoryBackend, RealBackend, topic_names
from tests.kafka.test_worker_contract import wait_for
from tests.webhooks.receiver import Receiver, receiving
from tests.webhooks.support import SECRET
from turncheck.worker.app import build_worker, plan
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.tables import outbox
from turncheck.worker.store.webhook_admin import WebhookEndpoints

CHECKS = """
agent: support-bot
checks:
  - name: no-competitors
    kind: does_not_contain
    phrases: [HelpCo]
  - name: no-ticket-ids
    kind: pattern
    pattern: 'TCK-[0-9]{6}'
    rollout: shadow
"""


@pytest.fixture(params=["memory", pytest.param("real", marks=pytest.mark.kafka)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend()
    return RealBackend(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))


async def outbox_rows(store: Store) -> int:
    async with store.database.transaction() as conn:
        return int((await conn.execute(select(func.count()).select_from(outbox))).scalar_one())


async def test_a_shadow_checks_failure_emits_no_event_and_no_webhook(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    checks = tmp_path / "checks.yaml"
    checks.write_text(CHECKS)
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

        async def recorded() -> bool:
            return bool(await endpoints.status())

        async def both_stored() -> bool:
            return len(await store.queries.results_for_turn("t-1")) == 2

        async def posted() -> bool:
            return bool(_posts(receiver))

        async with backend.running(app, [s.topic_events]):
            await wait_for(recorded)  # a new endpoint starts at the newest event
            answer = "Ask HelpCo about ticket TCK-123456."
            await backend.produce(s.topic_turns, [(b"t-1", turn_bytes("t-1", answer))])
            await wait_for(both_stored)
            await wait_for(posted)
            # Both results were written in one transaction with their events: the one
            # outbox row is all there will ever be for this turn.
            assert await outbox_rows(store) == 1
            events = await backend.read(s.topic_events, 1)
        known = await store.rollouts.read()
    results = await store.queries.results_for_turn("t-1")
    assert sorted((r.check, r.verdict) for r in results) == [
        ("no-competitors", "failed"),
        ("no-ticket-ids", "failed"),
    ]
    assert [json.loads(e.value or b"{}")["data"]["check"] for e in events] == ["no-competitors"]
    assert _posts(receiver) == ["no-competitors"]
    assert known.shadow == frozenset({("support-bot", "no-ticket-ids")})
    await store.close()


def _posts(receiver: Receiver) -> list[str]:
    return [json.loads(r.body)["data"]["check"] for r in receiver.requests]
