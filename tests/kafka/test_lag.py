"""Consumer lag as /metrics reports it, read from the real broker."""

from __future__ import annotations

import asyncio

import pytest
from aiokafka import AIOKafkaConsumer, TopicPartition

from tests.kafka.backends import RealBackend, topic_names
from turncheck.worker.kafka.lag import consumer_lag


@pytest.mark.kafka
async def test_lag_counts_what_the_group_has_not_committed(kafka_bootstrap: str) -> None:
    names = topic_names()
    topic, group = names["topic_turns"], names["group_id"]
    backend = RealBackend(kafka_bootstrap)
    await backend.create_topics(topic)
    await backend.produce(topic, [(f"k-{n}".encode(), b"{}") for n in range(12)])
    lag = await consumer_lag(kafka_bootstrap, group, topic)
    for _ in range(50):  # a new topic's partitions take a moment to have leaders
        if lag is not None:
            break
        await asyncio.sleep(0.1)
        lag = await consumer_lag(kafka_bootstrap, group, topic)
    assert lag is not None and sum(lag.values()) == 12 and len(lag) == 3

    consumer = AIOKafkaConsumer(
        bootstrap_servers=kafka_bootstrap, group_id=group, enable_auto_commit=False
    )
    await consumer.start()
    try:
        partition = max(lag, key=lambda p: lag[p])
        tp = TopicPartition(topic, partition)
        consumer.assign([tp])
        await consumer.commit({tp: lag[partition]})  # that partition fully consumed
    finally:
        await consumer.stop()
    after = await consumer_lag(kafka_bootstrap, group, topic)
    assert after is not None and after[partition] == 0
    assert sum(after.values()) == 12 - lag[partition]


async def test_a_broker_out_of_reach_gives_no_lag(closed_port: int) -> None:
    assert await consumer_lag(f"127.0.0.1:{closed_port}", "g", "t", timeout_s=1.0) is None
