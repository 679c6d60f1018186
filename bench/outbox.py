"""Events per second from the outbox to the real broker, one publisher, PostgreSQL.

Sends the same N outbox rows three ways and prints events/s for each:
  1. before: the publisher as it was (one send at a time, the round of 500
     marked sent at its end), reproduced here;
  2. the claiming publisher with one send in flight (what per-ack marking costs);
  3. the claiming publisher with the defaults (500 per round, 100 in flight);
and the ratio of 3 to 1, the figure that survives a noisy machine.

Works in a database of its own on the server of ``TURNCHECK_TEST_DATABASE_URL``,
dropped at the end. Needs `eval "$(bash scripts/services.sh start)"`.
Run: python bench/outbox.py [EVENTS]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from faststream.kafka import KafkaBroker
from sqlalchemy import update

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import scratch_database  # noqa: E402
from tests.store.outbox_rows import add_events  # noqa: E402
from turncheck.worker.clock import utc_now  # noqa: E402
from turncheck.worker.kafka.producer import kafka_sender  # noqa: E402
from turncheck.worker.outbox.publisher import OutboxPolicy, Send, drain  # noqa: E402
from turncheck.worker.store import Store  # noqa: E402
from turncheck.worker.store.migrate import migrate  # noqa: E402
from turncheck.worker.store.tables import outbox  # noqa: E402


async def sequential_drain(store: Store, send: Send, clock: Callable[[], datetime]) -> int:
    """The publisher before claims: rounds of 500, one send after another, each round
    marked sent at its end."""
    total = 0
    while pending := await store.outbox.pending_events(500):
        sent = []
        for row in pending:
            await send(row.topic, row.key, row.payload.encode())
            sent.append(row.id)
        await store.outbox.mark_sent(sent, clock())
        total += len(sent)
    return total


async def unsend_all(store: Store) -> None:
    async with store.database.transaction() as conn:
        await conn.execute(update(outbox).values(sent_at=None, claimed_by=None, claimed_until=None))


async def timed(store: Store, count: int, run: Callable[[], Awaitable[int]]) -> float:
    await unsend_all(store)
    start = time.perf_counter()
    sent = await run()
    elapsed = time.perf_counter() - start
    assert sent == count, (sent, count)
    return count / elapsed


async def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    bootstrap = os.environ["TURNCHECK_TEST_KAFKA_BOOTSTRAP"]
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    uid = uuid.uuid4().hex[:8]
    topic = f"bench-events-{uid}"
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(topic, 3, 1)])
    await admin.close()
    async with scratch_database(server, "turncheck_bench") as url:
        await asyncio.to_thread(migrate, url)
        store = Store.open(url, events_topic=topic)
        await add_events(store, count, topic=topic, now=datetime.now(UTC))
        async with KafkaBroker(bootstrap, client_id="bench-outbox") as broker:
            send = kafka_sender(broker)
            await send(topic, "warm-up", b"{}")
            before = await timed(store, count, lambda: sequential_drain(store, send, utc_now))
            one = OutboxPolicy(max_in_flight=1)
            single = await timed(store, count, lambda: drain(store.outbox, send, utc_now, one))
            after = await timed(store, count, lambda: drain(store.outbox, send, utc_now))
        await store.close()
    print(f"events: {count}, one publisher, PostgreSQL, topic of 3 partitions")
    print(f"before (one send at a time, marked per round): {before:8.0f} events/s")
    print(f"claiming, 1 in flight (marked per ack):        {single:8.0f} events/s")
    print(f"claiming, defaults (100 in flight):            {after:8.0f} events/s")
    print(f"defaults / before:                             {after / before:8.1f}x")


if __name__ == "__main__":
    asyncio.run(main())
