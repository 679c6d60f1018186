"""The dead-letter producer: a message the worker cannot take goes to the dead-letter
topic unchanged, with why and where from in its headers. Nothing is lost."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiokafka import AIOKafkaProducer
from faststream.kafka import KafkaBroker

from turncheck.worker.pipeline.batch import Rejected

log = logging.getLogger(__name__)

REASON_HEADER = "turncheck-reason"
SOURCE_HEADER = "turncheck-source"


class KafkaDeadLetter:
    """Publish rejected messages unchanged (same key, same bytes), with why and where from
    in headers. A tombstone stays a tombstone: FastStream cannot send a null value, so
    those go through an aiokafka producer of their own, started on first use."""

    def __init__(self, broker: KafkaBroker, bootstrap: str, topic: str) -> None:
        self.broker = broker
        self.bootstrap = bootstrap
        self.topic = topic
        self._null_producer: AIOKafkaProducer | None = None

    async def stop(self) -> None:
        if self._null_producer is not None:
            await self._null_producer.stop()
            self._null_producer = None

    async def __call__(self, rejected: Sequence[Rejected]) -> None:
        for item in rejected:
            message = item.message
            headers = {REASON_HEADER: item.reason}
            if message.topic is not None:
                headers[SOURCE_HEADER] = f"{message.topic}/{message.partition}/{message.offset}"
            if message.value is None:
                await self._send_null(message.key, headers)
            else:
                await self.broker.publish(
                    message.value, topic=self.topic, key=message.key, headers=headers
                )
            log.warning("message dead-lettered offset=%s reason=%s", message.offset, item.reason)

    async def _send_null(self, key: bytes | None, headers: dict[str, str]) -> None:
        if self._null_producer is None:
            producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, acks="all")
            await producer.start()
            self._null_producer = producer
        await self._null_producer.send_and_wait(
            self.topic,
            value=None,
            key=key,
            headers=[(name, value.encode()) for name, value in headers.items()],
        )
