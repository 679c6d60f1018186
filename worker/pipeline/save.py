"""The store step of the pipeline: a batch's results, rollups, events and pending
judgements in one transaction, through outages and refusals.

An outage (``StoreUnavailable``) is waited out with backoff, however long, and
nothing is committed meanwhile. A batch the database refuses for another reason is
tried ``StoreRetry.attempts`` times, then turn by turn: the turns it still refuses
come back with their reason, to be dead-lettered, so the rest of the batch is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, TypeVar

from turncheck.worker.clock import Clock
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.pipeline.records import SaveReport, TurnResults
from turncheck.worker.runtime.backoff import Backoff
from turncheck.worker.settings import DEFAULTS, Settings

log = logging.getLogger(__name__)

T = TypeVar("T")
M = TypeVar("M")


class ResultStore(Protocol):
    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport: ...


@dataclass(frozen=True, slots=True)
class StoreRetry:
    """How the store is tried again: waits from ``first_s`` doubling to ``max_s``."""

    first_s: float = DEFAULTS.store_retry_first_s
    max_s: float = DEFAULTS.store_retry_max_s
    attempts: int = DEFAULTS.store_attempts
    """Tries of a batch the database refuses (not an outage) before it goes turn by turn."""

    @classmethod
    def of(cls, settings: Settings) -> StoreRetry:
        return cls(
            settings.store_retry_first_s, settings.store_retry_max_s, settings.store_attempts
        )

    def backoff(self) -> Backoff:
        return Backoff(self.first_s, self.max_s)


DEFAULT_STORE_RETRY = StoreRetry()


def could_not(step: str, exc: BaseException) -> str:
    """The reason a message is dead-lettered with: the step and the error's type."""
    return f"could not be {step}: {type(exc).__name__}"


async def through_outages(step: Callable[[], Awaitable[T]], retry: StoreRetry) -> T:
    """``step``'s answer once the database answers; its other errors are raised."""
    backoff = retry.backoff()
    while True:
        try:
            return await step()
        except StoreUnavailable as exc:
            delay_s = backoff.take()
            log.warning("store unavailable error=%s retry_in_s=%.1f", exc, delay_s)
            await asyncio.sleep(delay_s)


async def store_batch(
    store: ResultStore,
    items: list[tuple[M, TurnResults]],
    retry: StoreRetry,
    clock: Clock,
) -> tuple[SaveReport, list[TurnResults], list[tuple[M, str]]]:
    """Store the batch whole; if the database keeps refusing it, turn by turn. Returns
    what was saved, the turns stored, and the messages refused with their reason."""
    batch = [item for _, item in items]
    backoff = retry.backoff()
    for attempt in range(1, retry.attempts + 1):
        try:
            saved = await through_outages(lambda: store.save(batch, clock()), retry)
            return saved, batch, []
        except Exception as exc:
            if attempt == retry.attempts:
                log.warning("batch refused by the store error=%s", type(exc).__name__)
                break
            delay_s = backoff.take()
            log.warning(
                "batch refused by the store error=%s attempt=%d retry_in_s=%.1f",
                type(exc).__name__,
                attempt,
                delay_s,
            )
            await asyncio.sleep(delay_s)
    return await _one_by_one(store, items, retry, clock)


async def _one_by_one(
    store: ResultStore,
    items: list[tuple[M, TurnResults]],
    retry: StoreRetry,
    clock: Clock,
) -> tuple[SaveReport, list[TurnResults], list[tuple[M, str]]]:
    new_results, pending = 0, set[tuple[str, str, str]]()
    stored: list[TurnResults] = []
    refused: list[tuple[M, str]] = []
    for message, item in items:
        try:
            report = await through_outages(lambda: store.save([item], clock()), retry)  # noqa: B023
        except Exception as exc:
            log.error(
                "turn refused by the store turn_id=%s error=%s",
                item.turn.turn_id,
                type(exc).__name__,
            )
            refused.append((message, could_not("stored", exc)))
            continue
        stored.append(item)
        new_results += report.new_results
        pending |= report.pending
    return SaveReport(new_results, frozenset(pending)), stored, refused
