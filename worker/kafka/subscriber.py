"""The turns' subscriber: a FastStream batch subscriber on the turns topic.

At least once: auto-commit is off (``AckPolicy.MANUAL``) and a batch's offsets
are committed only after the pipeline stored its results and dead-lettered its
bad messages. A batch that fails anyway (the dead-letter topic unreachable, say)
is rewound (``nack``) after a growing pause, so it is delivered again, never
skipped, and a lasting fault does not spin.
"""

from __future__ import annotations

import logging
from typing import Any

from aiokafka.errors import CommitFailedError, KafkaError
from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from turncheck.worker.kafka.messages import deliver_again, raw_bodies, raw_messages
from turncheck.worker.pipeline.batch import Pipeline

log = logging.getLogger(__name__)


def subscribe(
    broker: KafkaBroker,
    pipeline: Pipeline,
    *,
    topic: str,
    group_id: str,
    max_records: int,
    batch_timeout_ms: int,
    group_instance_id: str | None,
    session_timeout_ms: int,
) -> Any:
    """Register the turns subscriber on ``broker`` and return it (it can be stopped alone).

    ``group_instance_id`` makes the member static: restarted under the same id, it
    gets its partitions back at once, with no rebalance of the others.
    """
    subscriber = broker.subscriber(
        topic,
        decoder=raw_bodies,
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
    # A batch that failed is redelivered after the waits the store is retried with.
    backoff = pipeline.retry.backoff()

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
            await deliver_again(msg, backoff, "batch", exc)
            return
        except BaseException:
            await msg.nack()
            raise
        backoff.reset()

    return subscriber
