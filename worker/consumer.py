"""The Kafka edge: a FastStream batch subscriber on the turns topic.

At least once: auto-commit is off (``AckPolicy.MANUAL``) and a batch's offsets
are committed only after the pipeline stored its results. A batch that fails
for any other reason is rewound (``nack``) so it is delivered again, never
skipped. Bad messages go to the dead-letter topic with their original bytes.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from aiokafka.errors import CommitFailedError, KafkaError
from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from turncheck.worker.pipeline import Pipeline, RawMessage, Rejected

log = logging.getLogger(__name__)

REASON_HEADER = "turncheck-reason"


async def _raw_bodies(message: Any, original: Any = None) -> Any:
    """Hand the handler the bytes as they came; decoding is the pipeline's first step."""
    return message.body


def raw_messages(records: Sequence[Any], bodies: Sequence[bytes]) -> list[RawMessage]:
    out = []
    for i, body in enumerate(bodies):
        record = records[i] if i < len(records) else None
        out.append(
            RawMessage(
                value=body,
                key=getattr(record, "key", None),
                topic=getattr(record, "topic", None),
                partition=getattr(record, "partition", None),
                offset=getattr(record, "offset", None),
            )
        )
    return out


class KafkaDeadLetter:
    """Publish rejected messages unchanged, with why and where from in headers."""

    def __init__(self, broker: KafkaBroker, topic: str) -> None:
        self.broker = broker
        self.topic = topic

    async def __call__(self, rejected: Sequence[Rejected]) -> None:
        for item in rejected:
            message = item.message
            headers = {REASON_HEADER: item.reason}
            if message.topic is not None:
                headers["turncheck-source"] = (
                    f"{message.topic}/{message.partition}/{message.offset}"
                )
            await self.broker.publish(
                message.value, topic=self.topic, key=message.key, headers=headers
            )
            log.warning("message dead-lettered offset=%s reason=%s", message.offset, item.reason)


def subscribe(
    broker: KafkaBroker,
    pipeline: Pipeline,
    *,
    topic: str,
    group_id: str,
    max_records: int,
    batch_timeout_ms: int,
) -> Any:
    """Register the turns subscriber on ``broker`` and return it (it can be stopped alone)."""

    subscriber = broker.subscriber(
        topic,
        group_id=group_id,
        batch=True,
        max_records=max_records,
        batch_timeout_ms=batch_timeout_ms,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.MANUAL,
        decoder=_raw_bodies,
    )

    @subscriber
    async def handle_turns(bodies: list[bytes], msg: KafkaMessage) -> None:
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
            await pipeline.handle_batch(raw_messages(records, bodies), commit)
        except BaseException:
            await msg.nack()
            raise

    return subscriber
