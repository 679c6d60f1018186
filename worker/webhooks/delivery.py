"""Deliver outbox events to webhook endpoints, at least once, in order, per endpoint.

Every endpoint is served by a task of its own, so a slow receiver delays nobody else's
events. A round, for each enabled endpoint: claim it (a lease: no two replicas send
to one endpoint together), read up to ``batch_max_events`` outbox rows after its
cursor, post them one by one in order and move the cursor after each 2xx. The first
failure ends the endpoint's round: a 410 disables it; anything else (5xx, 429, other
4xx, 3xx, a timeout, a refused connection or address) backs off, ``Retry-After``
first, else full jitter, and the next round starts from the same event. So an event
is sent again only after a failure, a lost lease, or a crash between the receiver's
2xx and the cursor's write: receivers de-duplicate on ``webhook-id``. A request cut
short at shutdown is no failure: its event stays after the cursor, and the lease is
given up so that the next start sends it at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from turncheck.worker.clock import Clock
from turncheck.worker.runtime.backoff import doubled_s
from turncheck.worker.runtime.claimant import claimant_id
from turncheck.worker.runtime.tasks import cancel_all
from turncheck.worker.settings import DEFAULTS, Settings
from turncheck.worker.store.webhook_admin import Configured, WebhookEndpoints
from turncheck.worker.store.webhooks import Claimed, WebhookTable
from turncheck.worker.webhooks.config import Endpoint
from turncheck.worker.webhooks.sender import WebhookReply

log = logging.getLogger(__name__)


class Post(Protocol):
    async def post(
        self, endpoint: Endpoint, event_id: str, body: bytes, now: datetime
    ) -> WebhookReply: ...


@dataclass(frozen=True, slots=True)
class WebhookPolicy:
    """``lease_s`` should exceed twice the request timeout: no post starts after half
    the lease, so every post ends inside it."""

    batch_max_events: int = DEFAULTS.webhook_batch_max_events
    lease_s: float = DEFAULTS.webhook_lease_s
    retry_first_s: float = DEFAULTS.webhook_retry_first_s
    retry_max_s: float = DEFAULTS.webhook_retry_max_s
    sync_every_s: float = 60.0

    @classmethod
    def of(cls, settings: Settings) -> WebhookPolicy:
        return cls(
            batch_max_events=settings.webhook_batch_max_events,
            lease_s=settings.webhook_lease_s,
            retry_first_s=settings.webhook_retry_first_s,
            retry_max_s=settings.webhook_retry_max_s,
        )

    def retry_delay_s(self, attempts: int, jitter: float, retry_after_s: float | None) -> float:
        """The wait after the ``attempts + 1``-th failure in a row: the receiver's
        ``Retry-After`` if it gave one, else full jitter, ``jitter`` (in [0, 1)) times
        ``first * 2**attempts``; capped at ``retry_max_s`` either way."""
        if retry_after_s is not None:
            return min(retry_after_s, self.retry_max_s)
        return doubled_s(self.retry_first_s, self.retry_max_s, attempts + 1) * jitter


@dataclass
class Deliverer:
    """One replica's webhook sender over the shared tables."""

    endpoints: Sequence[Endpoint]
    table: WebhookTable
    admin: WebhookEndpoints
    sender: Post
    clock: Clock
    policy: WebhookPolicy = field(default_factory=WebhookPolicy)
    claimant: str = field(default_factory=claimant_id)
    jitter: Callable[[], float] = random.random

    async def sync(self) -> None:
        """Record this replica's endpoints (see ``WebhookEndpoints.sync``)."""
        configured = [Configured(e.name, e.digest, e.enabled) for e in self.endpoints]
        await self.admin.sync(configured, self.clock())

    async def deliver_round(self, stop: asyncio.Event | None = None) -> dict[str, int]:
        """Send one batch to every enabled endpoint this replica may claim now; return
        the events each acknowledged. Raises only what the store raises."""
        enabled = [e for e in self.endpoints if e.enabled]
        counts = await asyncio.gather(*(self.deliver_to(e, stop) for e in enabled))
        return dict(zip([e.name for e in enabled], counts, strict=True))

    async def deliver_to(self, endpoint: Endpoint, stop: asyncio.Event | None = None) -> int:
        """Claim ``endpoint``, send it what waits after its cursor, in order, until a
        failure; return how many events it acknowledged (0 when it was not claimable)."""
        now = self.clock()
        lease = timedelta(seconds=self.policy.lease_s)
        claim = await self.table.claim(endpoint.name, self.claimant, now, now + lease)
        if claim is None:
            return 0
        try:
            return await self._send_batch(endpoint, claim, now + lease / 2, stop)
        except asyncio.CancelledError:
            # Shutdown ran out of time mid-request: the event is still after the cursor;
            # free the endpoint now rather than make the next start wait out the lease.
            await self.table.release(endpoint.name, self.claimant)
            raise

    async def _send_batch(
        self, endpoint: Endpoint, claim: Claimed, start_by: datetime, stop: asyncio.Event | None
    ) -> int:
        sent = 0
        for event in await self.table.events_after(claim.cursor, self.policy.batch_max_events):
            if (stop is not None and stop.is_set()) or self.clock() >= start_by:
                break
            body = event.payload.encode()
            outcome = await self.sender.post(endpoint, event.event_id, body, self.clock())
            at = self.clock()
            if outcome.delivered:
                assert outcome.status is not None
                if not await self.table.advance(
                    endpoint.name, self.claimant, event.position, outcome.status, at
                ):
                    log.warning("webhook lease lost endpoint=%s", endpoint.name)
                    return sent
                sent += 1
            elif outcome.gone:
                await self.table.disable(
                    endpoint.name, self.claimant, status=410, reason="HTTP 410 Gone", now=at
                )
                log.warning("webhook endpoint disabled endpoint=%s status=410", endpoint.name)
                return sent
            else:
                await self._back_off(endpoint, claim.attempts, outcome, at)
                return sent
        await self.table.release(endpoint.name, self.claimant)
        return sent

    async def _back_off(
        self, endpoint: Endpoint, attempts: int, outcome: WebhookReply, at: datetime
    ) -> None:
        delay_s = self.policy.retry_delay_s(attempts, self.jitter(), outcome.retry_after_s)
        error = outcome.error or "failed"
        await self.table.fail(
            endpoint.name,
            self.claimant,
            status=outcome.status,
            error=error,
            retry_at=at + timedelta(seconds=delay_s),
            now=at,
        )
        log.warning(
            "webhook send failed endpoint=%s error=%s attempts=%d retry_in_s=%.1f",
            endpoint.name,
            error,
            attempts + 1,
            delay_s,
        )


