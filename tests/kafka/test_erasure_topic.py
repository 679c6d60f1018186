"""Erasure requests on their topic, on the in-memory broker and on real Kafka: the
person's results go, and their old turns delivered again store nothing."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import fresh_store, service
from tests.factories import BANNED_WORDS_CHECKS, turn_bytes
from tests.kafka.backends import Backend, MemoryBackend, RealBackend, topic_names
from tests.kafka.test_worker_contract import stored_turns, wait_for
from turncheck.worker.app import build_worker, plan
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store

KEY = "test-erasure-key"


@pytest.fixture(params=["memory", pytest.param("real", marks=pytest.mark.kafka)])
def backend(request: pytest.FixtureRequest) -> Backend:
    if request.param == "memory":
        return MemoryBackend()
    return RealBackend(service("TURNCHECK_TEST_KAFKA_BOOTSTRAP"))


def settings_for(
    backend: Backend, tmp_path: Path, database_url: str, **overrides: object
) -> Settings:
    checks = tmp_path / "checks.yaml"
    checks.write_text(BANNED_WORDS_CHECKS)
    given: dict[str, Any] = {
        "kafka_bootstrap": backend.bootstrap,
        "database_url": database_url,
        "checks": [checks],
        "outbox_interval_s": 0.05,
        "batch_timeout_ms": 50,
        "shutdown_timeout_s": 5,
        "erasure_key": KEY,
        "topic_erasure": f"erasure-{uuid.uuid4().hex[:10]}",
        **topic_names(),
    }
    return Settings(**{**given, **overrides})


def turns_of(person: str, *turn_ids: str) -> list[tuple[bytes, bytes | None]]:
    """Turns that have just ended: the worker checks them on the real clock, and a turn
    past its retention window on arrival would be skipped."""
    created_at = datetime.now(UTC).isoformat()
    return [
        (t.encode(), turn_bytes(t, "Ask HelpCo.", person_id=person, created_at=created_at))
        for t in turn_ids
    ]


def erasure_request(person: str, requested_at: str = "2026-12-01T10:00:00Z") -> bytes:
    return json.dumps({"person_id": person, "requested_at": requested_at}).encode()


async def results_of(store: Store, *turn_ids: str) -> int:
    return sum([len(await store.queries.results_for_turn(t)) for t in turn_ids])


async def test_an_erased_person_s_old_turns_delivered_again_store_nothing(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = (
        f"sqlite+aiosqlite:///{tmp_path}/t.db"
        if isinstance(backend, MemoryBackend)
        else request.getfixturevalue("run_database_url")
    )
    s = settings_for(backend, tmp_path, url)
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq, s.topic_erasure)
    store = await fresh_store(s.database_url, s.topic_events)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))
    async with backend.running(app, [s.topic_dlq]):
        await backend.produce(
            s.topic_turns, turns_of("alice", "a-1", "a-2") + turns_of("bob", "b-1")
        )
        await wait_for(lambda: stored_turns(store, "a-1", "a-2", "b-1"))
        await backend.produce(
            s.topic_erasure, [(b"alice", erasure_request("alice")), (b"bad", b"{oops")]
        )

        async def alice_gone() -> bool:
            return await results_of(store, "a-1", "a-2") == 0

        await wait_for(alice_gone)
        [dead] = await backend.read(s.topic_dlq, 1)
        assert dead.key == b"bad" and dead.headers["turncheck-reason"] == b"not valid JSON"
        # A replay or a late redelivery of alice's old turns, and a new turn of bob's.
        await backend.produce(
            s.topic_turns, turns_of("alice", "a-1", "a-2") + turns_of("bob", "b-2")
        )
        await wait_for(lambda: stored_turns(store, "b-2"))
    assert await results_of(store, "a-1", "a-2") == 0
    assert await results_of(store, "b-1", "b-2") == 4
    assert await Eraser(store.database, KEY.encode()).erased(["alice", "bob"]) == {"alice"}
    await store.close()


def database_for(backend: Backend, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if isinstance(backend, MemoryBackend):
        return f"sqlite+aiosqlite:///{tmp_path}/t.db"
    url: str = request.getfixturevalue("run_database_url")
    return url


async def test_a_request_out_of_range_in_utc_is_dead_lettered_and_those_behind_it_go_on(
    backend: Backend, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The contract refuses a requested_at that cannot be written in UTC: the request is
    dead-lettered with its reason, and the erasure behind it on its partition is made."""
    s = settings_for(backend, tmp_path, database_for(backend, tmp_path, request))
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq, s.topic_erasure)
    store = await fresh_store(s.database_url, s.topic_events)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))
    async with backend.running(app, [s.topic_dlq]):
        await backend.produce(s.topic_turns, turns_of("alice", "a-1") + turns_of("bob", "b-1"))
        await wait_for(lambda: stored_turns(store, "a-1", "b-1"))
        bad = erasure_request("alice", requested_at="0001-01-01T00:00:00+14:00")
        # One key, so one partition: bob's request waits behind the bad one.
        await backend.produce(s.topic_erasure, [(b"k", bad), (b"k", erasure_request("bob"))])

        async def bob_gone() -> bool:
            return await results_of(store, "b-1") == 0

        await wait_for(bob_gone)
        [dead] = await backend.read(s.topic_dlq, 1)
    assert dead.value == bad
    assert dead.headers["turncheck-reason"] == b"requested_at: out of range once converted to UTC"
    assert await results_of(store, "a-1") == 2
    await store.close()


