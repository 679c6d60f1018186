"""Consumer lag, read from the broker: per partition of the turns topic, the newest
offset minus the group's committed one. Any process that reaches the broker can read
it (``turncheck serve`` as well as the worker), and it counts every replica's share.

aiokafka and its errors stay in here: a broker that does not answer within
``timeout_s`` gives None, and /metrics leaves the lag out of that scrape.
"""

from __future__ import annotations

import asyncio
import logging

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.errors import KafkaError

log = logging.getLogger(__name__)


async def consumer_lag(
    bootstrap: str, group: str, topic: str, timeout_s: float = 3.0
) -> dict[int, int] | None:
    """Messages not yet committed by ``group``, by partition of ``topic``; a partition
    the group never committed counts from its oldest message. None when out of reach."""
    try:
        return await asyncio.wait_for(_read(bootstrap, group, topic), timeout_s)
    except (TimeoutError, KafkaError, OSError) as exc:
        log.warning("consumer lag unavailable error=%s", type(exc).__name__)
        return None


async def _read(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        await admin.start()
        committed = await admin.list_consumer_group_offsets(group)
        [described] = await admin.describe_topics([topic])
        if described["error_code"] or not described["partitions"]:
            raise KafkaError(f"topic not ready: error {described['error_code']}")
        numbers = sorted(part["partition"] for part in described["partitions"])
        parts = [TopicPartition(topic, number) for number in numbers]
        # Made only once the broker answered: a consumer never started is never stopped.
        offsets = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        try:
            await offsets.start()
            newest = await offsets.end_offsets(parts)
            oldest = await offsets.beginning_offsets(parts)
        finally:
            await offsets.stop()
    finally:
        await admin.close()
    lag = {}
    for tp in parts:
        meta = committed.get(tp)
        done = meta.offset if meta is not None and meta.offset >= 0 else oldest[tp]
        lag[tp.partition] = max(newest[tp] - done, 0)
    return lag
