"""What the subscribers share: records as the pipeline reads them, and the redelivery
of a message whose handling failed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from faststream.kafka.annotations import KafkaMessage

from turncheck.worker.pipeline.batch import RawMessage
from turncheck.worker.runtime.backoff import Backoff

log = logging.getLogger(__name__)


async def raw_bodies(message: Any, original: Any = None) -> Any:
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


async def deliver_again(msg: KafkaMessage, backoff: Backoff, what: str, exc: Exception) -> None:
    """Rewind after a growing pause: the message comes again, never skipped, and a
    lasting fault does not spin."""
    delay_s = backoff.take()
    log.error(
        "%s failed, delivered again error=%s retry_in_s=%.1f", what, type(exc).__name__, delay_s
    )
    await asyncio.sleep(delay_s)
    await msg.nack()
