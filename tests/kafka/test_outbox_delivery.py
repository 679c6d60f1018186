"""Events reach the real broker once per replica set: two workers, or two publishers,
over one PostgreSQL store; and a replica killed while it holds events sends them again."""

from __future__ import annotations

import asyncio
import signal
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from faststream.kafka import KafkaBroker
from sqlalchemy import text

from tests.kafka.backends import RealBackend
from tests.kafka.test_delivery import (
    _committed,
    count_results,
    prepared,
    start_worker_process,
    turns,
)
from tests.kafka.test_worker_contract import wait_for
from tests.store.outbox_rows import add_events, event_id_of, rows_by_event
from turncheck.worker.app import build_worker, plan
from turncheck.worker.clock import utc_now
from turncheck.worker.kafka.producer import kafka_sender
from turncheck.worker.outbox.publisher import OutboxPolicy, run_outbox
from turncheck.worker.settings import DEFAULTS
from turncheck.worker.store import Store

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]


async def published_ids(backend: RealBackend, topic: str, expected: int) -> Counter[str]:
    """Every event on the topic, counted by id; waits for one more than expected to
    catch a duplicate."""
    received = await backend.read(topic, expected + 1, timeout_s=5)
    return Counter(event_id_of(r.value) for r in received)


async def test_two_workers_in_one_group_publish_each_event_once(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    stores = [Store.open(postgres_url, events_topic=s.topic_events) for _ in range(2)]
    first, second = (build_worker(plan(s), store=store) for store in stores)
    async with first, second:
        await backend.produce(s.topic_turns, turns(60))
        await wait_for(lambda: _committed(kafka_bootstrap, s, 60), timeout_s=60)
        await wait_for(lambda: _all_sent(check), timeout_s=30)
    assert await count_results(check) == (120, 120, 20)
    ids = await published_ids(backend, s.topic_events, 20)
    assert len(ids) == 20 and set(ids.values()) == {1}
    await check.close()


async def _all_sent(store: Store) -> bool:
    return await store.outbox.pending_events(1) == []


async def test_two_publishers_with_the_real_sender_send_each_row_once(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """Six hundred rows, two loops claiming rounds of 50 at once: each event on the topic once."""
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    ids = await add_events(check, 600, topic=s.topic_events)
    policy = OutboxPolicy(round_max_events=50, max_in_flight=20)
    stop = asyncio.Event()
    brokers = [KafkaBroker(kafka_bootstrap, client_id=f"publisher-{n}") for n in range(2)]
    stores = [Store.open(postgres_url, events_topic=s.topic_events) for _ in range(2)]
    for broker in brokers:
        await broker.start()
    loops = [
        asyncio.create_task(
            run_outbox(store.outbox, kafka_sender(broker), utc_now, 0.02, stop, policy)
        )
        for store, broker in zip(stores, brokers, strict=True)
    ]
    try:
        await wait_for(lambda: _all_sent(check), timeout_s=60)
    finally:
        stop.set()
        await asyncio.gather(*loops)
        for broker in brokers:
            await broker.stop()
        for store in stores:
            await store.close()
    published = await published_ids(backend, s.topic_events, 600)
    assert sorted(published) == ids
    assert set(published.values()) == {1}
    senders = {row.claimed_by for row in (await rows_by_event(check)).values()}
    assert len(senders) == 2, "both publishers took part"
    await check.close()


HOLD_KEY = 815_001
"""The advisory lock a held ``mark_sent`` waits on (per database: other runs' are apart)."""
HOLD_MARKS = [
    f"""CREATE FUNCTION hold_marks() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_lock({HOLD_KEY}); PERFORM pg_advisory_unlock({HOLD_KEY});
    RETURN NULL; END $$""",
    # Per statement and before it touches a row: the waiting publisher locks no row.
    "CREATE TRIGGER hold_marks BEFORE UPDATE OF sent_at ON outbox "
    "FOR EACH STATEMENT EXECUTE FUNCTION hold_marks()",
]
WAITERS = (
    "FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
    f"AND classid = 0 AND objid = {HOLD_KEY} "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
)


@asynccontextmanager
async def marks_held(store: Store) -> AsyncIterator[Callable[[], Awaitable[bool]]]:
    """Until the block ends, marking outbox rows sent waits inside the database: a
    publisher then holds the rows it claimed and sent, as one killed mid-round does.
    Yields a probe, true once a publisher waits. At the end whoever still waits (a
    killed worker's connection lingers in its wait) is terminated and marks go through."""
    engine = store.database.engine
    async with engine.connect() as holder:
        await holder.execute(text(f"SELECT pg_advisory_lock({HOLD_KEY})"))
        for statement in HOLD_MARKS:
            await holder.execute(text(statement))
        await holder.commit()

        async def waiting() -> bool:
            async with engine.connect() as conn:
                return bool((await conn.execute(text(f"SELECT count(*) {WAITERS}"))).scalar())

        try:
            yield waiting
        finally:
            await holder.execute(text(f"SELECT pg_terminate_backend(pid) {WAITERS}"))
            await holder.execute(text("SET lock_timeout = '60s'"))
            await holder.execute(text("DROP TRIGGER hold_marks ON outbox"))
            await holder.execute(text("DROP FUNCTION hold_marks()"))
            await holder.execute(text(f"SELECT pg_advisory_unlock({HOLD_KEY})"))
            await holder.commit()


async def test_a_replica_killed_holding_events_sends_them_at_once_when_restarted(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """A worker with TURNCHECK_INSTANCE_ID, killed (SIGKILL) while it holds claimed events
    under a 120 s lease and restarted with the same id, sends them well within the lease."""
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    ids = await add_events(check, 40, topic=s.topic_events)
    env = {"TURNCHECK_INSTANCE_ID": "replica-a", "TURNCHECK_OUTBOX_INTERVAL_S": "0.1"}
    lease_s = DEFAULTS.outbox_lease_s
    loop = asyncio.get_running_loop()
    async with marks_held(check) as publisher_waits:
        first = await start_worker_process(s, postgres_url, asyncio.subprocess.DEVNULL, **env)
        try:
            await wait_for(publisher_waits, timeout_s=60)
        finally:
            first.send_signal(signal.SIGKILL)
            await first.wait()
        held = (await rows_by_event(check)).values()
        assert {(row.claimed_by, row.sent_at) for row in held} == {
            (f"{s.group_id}/replica-a", None)
        }
        lease_ends = min(row.claimed_until for row in held)

    restarted_at = loop.time()
    second = await start_worker_process(s, postgres_url, asyncio.subprocess.DEVNULL, **env)
    try:
        await wait_for(lambda: _all_sent(check), timeout_s=lease_s / 2)
        took_s = loop.time() - restarted_at
    finally:
        second.send_signal(signal.SIGTERM)
        await second.wait()
    assert took_s < lease_s / 2, f"took {took_s:.1f} s; the lease is {lease_s:.0f} s"
    assert utc_now() < lease_ends, "sent before the dead replica's lease ran out"
    published = await published_ids(backend, s.topic_events, 2 * len(ids))
    assert sorted(published) == ids, "each event at least once (twice: sent, then resent)"
    await check.close()
