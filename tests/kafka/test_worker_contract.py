"""What the Kafka worker promises, on the in-memory broker and on real Kafka alike."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import fresh_store, service
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes
from tests.kafka.backends import Backend, MemoryBackend, RealBackend, topic_names
from turncheck.worker.app import build_worker, plan
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

SECRET_ANSWER = "Ask HelpCo, your ticket TCK-123456 is with them"


@pytest.fixture(params=["memory", pytest.param("real", marks=pytest.mark.kafka)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend()
    return RealBackend(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))


@pytest.fixture
def worker_settings(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    database = (
        f"sqlite+aiosqlite:///{tmp_path}/t.db"
        if isinstance(backend, MemoryBackend)
        else request.getfixturevalue("run_database_url")
    )
    return Settings(
        kafka_bootstrap=backend.bootstrap,
        database_url=database,
        checks=[checks],
        outbox_interval_s=0.05,
        batch_timeout_ms=50,
        shutdown_timeout_s=5,
        **topic_names(),
    )


@pytest.fixture
async def store(worker_settings: Settings) -> AsyncIterator[Store]:
    s = await fresh_store(worker_settings.database_url)
    yield s
    await s.close()


async def wait_for(probe: Any, timeout_s: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not await probe():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def stored_turns(store: Store, *turn_ids: str) -> bool:
    for turn_id in turn_ids:
        if not await store.queries.results_for_turn(turn_id):
            return False
    return True


async def test_turns_are_checked_stored_and_bad_messages_dead_lettered(
    backend: Backend, worker_settings: Settings, store: Store
) -> None:
    s = worker_settings
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))
    async with backend.running(app, [s.topic_dlq, s.topic_events]):
        await backend.produce(
            s.topic_turns,
            [
                (b"t-1", turn_bytes("t-1", SECRET_ANSWER)),
                (b"bad", b'{"schema": "turn.stored/v1", "turn_id": 5'),
                (b"t-2", turn_bytes("t-2", "All good.")),
                (b"t-3", turn_bytes("t-3", output=7)),
            ],
        )
        await wait_for(lambda: stored_turns(store, "t-1", "t-2"))
        dead = await backend.read(s.topic_dlq, 2)
        events = await backend.read(s.topic_events, 2)

    verdicts = {r.check: r.verdict for r in await store.queries.results_for_turn("t-1")}
    assert verdicts == {"no-competitors": "failed", "no-ticket-ids": "failed"}
    assert {r.verdict for r in await store.queries.results_for_turn("t-2")} == {"passed"}

    by_key = {d.key: d for d in dead}
    assert set(by_key) == {b"bad", b"t-3"}
    assert by_key[b"bad"].value == b'{"schema": "turn.stored/v1", "turn_id": 5'
    assert by_key[b"bad"].headers["turncheck-reason"] == b"not valid JSON"
    assert b"output.text" in by_key[b"t-3"].headers["turncheck-reason"]

    assert len(events) == 2
    for event in events:
        assert event.key == b"t-1"
        payload = json.loads(event.value)
        assert payload["type"] == "response.check_failed"
        assert payload["data"]["verdict"] == "failed"
        for fragment in ("HelpCo", "TCK-123456", "with them", "[0-9]{6}"):
            assert fragment not in event.value.decode()
    assert len({json.loads(e.value)["id"] for e in events}) == 2
