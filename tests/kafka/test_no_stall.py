"""No one turn stalls a partition, on the real broker and PostgreSQL: bad messages are
dead-lettered with their reason, duplicates are counted once, heavy batches leave the
event loop free, and a restarted static member is back at once."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest

from tests.factories import turn_bytes
from tests.kafka.test_delivery import (
    _committed,
    count_results,
    prepared,
    start_worker_process,
    turns,
)
from tests.kafka.test_worker_contract import wait_for
from tests.loop_lag import baseline_lag_s, lag_while
from tests.pipeline.test_batch import EVERY_DETECTOR_AND_FACTS
from turncheck.worker.app import build_worker, plan
from turncheck.worker.store import Store

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]


async def test_bad_turns_are_dead_lettered_and_a_duplicate_is_counted_once(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    # Its expiry (created_at + retention) could not be stored: refused at decode.
    refused = turn_bytes("t-late", "Hello.", created_at="9999-12-31T00:00:00Z")
    # Nested past Python's recursion limit, in a field the worker does not read.
    deep = turn_bytes("t-deep")[:-1] + b', "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    await backend.produce(
        s.topic_turns,
        [
            (b"t-1", turn_bytes("t-1", "Ask HelpCo instead.")),
            (b"gone", None),
            (b"t-1", turn_bytes("t-1", "Ask HelpCo instead.")),  # a retrying producer
            (b"t-late", refused),
            (b"t-deep", deep),
            (b"t-2", turn_bytes("t-2")),
        ],
    )
    async with build_worker(plan(s), store=Store.open(postgres_url, events_topic=s.topic_events)):
        await wait_for(lambda: _committed(kafka_bootstrap, s, 6))
    dead = {d.key: d for d in await backend.read(s.topic_dlq, 3)}
    assert set(dead) == {b"gone", b"t-late", b"t-deep"}
    assert dead[b"gone"].value is None
    assert dead[b"gone"].headers["turncheck-reason"] == b"a tombstone: the message has no value"
    assert dead[b"t-late"].value == refused
    assert dead[b"t-late"].headers["turncheck-reason"] == (
        b"not a valid turn.stored/v1: created_at: Input should be less than 2100-01-01T00:00:00Z"
    )
    assert dead[b"t-late"].headers["turncheck-source"].startswith(s.topic_turns.encode())
    assert dead[b"t-deep"].headers["turncheck-reason"] == b"not valid JSON: nested too deeply"
    # t-1 twice and t-2: two checks each, stored and counted once; t-1 fails one.
    assert await count_results(check) == (4, 4, 1)
    await check.close()


@pytest.mark.timeout(300)  # the batch is heavy on purpose; a loaded machine takes minutes
async def test_a_heavy_batch_leaves_the_worker_loop_responsive(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """500 turns full of facts and a 900 KB answer: heartbeats and the outbox share this
    loop, so it must never stall while they are checked."""
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    checks = tmp_path / "heavy.yaml"
    checks.write_text(EVERY_DETECTOR_AND_FACTS)
    s = s.model_copy(update={"checks": [checks], "batch_max_records": 500})
    heavy = " ".join(
        f"Order A-{i:05d} of ${i}.50 ships 2026-03-{i % 28 + 1:02d}; mail a{i}@example.com."
        for i in range(120)
    )
    messages = [(f"t-{i}".encode(), turn_bytes(f"t-{i}", heavy)) for i in range(500)]
    messages.append((b"t-big", turn_bytes("t-big", "word " * 180_000)))
    await backend.produce(s.topic_turns, messages)
    baseline_s = await baseline_lag_s()
    async with build_worker(plan(s), store=Store.open(postgres_url, events_topic=s.topic_events)):
        consumed = wait_for(lambda: _committed(kafka_bootstrap, s, 501), timeout_s=240)
        lag = await lag_while(consumed, baseline_s)
    assert lag.ticks > 10
    assert lag.worst_s < lag.allowed_s, f"the worker's loop: {lag}"
    assert (await count_results(check))[0] == 501 * 3
    await check.close()


async def test_a_restarted_static_member_gets_its_partitions_back_at_once(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """Killed without leaving the group and started again under the same instance id,
    the worker consumes well before the group would have given up on the dead one."""
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)

    async def start() -> asyncio.subprocess.Process:
        return await start_worker_process(
            s,
            postgres_url,
            stderr=asyncio.subprocess.DEVNULL,
            TURNCHECK_INSTANCE_ID="worker-0",
            TURNCHECK_SESSION_TIMEOUT_MS="45000",
        )

    await backend.produce(s.topic_turns, turns(6, "a"))
    first = await start()
    try:
        await wait_for(lambda: _committed(kafka_bootstrap, s, 6), timeout_s=60)
    finally:
        first.send_signal(signal.SIGKILL)
        await first.wait()
    await backend.produce(s.topic_turns, turns(6, "b"))
    restarted_at = asyncio.get_running_loop().time()
    second = await start()
    try:
        await wait_for(lambda: _committed(kafka_bootstrap, s, 12), timeout_s=60)
        took_s = asyncio.get_running_loop().time() - restarted_at
    finally:
        second.send_signal(signal.SIGTERM)
        await second.wait()
    assert took_s < 25, f"took {took_s:.1f} s; the session timeout is 45 s"
    assert (await count_results(check))[0] == 24
    events = await backend.read(s.topic_events, 5, timeout_s=5)
    assert len({json.loads(e.value or b"{}")["id"] for e in events}) == 4
    await check.close()
