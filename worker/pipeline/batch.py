"""The path of a batch of turns, top to bottom:

    decode → leave out turns expired on arrival → rule checks, and the judgements to
    make (in a thread, off the event loop) → drop erased persons' turns → store
    (results, rollups, outbox, pending judgements: one transaction) → dead-letter the
    bad messages → commit → hand the judgements to the runner

The consumer and ``turncheck replay`` both run this; they differ only in where
messages come from, where bad ones go and what committing means.

No one turn can stall a partition: a message that is not a turn, or that cannot
be checked, is dead-lettered at once; the store step (``worker/pipeline/save.py``) hands
back the turns the database keeps refusing, and they are dead-lettered with the
error's name, so the rest of the batch is stored and committed.

A turn is counted once, whatever was purged or erased in between. A turn already past
its retention window when it is checked (``expired_on_arrival``,
``worker/pipeline/records.py``) is skipped: not checked, stored, judged, counted in the
rollups or given events, only counted as ``expired`` (and in
``turncheck_turns_expired_on_arrival_total``). The purge deletes nothing else, so a
turn redelivered or replayed after a purge is always skipped. The turns of persons in
the erasure ledger are dropped before the store step (``erased``); a process without
``TURNCHECK_ERASURE_KEY`` cannot tell whose they are, so once the ledger holds anyone it
stores no batch at all (``worker/retention/erasure.py``: ``KeylessLedger``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from turncheck.worker.checks import CheckResult, CheckSet, Verdict
from turncheck.worker.clock import Clock
from turncheck.worker.errors import InvalidTurn
from turncheck.worker.judge.plan import JudgeJob, plan_turn
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.pipeline.evaluate import evaluate
from turncheck.worker.pipeline.records import TurnRef, TurnResults, expired_on_arrival
from turncheck.worker.pipeline.save import (
    DEFAULT_STORE_RETRY,
    ResultStore,
    StoreRetry,
    could_not,
    store_batch,
    through_outages,
)
from turncheck.worker.runtime import metrics
from turncheck.worker.turns.decode import decode_turn

log = logging.getLogger(__name__)

Commit = Callable[[], Awaitable[None]]


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
    expired: int = 0
    """Turns past their retention window when checked, skipped unstored and uncounted."""


@dataclass(frozen=True, slots=True)
class Judging:
    """The background judge: where sampled judgements go once their batch is committed."""

    runner: JudgeRunner
    configured: frozenset[str]
    """Judge model names that have an endpoint."""
    deadline_s: float


DeadLetter = Callable[[Sequence[Rejected]], Awaitable[None]]


class Ledger(Protocol):
    async def erased(self, person_ids: Iterable[str]) -> set[str]:
        """Which of these persons were erased: their turns are dropped, not stored. Asked
        before every batch that has turns to store; raising refuses the whole batch."""
        ...


@dataclass(slots=True)
class CheckedBatch:
    """A batch once checked: what to store (with the message each came from), what to
    dead-letter, and the judgements to hand over once it is committed."""

    items: list[tuple[RawMessage, TurnResults]] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)
    jobs: list[JudgeJob] = field(default_factory=list)
    expired: int = 0
    """Turns left out as expired on arrival."""


@dataclass(frozen=True, slots=True)
class Pipeline:
    checks: CheckSet
    store: ResultStore
    dead_letter: DeadLetter
    clock: Clock
    retention: timedelta
    retry: StoreRetry = DEFAULT_STORE_RETRY
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
        saved, stored, refused_items = await store_batch(
            self.store, checked.items, self.retry, self.clock
        )
        refused = [Rejected(message, reason) for message, reason in refused_items]
        rejected = checked.rejected + refused
        if rejected:
            await self.dead_letter(rejected)
        await commit()
        judging = [job for job in checked.jobs if job.key in saved.pending]
        if judging and self.judging is not None:
            self.judging.runner.submit(judging)
        results = [r for item in stored for r in item.results]
        metrics.batch_stored(
            len(messages), results, expired=checked.expired, shadow=self._shadowed(stored)
        )
        report = BatchReport(
            turns=len(stored),
            rejected=len(rejected),
            results=len(results),
            new_results=saved.new_results,
            not_passed=sum(r.verdict is not Verdict.PASSED for r in results),
            judging=len(judging),
            erased=erased,
            expired=checked.expired,
        )
        log.info(
            "batch stored turns=%d rejected=%d results=%d new=%d not_passed=%d judging=%d "
            "erased=%d expired=%d",
            report.turns,
            report.rejected,
            report.results,
            report.new_results,
            report.not_passed,
            report.judging,
            report.erased,
            report.expired,
        )
        return report

    def _shadowed(self, stored: Sequence[TurnResults]) -> list[CheckResult]:
        """The results of shadow checks among those stored, for their own counter."""
        shadow = self.checks.shadow
        if not shadow:
            return []
        return [
            r
            for item in stored
            for r in item.results
            if (item.turn.agent_id, r.check.name) in shadow
        ]

    async def _drop_erased(self, checked: CheckedBatch) -> int:
        """Leave out the turns of persons in the erasure ledger (and their judgements), so
        a replay or a late redelivery never brings an erased person's results back. The
        ledger is asked whenever there is something to store, even with no person in it:
        a ledger that cannot tell whose turns are erased refuses every batch."""
        ledger = self.ledger
        if ledger is None or not checked.items:
            return 0
        persons = {item.turn.person_id for _, item in checked.items if item.turn.person_id}
        erased = await through_outages(lambda: ledger.erased(persons), self.retry)
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
                checked_one = self._check_one(message, now, room - len(checked.jobs))
            except InvalidTurn as exc:
                checked.rejected.append(Rejected(message, exc.reason))
                continue
            except Exception as exc:  # a bug on one turn must not hold up its partition
                log.error(
                    "turn could not be checked offset=%s error=%s",
                    message.offset,
                    type(exc).__name__,
                )
                checked.rejected.append(Rejected(message, could_not("checked", exc)))
                continue
            if checked_one is None:
                checked.expired += 1
                continue
            item, jobs = checked_one
            checked.items.append((message, item))
            checked.jobs.extend(jobs)
        return checked

    def _check_one(
        self, message: RawMessage, now: datetime, room: int
    ) -> tuple[TurnResults, list[JudgeJob]] | None:
        """The turn's results and judgements; None when it expired on arrival."""
        turn = decode_turn(message.value)
        if expired_on_arrival(turn.created_at, self.retention, now):
            return None
        item = TurnResults(TurnRef.of(turn), evaluate(turn, self.checks), self.retention)
        judged = self.checks.judged_for_agent(turn.agent.id, turn.agent.version)
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
