"""Turns per second through turncheck, next to the floor of any Python consumer.

Measures, in one run on one machine:
  1. `turncheck replay` (same pipeline as the consumer) on SQLite;
  2. raw consume-and-decode of a topic with aiokafka (json.loads per message);
  3. the Kafka worker on PostgreSQL over the same topic, until its offsets are committed;
and prints worker / raw as a ratio, the figure that survives a noisy machine.

Needs `eval "$(bash scripts/services.sh start)"`. Run: python bench/throughput.py [TURNS]
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import fresh_store, scratch_database  # noqa: E402
from turncheck.worker.app import build_worker, plan, replay  # noqa: E402
from turncheck.worker.settings import Settings  # noqa: E402

WORDS = [
    "order",
    "refund",
    "ship",
    "track",
    "parcel",
    "account",
    "invoice",
    "return",
    "policy",
    "help",
    "thanks",
    "delivery",
]


def make_turns(count: int) -> list[bytes]:
    rng = random.Random(7)
    out = []
    for i in range(count):
        answer = " ".join(rng.choice(WORDS) for _ in range(rng.randint(60, 200)))
        if i % 10 == 0:
            answer += " Try HelpCo or ticket TCK-123456."
        out.append(
            json.dumps(
                {
                    "schema": "turn.stored/v1",
                    "turn_id": f"b-{i}",
                    "thread_id": f"th-{i // 5}",
                    "person_id": f"p-{i // 20}",
                    "agent": {"id": "support-bot", "version": 7, "model": "gpt-4o-mini"},
                    "created_at": "2026-11-29T10:00:00Z",
                    "channel": "web",
                    "input": {"messages": [{"role": "user", "content": "Where is my order?"}]},
                    "output": {"text": answer, "stop_reason": "end_turn"},
                }
            ).encode()
        )
    return out


async def bench_replay(turns: list[bytes], workdir: Path) -> float:
    path = workdir / "turns.jsonl"
    path.write_bytes(b"\n".join(turns) + b"\n")
    url = f"sqlite+aiosqlite:///{workdir}/bench.db"
    await (await fresh_store(url)).close()
    settings = Settings(database_url=url, checks=[ROOT / "examples" / "checks.yaml"])
    start = time.perf_counter()
    totals = await replay(plan(settings), str(path))
    elapsed = time.perf_counter() - start
    assert totals.turns == len(turns)
    return len(turns) / elapsed


async def produce(bootstrap: str, topic: str, turns: list[bytes]) -> None:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    await admin.create_topics([NewTopic(topic, 3, 1)])
    await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, linger_ms=20)
    await producer.start()
    for i, value in enumerate(turns):
        await producer.send(topic, value, key=f"b-{i}".encode())
    await producer.flush()
    await producer.stop()


async def bench_raw(bootstrap: str, topic: str, count: int) -> float:
    consumer = AIOKafkaConsumer(
        topic,
        bootstrap_servers=bootstrap,
        group_id=f"raw-{uuid.uuid4().hex[:8]}",
        auto_offset_reset="earliest",
        enable_auto_commit=False,
    )
    await consumer.start()
    seen = 0
    start = time.perf_counter()
    while seen < count:
        batches = await consumer.getmany(timeout_ms=200, max_records=500)
        for records in batches.values():
            for record in records:
                json.loads(record.value)
            seen += len(records)
    await consumer.commit()
    elapsed = time.perf_counter() - start
    await consumer.stop()
    return count / elapsed


async def wait_committed(bootstrap: str, group: str, topic: str, count: int) -> None:
    """Return once ``group`` committed ``count`` offsets of ``topic``. One admin client for
    the whole wait: a client per poll (connect, metadata, close every 50 ms) ran in the
    worker's own process and took about 5% of its time in a profile."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        while True:
            offsets = await admin.list_consumer_group_offsets(group)
            done = sum(m.offset for tp, m in offsets.items() if tp.topic == topic and m.offset > 0)
            if done >= count:
                return
            await asyncio.sleep(0.05)
    finally:
        await admin.close()


def bench_settings(bootstrap: str, database_url: str, topic: str) -> Settings:
    """A worker on ``topic`` with the example checks, its other topics and group its own."""
    uid = uuid.uuid4().hex[:8]
    return Settings(
        kafka_bootstrap=bootstrap,
        database_url=database_url,
        checks=[ROOT / "examples" / "checks.yaml"],
        topic_turns=topic,
        topic_events=f"bench-events-{uid}",
        topic_dlq=f"bench-dlq-{uid}",
        group_id=f"bench-{uid}",
    )


async def bench_worker(bootstrap: str, database_url: str, topic: str, count: int) -> float:
    settings = bench_settings(bootstrap, database_url, topic)
    store = await fresh_store(database_url, settings.topic_events)
    app = build_worker(plan(settings), store=store)
    start = time.perf_counter()
    async with app:
        await wait_committed(bootstrap, settings.group_id, topic, count)
        elapsed = time.perf_counter() - start
    return count / elapsed


async def main() -> None:
    import os

    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    bootstrap = os.environ["TURNCHECK_TEST_KAFKA_BOOTSTRAP"]
    database_url = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    turns = make_turns(count)
    with tempfile.TemporaryDirectory() as workdir:
        replay_tps = await bench_replay(turns, Path(workdir))
    topic = f"bench-turns-{uuid.uuid4().hex[:8]}"
    await produce(bootstrap, topic, turns)
    raw_tps = await bench_raw(bootstrap, topic, count)
    async with scratch_database(database_url, "turncheck_bench") as scratch_url:
        worker_tps = await bench_worker(bootstrap, scratch_url, topic, count)
    print(f"turns: {count} (the example checks, {count // 10} with failures)")
    print(f"replay on SQLite:            {replay_tps:9.0f} turns/s")
    print(f"raw aiokafka consume+decode: {raw_tps:9.0f} turns/s")
    print(f"worker on PostgreSQL:        {worker_tps:9.0f} turns/s")
    print(f"worker / raw consume:        {worker_tps / raw_tps:9.3f}")


if __name__ == "__main__":
    asyncio.run(main())
