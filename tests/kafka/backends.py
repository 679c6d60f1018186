"""Two Kafka backends behind one face, so one contract suite runs on both
(after arroyo's ``tests/backends/mixins.py``): FastStream's in-memory broker and
the real broker from ``scripts/services.sh``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from faststream import FastStream
from faststream.kafka import KafkaBroker, TestKafkaBroker
from faststream.kafka.annotations import KafkaMessage

PARTITIONS = 3


@dataclass(frozen=True)
class Received:
    key: bytes | None
    value: bytes | None
    headers: dict[str, bytes]


class Backend(Protocol):
    bootstrap: str

    async def create_topics(self, *names: str) -> None: ...
    def running(self, app: FastStream, listen: list[str]) -> Any: ...
    async def produce(self, topic: str, messages: list[tuple[bytes, bytes | None]]) -> None: ...
    async def read(self, topic: str, count: int, timeout_s: float = 20) -> list[Received]: ...


def topic_names() -> dict[str, str]:
    uid = uuid.uuid4().hex[:10]
    return {
        "topic_turns": f"turns-{uid}",
        "topic_events": f"events-{uid}",
        "topic_dlq": f"dlq-{uid}",
        "group_id": f"group-{uid}",
    }


@dataclass
class MemoryBackend:
    """TestKafkaBroker: fast, in-process; delivers what the worker publishes to collectors."""

    bootstrap: str = "memory:9092"
    _broker: TestKafkaBroker | None = None
    _seen: dict[str, list[Received]] = field(default_factory=dict)

    async def create_topics(self, *names: str) -> None:
        """The in-memory broker needs no topics."""

    @asynccontextmanager
    async def running(self, app: FastStream, listen: list[str]) -> AsyncIterator[None]:
        broker = app.broker
        assert isinstance(broker, KafkaBroker)
        for topic in listen:
            self._collect(broker, topic)
        async with TestKafkaBroker(broker, connect_only=True) as test_broker, app:
            self._broker = test_broker
            yield

    def _collect(self, broker: KafkaBroker, topic: str) -> None:
        seen = self._seen.setdefault(topic, [])

        async def raw(message: Any, original: Any = None) -> Any:
            return message.body

        @broker.subscriber(topic, decoder=raw)
        async def collect(body: Any, msg: KafkaMessage) -> None:
            headers = {k: v.encode() if isinstance(v, str) else v for k, v in msg.headers.items()}
            raw_message: Any = msg.raw_message
            seen.append(Received(raw_message.key, body, headers))

    async def produce(self, topic: str, messages: list[tuple[bytes, bytes | None]]) -> None:
        assert self._broker is not None
        for key, value in messages:
            await self._broker.publish(value, topic=topic, key=key)

    async def read(self, topic: str, count: int, timeout_s: float = 20) -> list[Received]:
        deadline = asyncio.get_running_loop().time() + timeout_s
        while (
            len(self._seen.get(topic, [])) < count and asyncio.get_running_loop().time() < deadline
        ):
            await asyncio.sleep(0.01)
        return list(self._seen.get(topic, []))


@dataclass
class RealBackend:
    """Apache Kafka on loopback, through aiokafka clients of its own."""

    bootstrap: str

    async def create_topics(self, *names: str) -> None:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            await admin.create_topics([NewTopic(n, PARTITIONS, 1) for n in names])
        finally:
            await admin.close()

    @asynccontextmanager
    async def running(self, app: FastStream, listen: list[str]) -> AsyncIterator[None]:
        async with app:
            yield

    async def produce(self, topic: str, messages: list[tuple[bytes, bytes | None]]) -> None:
        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
        await producer.start()
        try:
            for key, value in messages:
                await producer.send(topic, value, key=key)
            await producer.flush()
        finally:
            await producer.stop()

    async def read(self, topic: str, count: int, timeout_s: float = 20) -> list[Received]:
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=self.bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            group_id=None,
        )
        await consumer.start()
        got: list[Received] = []
        try:
            deadline = asyncio.get_running_loop().time() + timeout_s
            while len(got) < count and asyncio.get_running_loop().time() < deadline:
                batches = await consumer.getmany(timeout_ms=200)
                for records in batches.values():
                    got.extend(Received(r.key, r.value, dict(r.headers)) for r in records)
        finally:
            await consumer.stop()
        return got
