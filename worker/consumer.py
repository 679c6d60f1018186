"""The Kafka edge: a FastStream batch subscriber on the turns topic, and the dead-letter
producer.

At least once: auto-commit is off (``AckPolicy.MANUAL``) and a batch's offsets
are committed only after the pipeline stored its results and dead-lettered its
bad messages. A batch that fails anyway (the dead-letter topic unreachable, say)
is rewound (``nack``) after a growing pause, so it is delivered again, never
skipped, and a lasting fault does not spin.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from aiokafka import AIOKafkaProducer
from aiokafka.errors import CommitFailedError, KafkaError
from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from turncheck.worker.backoff import Backoff
from turncheck.worker.erasure import Eraser, decode_request
from turncheck.worker.errors import InvalidErasureRequest
from turncheck.worker.pipeline import Clock, DeadLetter, Pipeline, RawMessage, Rejected

log = logging.getLogger(__name__)

REASON_HEADER = "turncheck-reason"
SOURCE_HEADER = "turncheck-source"


async def _raw_bodies(message: Any, original: Any = None) -> Any:
    """Skip FastStream's decoding: the pipeline reads the records themselves."""
    return message.body


def raw_message(record: Any) -> RawMessage:
    return RawMessage(
        value=record.value,
        key=record.key,
        topic=record.topic,
        partition=record.partition,
        offset=record.offset,
    )


def raw_messages(records: Sequence[Any]) -> list[RawMessage]:
    """The records as they came; a tombstone keeps its null value."""
    return [raw_message(record) for record in records]


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


async def _deliver_again(msg: KafkaMessage, backoff: Backoff, what: str, exc: Exception) -> None:
    """Rewind after a growing pause: the message comes again, never skipped, and a
    lasting fault does not spin."""
    delay_s = backoff.take()
    log.error(
        "%s failed, delivered again error=%s retry_in_s=%.1f", what, type(exc).__name__, delay_s
    )
    await asyncio.sleep(delay_s)
    await msg.nack()


def subscribe(
    broker: KafkaBroker,
    pipeline: Pipeline,
    *,
    topic: str,
    group_id: str,
    max_records: int,
    batch_timeout_ms: int,
    group_instance_id: str | None = None,
    session_timeout_ms: int = 10_000,
) -> Any:
    """Register the turns subscriber on ``broker`` and return it (it can be stopped alone).

    ``group_instance_id`` makes the member static: restarted under the same id, it
    gets its partitions back at once, with no rebalance of the others.
    """
    subscriber = broker.subscriber(
        topic,
        decoder=_raw_bodies,
        group_id=group_id,
        group_instance_id=group_instance_id,
        session_timeout_ms=session_timeout_ms,
        heartbeat_interval_ms=max(session_timeout_ms // 3, 1000),
        batch=True,
        max_records=max_records,
        batch_timeout_ms=batch_timeout_ms,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.MANUAL,
    )
    backoff = Backoff(0.5, 30.0)

    @subscriber
    async def handle_turns(_bodies: list[bytes], msg: KafkaMessage) -> None:
        records = (
            msg.raw_message if isinstance(msg.raw_message, (list, tuple)) else [msg.raw_message]
        )

        async def commit() -> None:
            try:
                await msg.ack()
            except (CommitFailedError, KafkaError) as exc:
                # The group moved on (rebalance); whoever owns the partitions now
                # gets the batch again, and storing it again is harmless.
                log.warning("offset commit failed error=%s", type(exc).__name__)

        try:
            await pipeline.handle_batch(raw_messages(records), commit)
        except Exception as exc:
            await _deliver_again(msg, backoff, "batch", exc)
            return
        except BaseException:
            await msg.nack()
            raise
        backoff.reset()

    return subscriber


def subscribe_erasures(
    broker: KafkaBroker,
    eraser: Eraser,
    dead_letter: DeadLetter,
    clock: Clock,
    *,
    topic: str,
    group_id: str,
) -> Any:
    """Register the subscriber of erasure requests: each is erased, then committed; a
    message that is not a request is dead-lettered with its reason; an erasure the
    database cannot make now is delivered again after a growing pause."""
    subscriber = broker.subscriber(
        topic,
        decoder=_raw_bodies,
        group_id=group_id,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.MANUAL,
    )
    backoff = Backoff(0.5, 30.0)

    @subscriber
    async def handle_erasure(_body: bytes, msg: KafkaMessage) -> None:
        message = raw_message(msg.raw_message)
        try:
            request = decode_request(message.value)
        except InvalidErasureRequest as exc:
            await dead_letter([Rejected(message, exc.reason)])
            await msg.ack()
            return
        try:
            receipt = await eraser.erase(
                request.person_id, requested_at=request.requested_at, now=clock()
            )
        except Exception as exc:
            await _deliver_again(msg, backoff, "erasure", exc)
            return
        backoff.reset()
        log.info(
            "person erased results=%d pending_judgements=%d events=%d",
            receipt.results,
            receipt.pending_judgements,
            receipt.events,
        )
        await msg.ack()

    return subscriber
