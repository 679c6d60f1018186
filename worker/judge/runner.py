"""Judge sampled turns in the background, bounded in memory, losing none.

The consumer hands over jobs only after their turn's rule results and pending
judgements are committed, and only as many as ``capacity`` allows (the rest
were already stored as errored by the planner). Workers ask the judge (the
client bounds concurrency per endpoint), turn the reply into a result and
store it, replacing the pending judgement. A job's deadline runs from when a
worker takes it up, not from when it was handed over, so judgements that
waited out a judge outage in the queue still get their full time once it is
back; a judge that does not answer within it leaves the result ``errored``.

A sweep turns pending judgements whose deadline passed long ago, left by a
worker that died, into ``errored`` results too. It skips what this runner
holds; another replica's sweep may settle a judgement that waited here longer
than its deadline and the grace, and the later answer then writes nothing
(results are unique), so the two never disagree. ``judge_job`` turns every
failure in asking the judge, the judge's or a bug's, into ``errored`` with its
reason, so the sweep's "abandoned" means that the worker holding the judgement
stopped (or its store refused the result with an error that is not an outage).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Protocol

from turncheck.worker.checks import CheckResult
from turncheck.worker.checks.result import Outcome
from turncheck.worker.clock import Clock
from turncheck.worker.errors import JudgeError, StoreUnavailable, type_words
from turncheck.worker.judge.kinds import JudgedDecision
from turncheck.worker.judge.plan import BACKLOG_FULL, JudgeJob
from turncheck.worker.judge.redact import unquoted
from turncheck.worker.judge.types import JudgeClient
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef
from turncheck.worker.pipeline.save import DEFAULT_STORE_RETRY, StoreRetry
from turncheck.worker.runtime.backoff import Backoff
from turncheck.worker.runtime.tasks import cancel_all
from turncheck.worker.settings import DEFAULTS

log = logging.getLogger(__name__)

TOO_LATE = "The judge did not answer before the deadline."
ABANDONED = "The judgement was abandoned: the worker holding it stopped before the judge answered."
NOT_JUDGED = (ABANDONED, BACKLOG_FULL)
"""Reasons of results errored by the worker (a deploy, a full backlog), not by the check:
alerts show them apart so a deploy does not look like a drop in quality."""


class JudgedStore(Protocol):
    async def save_judged(
        self, turn: TurnRef, result: CheckResult, expires_at: datetime, now: datetime
    ) -> bool: ...

    async def overdue_judgements(
        self, now: datetime, limit: int = 200
    ) -> list[tuple[PendingJudgement, datetime]]: ...


async def judge_job(client: JudgeClient, job: JudgeJob, deadline_s: float) -> CheckResult:
    """Ask the judge and read its reply into a result. Raises nothing but cancellation: a
    judge's failure is ``errored`` with the judge's reason, any other error in asking it
    ``errored`` naming the error's type, so only a stopped worker leaves it to the sweep."""
    if deadline_s <= 0:
        return CheckResult.of(job.check.id, Outcome.errored(TOO_LATE))
    try:
        reply = await client.complete(job.request, deadline_s=deadline_s)
    except JudgeError as exc:
        log.warning("judge failed check=%s turn_id=%s", job.check.name, job.turn.turn_id)
        return CheckResult.of(job.check.id, Outcome.errored(exc.reason))
    except Exception as exc:  # a bug in the client must not kill the worker holding the job
        error = type_words(type(exc).__name__)
        log.error("judge call crashed check=%s error=%s", job.check.name, type(exc).__name__)
        return CheckResult.of(
            job.check.id, Outcome.errored(f"The judge could not be asked ({error}).")
        )
    try:
        decision: JudgedDecision = job.check.decide(reply)
    except Exception as exc:  # a bug in one check must not stop the runner
        log.error("judged check crashed check=%s error=%s", job.check.name, type(exc).__name__)
        return CheckResult.of(job.check.id, Outcome.errored("The judged check could not run."))
    answers: dict[str, dict[str, object]] = {
        a.question: {"answer": a.answer, "probability": a.probability} for a in decision.answers
    }
    # The reason is stored and served: what it quotes of the turn stays out of it.
    outcome = await unquoted(decision.outcome, job.request.user)
    return CheckResult.of(job.check.id, outcome, reply.usage.as_dict(), answers or None)


