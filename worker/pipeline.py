"""The path of a batch of turns, top to bottom:

    decode → rule checks, and the judgements to make (in a thread, off the event
    loop) → store (results, rollups, outbox, pending judgements: one transaction)
    → dead-letter the bad messages → commit → hand the judgements to the runner

The consumer and ``turncheck replay`` both run this; they differ only in where
messages come from, where bad ones go and what committing means.

No one turn can stall a partition: a message that is not a turn, or that cannot
be checked, is dead-lettered at once; a batch the database refuses for a reason
other than an outage is tried ``RetryPolicy.attempts`` times with backoff, then
turn by turn, and the turns it still refuses are dead-lettered with the error's
name, so the rest of the batch is stored and committed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from turncheck.worker import metrics
from turncheck.worker.backoff import Backoff
from turncheck.worker.checks import CheckSet, Verdict
from turncheck.worker.decode import decode_turn
from turncheck.worker.errors import InvalidTurn, StoreUnavailable
from turncheck.worker.evaluate import evaluate
from turncheck.worker.judge.plan import JudgeJob, plan_turn
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.records import SaveReport, TurnRef, TurnResults

log = logging.getLogger(__name__)

T = TypeVar("T")
Commit = Callable[[], Awaitable[None]]
Clock = Callable[[], datetime]


@dataclass(frozen=True, slots=True)
class RawMessage:
    value: bytes | None
    """None: a tombstone (a record with a null value)."""
    key: bytes | None = None
    topic: str | None = None
    partition: int | None = None
    offset: int | None = None


@dataclass(frozen=True, slots=True)
class Rejected:
    message: RawMessage
    reason: str


@dataclass(frozen=True, slots=True)
class BatchReport:
    turns: int
    rejected: int
    results: int
    new_results: int
    not_passed: int
    judging: int = 0
    erased: int = 0
    """Turns of erased persons, dropped unstored."""


@dataclass(frozen=True, slots=True)
class Judging:
    """The background judge: where sampled judgements go once their batch is committed."""

    runner: JudgeRunner
    configured: frozenset[str]
    """Judge model names that have an endpoint."""
    deadline_s: float


class ResultStore(Protocol):
    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport: ...


DeadLetter = Callable[[Sequence[Rejected]], Awaitable[None]]


class Ledger(Protocol):
    async def erased(self, person_ids: Iterable[str]) -> set[str]:
        """Which of these persons were erased: their turns are dropped, not stored."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    first_s: float = 0.5
    max_s: float = 30.0
    attempts: int = 3
    """Tries of a batch the database refuses (not an outage) before it goes turn by turn."""

    def backoff(self) -> Backoff:
        return Backoff(self.first_s, self.max_s)


@dataclass(slots=True)
class CheckedBatch:
    """A batch once checked: what to store (with the message each came from), what to
    dead-letter, and the judgements to hand over once it is committed."""

    items: list[tuple[RawMessage, TurnResults]] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    jobs: list[JudgeJob] = field(default_factory=list)


def _could_not(step: str, exc: BaseException) -> str:
    return f"could not be {step}: {type(exc).__name__}"


