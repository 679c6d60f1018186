"""The erasure requests' subscriber: each request is erased, then committed.

No one request holds up those behind it. A message that is not a request by the
contract is dead-lettered with its reason. An erasure the database cannot make now
(``StoreUnavailable``, an outage) is delivered again after a growing pause, as long as
it takes. One that fails for another reason is tried ``StoreRetry.attempts`` times (a
deadlock clears on a retry), then dead-lettered with the error's type
(``could not be erased: DataError``), so the erasures behind it go on.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from faststream import AckPolicy
from faststream.kafka import KafkaBroker
from faststream.kafka.annotations import KafkaMessage

from turncheck.schemas.erasure import ErasureRequest
from turncheck.worker.clock import Clock
from turncheck.worker.errors import InvalidErasureRequest, StoreUnavailable
from turncheck.worker.kafka.messages import deliver_again, raw_bodies, raw_message
from turncheck.worker.pipeline.batch import DeadLetter, RawMessage, Rejected
from turncheck.worker.pipeline.save import StoreRetry, could_not
from turncheck.worker.retention.erasure import Eraser, ErasureReceipt, decode_request

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
    message that is not a request, or an erasure the database keeps refusing, is
    dead-lettered with its reason; an outage is waited out by delivering it again."""
    subscriber = broker.subscriber(
        topic,
        decoder=raw_bodies,
        group_id=group_id,
        auto_offset_reset="earliest",
        ack_policy=AckPolicy.MANUAL,
    )
    backoff = retry.backoff()

    async def erase(request: ErasureRequest) -> ErasureReceipt:
        """The receipt; an outage is raised at once, another error after the last try."""
        waits = retry.backoff()
        attempt = 1
        while True:
            try:
                return await eraser.erase(
                    request.person_id, requested_at=request.requested_at, now=clock()
                )
            except StoreUnavailable:
                raise
            except Exception as exc:
                if attempt >= retry.attempts:
                    raise
                delay_s = waits.take()
                log.warning(
                    "erasure refused by the store error=%s attempt=%d retry_in_s=%.1f",
                    type(exc).__name__,
                    attempt,
                    delay_s,
                )
                await asyncio.sleep(delay_s)
                attempt += 1

    async def settle(message: RawMessage) -> ErasureReceipt | None:
        """Erase what the message asks; None when it was dead-lettered instead. Raises
        on an outage, or when the dead-letter topic does not take the message."""
        try:
            request = decode_request(message.value)
        except InvalidErasureRequest as exc:
            await dead_letter([Rejected(message, exc.reason)])
            return None
        try:
            return await erase(request)
        except StoreUnavailable:
            raise
        except Exception as exc:
            log.error("erasure refused, dead-lettered error=%s", type(exc).__name__)
            await dead_letter([Rejected(message, could_not("erased", exc))])
            return None

    @subscriber
    async def handle_erasure(_body: bytes, msg: KafkaMessage) -> None:
        try:
            receipt = await settle(raw_message(msg.raw_message))
        except Exception as exc:
            await deliver_again(msg, backoff, "erasure", exc)
            return
        backoff.reset()
        if receipt is not None:
            log.info(
                "person erased results=%d pending_judgements=%d events=%d",
                receipt.results,
                receipt.pending_judgements,
                receipt.events,
            )
        await msg.ack()

    return subscriber