async def supervised(name: str, run: Callable[[], Awaitable[None]]) -> None:
    """Run ``run`` until cancelled; if it raises, log it and start it again (after a
    growing pause), so a bug or a refused write never leaves a silently dead worker."""
    backoff = Backoff(1.0, 60.0)
    while True:
        try:
            await run()
            return
        except Exception as exc:
            delay_s = backoff.take()
            log.error(
                "%s failed, restarting error=%s restart_in_s=%.0f",
                name,
                type(exc).__name__,
                delay_s,
            )
            await asyncio.sleep(delay_s)


class JudgeRunner:
    def __init__(
        self,
        client: JudgeClient,
        store: JudgedStore,
        clock: Clock,
        *,
        capacity: int = DEFAULTS.judge_queue_max,
        workers: int = DEFAULTS.judge_workers,
        deadline_s: float = DEFAULTS.judge_deadline_s,
        retry: StoreRetry = DEFAULT_STORE_RETRY,
        sweep_every_s: float = 30.0,
        sweep_grace_s: float = 60.0,
    ) -> None:
        self.client = client
        self.store = store
        self.clock = clock
        self.capacity = capacity
        self.deadline_s = deadline_s
        self.sweep_every_s = sweep_every_s
        self.sweep_grace_s = sweep_grace_s
        self.retry = retry
        self._workers = workers
        self._queue: asyncio.Queue[JudgeJob] = asyncio.Queue()
        self._held: set[tuple[str, str, str]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        self._idle = asyncio.Event()
        self._idle.set()

    def room(self) -> int:
        """How many more jobs may be handed over now."""
        return max(self.capacity - len(self._held), 0)

    @property
    def held(self) -> int:
        return len(self._held)

    def submit(self, jobs: Sequence[JudgeJob]) -> None:
        for job in jobs:
            if job.key in self._held:
                continue
            self._held.add(job.key)
            self._queue.put_nowait(job)
        if self._held:
            self._idle.clear()

    def start(self) -> None:
        self._tasks = [
            asyncio.create_task(supervised("judge worker", self._work))
            for _ in range(self._workers)
        ]
        self._tasks.append(asyncio.create_task(supervised("judge sweep", self._sweep_forever)))

    async def join(self) -> None:
        """Wait until every job handed over is stored."""
        await self._idle.wait()

    async def stop(self) -> None:
        """Stop at once; jobs still held stay pending and the sweep settles them later."""
        await cancel_all(self._tasks)
        self._tasks = []

    async def _work(self) -> None:
        while True:
            job = await self._queue.get()
            try:
                result = await judge_job(self.client, job, self.deadline_s)
                await self._store(job.turn, result, job.expires_at)
            finally:
                self._held.discard(job.key)
                if not self._held:
                    self._idle.set()

    async def _store(self, turn: TurnRef, result: CheckResult, expires_at: datetime) -> None:
        backoff = self.retry.backoff()
        while True:
            try:
                await self.store.save_judged(turn, result, expires_at, self.clock())
                return
            except StoreUnavailable:
                delay_s = backoff.take()
                log.warning("store unavailable for a judged result retry_in_s=%.1f", delay_s)
                await asyncio.sleep(delay_s)

    async def sweep(self) -> int:
        """Store overdue pending judgements this runner does not hold as errored."""
        cutoff = self.clock() - timedelta(seconds=self.sweep_grace_s)
        swept = 0
        for pending, expires_at in await self.store.overdue_judgements(cutoff):
            if pending.key in self._held:
                continue
            result = CheckResult.of(pending.check, Outcome.errored(ABANDONED))
            swept += await self.store.save_judged(pending.turn, result, expires_at, self.clock())
        return swept

    async def _sweep_forever(self) -> None:
        while True:
            try:
                swept = await self.sweep()
                if swept:
                    log.warning("abandoned judgements stored as errored count=%d", swept)
            except StoreUnavailable:
                pass
            await asyncio.sleep(self.sweep_every_s)