@dataclass(frozen=True, slots=True)
class Pipeline:
    checks: CheckSet
    store: ResultStore
    dead_letter: DeadLetter
    clock: Clock
    retention: timedelta
    retry: RetryPolicy = RetryPolicy()
    judging: Judging | None = None
    ledger: Ledger | None = None

    async def handle_batch(self, messages: Sequence[RawMessage], commit: Commit) -> BatchReport:
        """Process a batch; ``commit`` is called only after its results are stored and its
        bad messages dead-lettered.

        Blocks while the store is unavailable (nothing is committed meanwhile);
        cancel it to stop, and the batch is delivered again.
        """
        # Checks are CPU work that can take a while on a large batch: off the event
        # loop, so heartbeats, the outbox and the judge keep running meanwhile.
        checked = await asyncio.to_thread(self.check_all, messages)
        erased = await self._drop_erased(checked)
        saved, stored, refused = await self._store(checked.items)
        rejected = checked.rejected + refused
        if rejected:
            await self.dead_letter(rejected)
        await commit()
        judging = [job for job in checked.jobs if job.key in saved.pending]
        if judging and self.judging is not None:
            self.judging.runner.submit(judging)
        results = [r for item in stored for r in item.results]
        metrics.batch_stored(len(messages), results)
        report = BatchReport(
            turns=len(stored),
            rejected=len(rejected),
            results=len(results),
            new_results=saved.new_results,
            not_passed=sum(r.verdict is not Verdict.PASSED for r in results),
            judging=len(judging),
            erased=erased,
        )
        log.info(
            "batch stored turns=%d rejected=%d results=%d new=%d not_passed=%d judging=%d "
            "erased=%d",
            report.turns,
            report.rejected,
            report.results,
            report.new_results,
            report.not_passed,
            report.judging,
            report.erased,
        )
        return report

    async def _drop_erased(self, checked: CheckedBatch) -> int:
        """Leave out the turns of persons in the erasure ledger (and their judgements), so
        a replay or a late redelivery never brings an erased person's results back."""
        ledger = self.ledger
        persons = {item.turn.person_id for _, item in checked.items if item.turn.person_id}
        if ledger is None or not persons:
            return 0
        erased = await self._through_outages(lambda: ledger.erased(persons))
        if not erased:
            return 0
        kept = [(m, item) for m, item in checked.items if item.turn.person_id not in erased]
        dropped = {item.turn.turn_id for _, item in checked.items} - {
            item.turn.turn_id for _, item in kept
        }
        checked.items = kept
        checked.jobs = [job for job in checked.jobs if job.turn.turn_id not in dropped]
        return len(dropped)

    def check_all(self, messages: Sequence[RawMessage]) -> CheckedBatch:
        """Pure CPU work: decode, apply the rule checks, plan the judgements."""
        checked = CheckedBatch()
        now = self.clock()
        room = self.judging.runner.room() if self.judging else 0
        for message in messages:
            try:
                item, jobs = self._check_one(message, now, room - len(checked.jobs))
            except InvalidTurn as exc:
                checked.rejected.append(Rejected(message, exc.reason))
                continue
            except Exception as exc:  # a bug on one turn must not hold up its partition
                log.error(
                    "turn could not be checked offset=%s error=%s",
                    message.offset,
                    type(exc).__name__,
                )
                checked.rejected.append(Rejected(message, _could_not("checked", exc)))
                continue
            checked.items.append((message, item))
            checked.jobs.extend(jobs)
        return checked

    def _check_one(
        self, message: RawMessage, now: datetime, room: int
    ) -> tuple[TurnResults, list[JudgeJob]]:
        turn = decode_turn(message.value)
        item = TurnResults(TurnRef.of(turn), evaluate(turn, self.checks), self.retention)
        judged = self.checks.judged_for_agent(turn.agent.id)
        if not judged:
            return item, []
        plan = plan_turn(
            turn,
            judged,
            configured=self.judging.configured if self.judging else frozenset(),
            room=room,
            now=now,
            retention=self.retention,
            deadline_s=self.judging.deadline_s if self.judging else 0.0,
        )
        item.results.extend(plan.results)
        item.pending.extend(job.pending for job in plan.jobs)
        return item, plan.jobs

    async def _store(
        self, items: list[tuple[RawMessage, TurnResults]]
    ) -> tuple[SaveReport, list[TurnResults], list[Rejected]]:
        """Store the batch whole; if the database keeps refusing it, turn by turn. Returns
        what was saved, the turns stored and the turns refused."""
        batch = [item for _, item in items]
        backoff = self.retry.backoff()
        for attempt in range(1, self.retry.attempts + 1):
            try:
                return await self._save_through_outages(batch), batch, []
            except Exception as exc:
                if attempt == self.retry.attempts:
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
        return await self._store_one_by_one(items)

    async def _store_one_by_one(
        self, items: list[tuple[RawMessage, TurnResults]]
    ) -> tuple[SaveReport, list[TurnResults], list[Rejected]]:
        new_results, pending = 0, set[tuple[str, str, str]]()
        stored: list[TurnResults] = []
        refused: list[Rejected] = []
        for message, item in items:
            try:
                report = await self._save_through_outages([item])
            except Exception as exc:
                log.error(
                    "turn refused by the store turn_id=%s error=%s",
                    item.turn.turn_id,
                    type(exc).__name__,
                )
                refused.append(Rejected(message, _could_not("stored", exc)))
                continue
            stored.append(item)
            new_results += report.new_results
            pending |= report.pending
        return SaveReport(new_results, frozenset(pending)), stored, refused

    async def _save_through_outages(self, batch: list[TurnResults]) -> SaveReport:
        return await self._through_outages(lambda: self.store.save(batch, self.clock()))

    async def _through_outages(self, step: Callable[[], Awaitable[T]]) -> T:
        backoff = self.retry.backoff()
        while True:
            try:
                return await step()
            except StoreUnavailable as exc:
                delay_s = backoff.take()
                log.warning("store unavailable error=%s retry_in_s=%.1f", exc, delay_s)
                await asyncio.sleep(delay_s)
