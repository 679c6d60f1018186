"""The erasure requests' subscriber: each request is erased, then committed."""

from __future__ import annotations

import logging
from typing import Any

from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from turncheck.worker.clock import Clock
from turncheck.worker.errors import InvalidErasureRequest
from turncheck.worker.kafka.messages import deliver_again, raw_bodies, raw_message
from turncheck.worker.pipeline.batch import DeadLetter, Rejected
from turncheck.worker.pipeline.save import StoreRetry
from turncheck.worker.retention.erasure import Eraser, decode_request

log = logging.getLogger(__name__)


def subscribe_erasures(
    broker: KafkaBroker,
    eraser: Eraser,
    dead_letter: DeadLetter,
    clock: Clock,
    retry: StoreRetry,
    *,
    topic: str,
    group_id: str,
) -> Any:
    """Register the subscriber of erasure requests: each is erased, then committed; a
    message that is not a request is dead-lettered with its reason; an erasure the
    database cannot make now is delivered again after a growing pause."""
    subscriber = broker.subscriber(
        topic,
        decoder=raw_bodies,
        group_id=group_id,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.MANUAL,
    )
    backoff = retry.backoff()

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
            await deliver_again(msg, backoff, "erasure", exc)
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
