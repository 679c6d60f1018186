"""Events reach the real broker once per replica set: two workers, or two publishers,
over one PostgreSQL store."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

import pytest
from faststream.kafka import KafkaBroker

from tests.kafka.backends import RealBackend
from tests.kafka.test_delivery import _committed, count_results, prepared, turns
from tests.kafka.test_worker_contract import wait_for
from tests.store.outbox_rows import add_events, event_id_of, rows_by_event
from turncheck.worker.app import build_worker, plan
from turncheck.worker.clock import utc_now
from turncheck.worker.kafka.producer import kafka_sender
from turncheck.worker.outbox.publisher import OutboxPolicy, run_outbox
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
