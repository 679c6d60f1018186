"""The path of a batch of turns, top to bottom:

    decode → rule checks, and the judgements to make → dead-letter the bad
    messages → store (results, rollups, outbox, pending judgements: one
    transaction) → commit → hand the judgements to the judge runner

The consumer and ``turncheck replay`` both run this; they differ only in where
messages come from, where bad ones go and what committing means.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from turncheck.worker.checks import CheckSet, Verdict
from turncheck.worker.decode import decode_turn
from turncheck.worker.errors import InvalidTurn, StoreUnavailable
from turncheck.worker.evaluate import evaluate
from turncheck.worker.judge.plan import JudgeJob, plan_turn
from turncheck.worker.judge.runner import JudgeRunner
from turncheck.worker.records import SaveReport, TurnRef, TurnResults

log = logging.getLogger(__name__)

Commit = Callable[[], Awaitable[None]]
Clock = Callable[[], datetime]


@dataclass(frozen=True, slots=True)
class RawMessage:
    value: bytes
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


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    first_s: float = 0.5
    max_s: float = 30.0


@dataclass(frozen=True, slots=True)
class Pipeline:
    checks: CheckSet
    store: ResultStore
    dead_letter: DeadLetter
    clock: Clock
    retention: timedelta
    retry: RetryPolicy = RetryPolicy()
    judging: Judging | None = None

    async def handle_batch(self, messages: Sequence[RawMessage], commit: Commit) -> BatchReport:
        """Process a batch; ``commit`` is called only after its results are stored.

        Blocks while the store is unavailable (nothing is committed meanwhile);
        cancel it to stop, and the batch is delivered again.
        """
        batch, rejected, jobs = self.check_all(messages)
        if rejected:
            await self.dead_letter(rejected)
        saved = await self._store(batch)
        new_results = saved.new_results
        await commit()
        judging = [job for job in jobs if job.key in saved.pending]
        if judging and self.judging is not None:
            self.judging.runner.submit(judging)
        results = [r for item in batch for r in item.results]
        report = BatchReport(
            turns=len(batch),
            rejected=len(rejected),
            results=len(results),
            new_results=new_results,
            not_passed=sum(r.verdict is not Verdict.PASSED for r in results),
            judging=len(judging),
        )
        log.info(
            "batch stored turns=%d rejected=%d results=%d new=%d not_passed=%d judging=%d",
            report.turns,
            report.rejected,
            report.results,
            report.new_results,
            report.not_passed,
            report.judging,
        )
        return report

    def check_all(
        self, messages: Sequence[RawMessage]
    ) -> tuple[list[TurnResults], list[Rejected], list[JudgeJob]]:
        batch: list[TurnResults] = []
        rejected: list[Rejected] = []
        jobs: list[JudgeJob] = []
        now = self.clock()
        room = self.judging.runner.room() if self.judging else 0
        for message in messages:
            try:
                turn = decode_turn(message.value)
            except InvalidTurn as exc:
                rejected.append(Rejected(message, exc.reason))
                continue
            item = TurnResults(TurnRef.of(turn), evaluate(turn, self.checks), self.retention)
            judged = self.checks.judged_for_agent(turn.agent.id)
            if judged:
                plan = plan_turn(
                    turn,
                    judged,
                    configured=self.judging.configured if self.judging else frozenset(),
                    room=room - len(jobs),
                    now=now,
                    retention=self.retention,
                    deadline_s=self.judging.deadline_s if self.judging else 0.0,
                )
                item.results.extend(plan.results)
                item.pending.extend(job.pending for job in plan.jobs)
                jobs.extend(plan.jobs)
            batch.append(item)
        return batch, rejected, jobs

    async def _store(self, batch: list[TurnResults]) -> SaveReport:
        delay_s = self.retry.first_s
        while True:
            try:
                return await self.store.save(batch, self.clock())
            except StoreUnavailable as exc:
                log.warning("store unavailable error=%s retry_in_s=%.1f", exc, delay_s)
                await asyncio.sleep(delay_s)
                delay_s = min(delay_s * 2, self.retry.max_s)