async def run_webhooks(
    deliverer: Deliverer, interval_s: float, stop: asyncio.Event, grace_s: float | None = None
) -> None:
    """Until ``stop`` is set, serve every enabled endpoint in a task of its own (see
    ``serve_endpoint``) and record the configured endpoints every ``policy.sync_every_s``.
    Once ``stop`` is set, requests in hand get ``grace_s`` (None: as long as their
    deadline) to end; the rest are cancelled, their events kept for the next start."""
    loop = asyncio.get_running_loop()
    every_s = deliverer.policy.sync_every_s
    # Before the first round: a new endpoint starts at the newest event once recorded.
    sync_at = loop.time() + (every_s if await _sync(deliverer) else 0.0)
    tasks = [
        asyncio.create_task(serve_endpoint(deliverer, endpoint, interval_s, stop))
        for endpoint in deliverer.endpoints
        if endpoint.enabled
    ]
    try:
        while not await _stopped(stop, interval_s):
            if loop.time() >= sync_at and await _sync(deliverer):
                sync_at = loop.time() + every_s
        if tasks:
            await asyncio.wait(tasks, timeout=grace_s)
    finally:
        await cancel_all(tasks)


async def serve_endpoint(
    deliverer: Deliverer, endpoint: Endpoint, interval_s: float, stop: asyncio.Event
) -> None:
    """Every ``interval_s`` until ``stop`` is set, send ``endpoint`` what waits for it,
    round after round while it takes a full batch. A failing round is logged and never
    ends the loop."""
    full = deliverer.policy.batch_max_events
    while not stop.is_set():
        try:
            while not stop.is_set() and await deliverer.deliver_to(endpoint, stop) >= full:
                pass
        except Exception as exc:
            log.warning(
                "webhook round failed endpoint=%s error=%s", endpoint.name, type(exc).__name__
            )
        await _stopped(stop, interval_s)


async def _sync(deliverer: Deliverer) -> bool:
    try:
        await deliverer.sync()
    except Exception as exc:
        log.warning("webhook endpoints not recorded error=%s", type(exc).__name__)
        return False
    return True


async def _stopped(stop: asyncio.Event, wait_s: float) -> bool:
    """Wait up to ``wait_s`` for ``stop``; whether it is set."""
    # Not wait_for: on Python 3.11 it swallows a cancellation that lands as ``stop`` is set.
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(wait_s):
            await stop.wait()
    return stop.is_set()