@pytest.mark.kafka
@pytest.mark.postgres
async def test_an_erasure_the_store_refuses_is_dead_lettered_and_an_outage_waited_out(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An erasure that fails for another reason than an outage is tried a few times, then
    dead-lettered with the error's type; one that meets an outage is delivered again until
    it is made; neither holds up the erasures behind it."""
    backend = RealBackend(kafka_bootstrap)
    s = settings_for(
        backend, tmp_path, postgres_url, store_retry_first_s=0.01, store_retry_max_s=0.05
    )
    tries: Counter[str] = Counter()
    real_erase = Eraser.erase

    async def erase(
        self: Eraser, person_id: str, *, requested_at: datetime, now: datetime
    ) -> object:
        tries[person_id] += 1
        if person_id == "carol":
            raise RuntimeError("refused")
        if person_id == "dave" and tries[person_id] == 1:
            raise StoreUnavailable("down")
        return await real_erase(self, person_id, requested_at=requested_at, now=now)

    monkeypatch.setattr(Eraser, "erase", erase)
    await backend.create_topics(s.topic_turns, s.topic_events, s.topic_dlq, s.topic_erasure)
    store = await fresh_store(s.database_url, s.topic_events)
    app = build_worker(plan(s), store=await fresh_store(s.database_url, s.topic_events))
    async with backend.running(app, [s.topic_dlq]):
        await backend.produce(
            s.topic_turns,
            turns_of("carol", "c-1") + turns_of("dave", "d-1") + turns_of("bob", "b-1"),
        )
        await wait_for(lambda: stored_turns(store, "c-1", "d-1", "b-1"))
        await backend.produce(
            s.topic_erasure,
            [(b"k", erasure_request(person)) for person in ("carol", "dave", "bob")],
        )

        async def dave_and_bob_gone() -> bool:
            return await results_of(store, "d-1", "b-1") == 0

        await wait_for(dave_and_bob_gone)
        [dead] = await backend.read(s.topic_dlq, 1)
    assert dead.value == erasure_request("carol")
    assert dead.headers["turncheck-reason"] == b"could not be erased: RuntimeError"
    assert tries["carol"] == s.store_attempts
    assert tries["dave"] >= 2
    assert await results_of(store, "c-1") == 2
    await store.close()


@pytest.mark.kafka
@pytest.mark.postgres
async def test_a_worker_without_the_key_stores_no_batch_once_anyone_is_erased(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Without TURNCHECK_ERASURE_KEY, once another process has erased someone, each batch
    is refused uncommitted with an error line naming the setting and delivered again; a
    worker given the key then stores it, less the erased person's turns."""
    backend = RealBackend(kafka_bootstrap)
    keyed = settings_for(
        backend, tmp_path, postgres_url, store_retry_first_s=0.05, store_retry_max_s=0.2
    )
    keyless = keyed.model_copy(update={"erasure_key": None})
    await backend.create_topics(
        keyed.topic_turns, keyed.topic_events, keyed.topic_dlq, keyed.topic_erasure
    )
    store = await fresh_store(keyed.database_url, keyed.topic_events)

    def refusals() -> int:
        return sum(
            r.getMessage().startswith("batch refused, nothing stored: TURNCHECK_ERASURE_KEY")
            for r in caplog.records
        )

    async def refused_again() -> bool:
        return refusals() >= 2

    app = build_worker(
        plan(keyless), store=Store.open(keyed.database_url, events_topic=keyed.topic_events)
    )
    async with backend.running(app, [keyed.topic_dlq]):
        await backend.produce(keyed.topic_turns, turns_of("bob", "b-1"))
        await wait_for(lambda: stored_turns(store, "b-1"))
        await Eraser(store.database, KEY.encode()).erase(
            "alice", requested_at=datetime.now(UTC), now=datetime.now(UTC)
        )
        await backend.produce(keyed.topic_turns, turns_of("bob", "b-2") + turns_of("alice", "a-2"))
        await wait_for(refused_again)
        assert await results_of(store, "b-2", "a-2") == 0
    # Not fresh_store: that would empty the tables, the ledger with them.
    app = build_worker(
        plan(keyed), store=Store.open(keyed.database_url, events_topic=keyed.topic_events)
    )
    async with backend.running(app, [keyed.topic_dlq]):
        await wait_for(lambda: stored_turns(store, "b-2"))
    assert await results_of(store, "a-2") == 0
    await store.close()
