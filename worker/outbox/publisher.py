"""Deliver outbox rows (``response.check_failed`` events) at least once, from any
number of replicas, each row normally by one of them.

A round claims up to ``round_max_events`` sendable rows under a lease (see
``store/outbox_table.py``), sends them with at most ``max_in_flight`` awaiting the
broker, and marks each group sent as soon as the broker acknowledged it: a
publisher killed mid-round sends again at most what it had in flight, once its
lease has run out, or at once when it comes back under the same replica name
(``TURNCHECK_INSTANCE_ID``): a claim also takes back the rows still reserved to
its own claimant. Two publishers of one name must never run at once: the worker's
loop and its shutdown drain run one after the other. A failed row backs off
exponentially and stays out of claims until then, so one poison row never holds
back the rest. Rows a round will not start (told to stop, or its lease half gone)
are released for anyone to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from turncheck.worker.clock import Clock
from turncheck.worker.runtime.backoff import doubled_s
from turncheck.worker.runtime.claimant import claimant_id
from turncheck.worker.runtime.tasks import cancel_all
from turncheck.worker.settings import DEFAULTS, Settings
from turncheck.worker.store import FailedSend, PendingEvent

log = logging.getLogger(__name__)

Send = Callable[[str, str, bytes], Awaitable[None]]
"""``send(topic, key, payload)``: returns once the broker has the event; raises otherwise."""


class OutboxStore(Protocol):
    async def claim(
        self, claimant: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[PendingEvent]: ...
    async def mark_sent(self, ids: Sequence[int], now: datetime) -> None: ...
    async def mark_failed(self, claimant: str, failures: Sequence[FailedSend]) -> None: ...
    async def release(self, claimant: str, ids: Sequence[int]) -> None: ...
    async def purge_sent(self, before: datetime, limit: int) -> int: ...


@dataclass(frozen=True, slots=True)
class OutboxPolicy:
    """How a publisher claims, sends, retries and forgets.

    ``lease_s`` should exceed twice the broker client's own send timeout: a round
    starts no send after half its lease, so every send it starts ends in the lease.
    """

    round_max_events: int = DEFAULTS.outbox_round_max_events
    max_in_flight: int = DEFAULTS.outbox_max_in_flight
    lease_s: float = DEFAULTS.outbox_lease_s
    retry_first_s: float = DEFAULTS.outbox_retry_first_s
    retry_max_s: float = DEFAULTS.outbox_retry_max_s
    keep_sent_s: float = DEFAULTS.outbox_keep_sent_s
    purge_every_s: float = 60.0
    purge_chunk: int = DEFAULTS.purge_chunk_rows
    purge_max_chunks: int = 10

    @classmethod
    def of(cls, settings: Settings) -> OutboxPolicy:
        return cls(
            round_max_events=settings.outbox_round_max_events,
            max_in_flight=settings.outbox_max_in_flight,
            lease_s=settings.outbox_lease_s,
            retry_first_s=settings.outbox_retry_first_s,
            retry_max_s=settings.outbox_retry_max_s,
            keep_sent_s=settings.outbox_keep_sent_s,
            purge_chunk=settings.purge_chunk_rows,
        )

    def retry_delay_s(self, attempts: int, jitter: float) -> float:
        """The wait after a row's ``attempts + 1``-th failure: ``first * 2**attempts``,
        capped at ``retry_max_s``, scaled by ``jitter`` in [0, 1) to between half and all
        of it, so rows that failed together do not come back together."""
        return doubled_s(self.retry_first_s, self.retry_max_s, attempts + 1) * (0.5 + jitter / 2)


DEFAULT_OUTBOX = OutboxPolicy()


@dataclass(slots=True)
class PublishReport:
    claimed: int = 0
    sent: int = 0
    failed: int = 0
    released: int = 0


class NotStarted(enum.Enum):
    NOT_STARTED = "not started"


SendOutcome = Exception | NotStarted | None
"""What became of one claimed row: None acknowledged, an exception refused, or not
started (the round was told to stop, or its lease is half gone)."""


@dataclass
class Publisher:
    """One replica's sender: its claimant id, the store's outbox and the broker.

    Its rounds run one after another, so rows still reserved to its claimant when a round
    starts are not in flight: they were left by a round that failed or was cancelled, or
    by the same replica before a restart, and are claimed again with the rest.
    """

    store: OutboxStore
    send: Send
    clock: Clock
    policy: OutboxPolicy = DEFAULT_OUTBOX
    claimant: str = field(default_factory=claimant_id)
    jitter: Callable[[], float] = random.random

    async def publish_round(self, stop: asyncio.Event | None = None) -> PublishReport:
        """Claim, send and record one round. Raises only what the store raises.

        Cancelled, it cancels its sends in flight and writes nothing more: its
        unmarked rows wait for their lease to run out, as if the process had died.
        """
        now = self.clock()
        lease = timedelta(seconds=self.policy.lease_s)
        rows = await self.store.claim(self.claimant, now, now + lease, self.policy.round_max_events)
        report = PublishReport(claimed=len(rows))
        if not rows:
            return report
        start_by = now + lease / 2
        gate = asyncio.Semaphore(self.policy.max_in_flight)

        async def attempt(row: PendingEvent) -> SendOutcome:
            async with gate:
                if (stop is not None and stop.is_set()) or self.clock() >= start_by:
                    return NotStarted.NOT_STARTED
                try:
                    await self.send(row.topic, row.key, row.payload.encode())
                except Exception as exc:
                    return exc
                return None

        tasks = {asyncio.create_task(attempt(row)): row for row in rows}
        try:
            while tasks:
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                # Whatever finished while the last group was being recorded is one group.
                await self._record([(tasks.pop(t), t.result()) for t in done], report)
        finally:
            await cancel_all(tasks)
        return report

    async def _record(
        self, outcomes: list[tuple[PendingEvent, SendOutcome]], report: PublishReport
    ) -> None:
        sent = [row.id for row, outcome in outcomes if outcome is None]
        skipped = [row.id for row, outcome in outcomes if outcome is NotStarted.NOT_STARTED]
        failed = [(row, o) for row, o in outcomes if isinstance(o, Exception)]
        now = self.clock()
        await self.store.mark_sent(sent, now)
        if failed:
            failures = [
                FailedSend(
                    row.id,
                    now + timedelta(seconds=self.policy.retry_delay_s(row.attempts, self.jitter())),
                    type(error).__name__,
                )
                for row, error in failed
            ]
            await self.store.mark_failed(self.claimant, failures)
            log.warning(
                "event sends failed count=%d first_error=%s first_event_row=%d attempts=%d",
                len(failed),
                failures[0].error,
                failures[0].id,
                failed[0][0].attempts + 1,
            )
        await self.store.release(self.claimant, skipped)
        report.sent += len(sent)
        report.failed += len(failed)
        report.released += len(skipped)

    async def drain(self, stop: asyncio.Event | None = None) -> int:
        """Send what is sendable now, round after round; return how many were sent.

        Ends when a round finds fewer rows than it may claim (nothing more is
        waiting), sends none (the broker is down: wait for the next tick), or
        ``stop`` is set.
        """
        total = 0
        while stop is None or not stop.is_set():
            report = await self.publish_round(stop)
            total += report.sent
            if report.claimed < self.policy.round_max_events or report.sent == 0:
                break
        return total

    async def purge(self) -> int:
        """Delete rows sent more than ``keep_sent_s`` ago, in chunks; return how many."""
        before = self.clock() - timedelta(seconds=self.policy.keep_sent_s)
        return await purge_sent_events(
            self.store, before, self.policy.purge_chunk, self.policy.purge_max_chunks
        )


async def purge_sent_events(
    store: OutboxStore, before: datetime, chunk: int, max_chunks: int | None = None
) -> int:
    """Delete events sent before ``before``, ``chunk`` per transaction, in at most
    ``max_chunks`` transactions (None: until none is left); return how many went."""
    total = chunks = 0
    while max_chunks is None or chunks < max_chunks:
        deleted = await store.purge_sent(before, chunk)
        total, chunks = total + deleted, chunks + 1
        if deleted < chunk:
            break
    return total


async def drain(
    store: OutboxStore,
    send: Send,
    clock: Clock,
    policy: OutboxPolicy = DEFAULT_OUTBOX,
    *,
    replica: str | None = None,
) -> int:
    """Send everything sendable now and return how many were sent (shutdown, replay).

    ``replica``: the name to claim under, as in ``run_outbox``; only once no other
    publisher of that name runs (the worker's loop has ended).
    """
    return await Publisher(store, send, clock, policy, claimant_id(replica)).drain()


async def run_outbox(
    store: OutboxStore,
    send: Send,
    clock: Clock,
    interval_s: float,
    stop: asyncio.Event,
    policy: OutboxPolicy = DEFAULT_OUTBOX,
    *,
    replica: str | None = None,
) -> None:
    """Send every ``interval_s`` and purge every ``policy.purge_every_s`` until ``stop``
    is set; a failing round or purge is logged and never ends the loop.

    ``replica``: the replica's stable name (``Settings.replica``), claimed under so that
    its first round takes back what the replica held before a restart; None: a new
    claimant, whose rows left behind wait for their lease.
    """
    publisher = Publisher(store, send, clock, policy, claimant_id(replica))
    loop = asyncio.get_running_loop()
    purge_at = loop.time()
    while not stop.is_set():
        try:
            await publisher.drain(stop)
        except Exception as exc:
            log.warning("outbox round failed error=%s", type(exc).__name__)
        if loop.time() >= purge_at and not stop.is_set():
            purge_at = loop.time() + policy.purge_every_s
            try:
                if deleted := await publisher.purge():
                    log.info("outbox purged sent events count=%d", deleted)
            except Exception as exc:
                log.warning("outbox purge failed error=%s", type(exc).__name__)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=interval_s)
