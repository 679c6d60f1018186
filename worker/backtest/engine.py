"""One backtest, top to bottom: plan what to read, split it over processes, tally each
batch of turns into a ``Report``, merge.

A batch is decoded with the worker's decoder (a message that is not a turn is counted
``unreadable`` and skipped), the draft's rule checks are applied with the pipeline's
``evaluate``, its judged checks only when the request asks (``judging.open_judge``), and
the verdicts are compared with the newest stored results of checks of the same names on
those turns, one read per batch. Nothing is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from turncheck.worker.backtest.counting import TurnCount
from turncheck.worker.backtest.live import LiveResults
from turncheck.worker.backtest.report import Report
from turncheck.worker.backtest.request import BacktestRequest, Progress
from turncheck.worker.backtest.sources import (
    PartitionRange,
    file_batches,
    plan_topic,
    topic_batches,
)
from turncheck.worker.backtest.tallies import Labelled, LiveComparison
from turncheck.worker.checks import CheckResult, CheckSet, Verdict
from turncheck.worker.errors import ConfigurationError, InvalidTurn
from turncheck.worker.pipeline.batch import RawMessage
from turncheck.worker.pipeline.evaluate import evaluate, warm_up
from turncheck.worker.settings import Settings
from turncheck.worker.turns.decode import decode_turn
from turncheck.worker.turns.structs import Turn

log = logging.getLogger(__name__)

BATCH_SIZE = 500
"""Turns per batch: one store read of live results per batch."""
SMALL_RANGE = 20_000
"""Fewer turns than this run in one process: starting more costs more than it saves."""


@dataclass(frozen=True, slots=True)
class Plan:
    """What one run reads: a file, or ranges of the topic's partitions."""

    request: BacktestRequest
    settings: Settings
    ranges: tuple[PartitionRange, ...] = ()

    @property
    def source(self) -> str:
        if self.request.file is not None:
            return f"file:{self.request.file}"
        return f"kafka:{self.settings.topic_turns}"

    @property
    def expected(self) -> int | None:
        """How many messages it will read, when that can be known beforehand."""
        limit = self.request.limit
        if self.request.file is not None:
            return limit
        total = sum(r.size for r in self.ranges)
        return total if limit is None else min(total, limit)


def run_backtest(
    request: BacktestRequest,
    settings: Settings,
    *,
    progress: Callable[[Progress], None] | None = None,
) -> Report:
    """Run ``request`` to its end and return the report; blocks (the API calls it in a
    thread). ``progress`` is called from this thread every batch or so.
    ``ConfigurationError`` for a request that cannot run, ``ServiceUnavailable`` when the
    broker or the database does not answer."""
    from turncheck.worker.backtest.parallel import processes_for, run_in_processes

    refuse_bad(request, settings)
    started = time.monotonic()
    ranges: tuple[PartitionRange, ...] = ()
    if request.file is None:
        assert settings.kafka_bootstrap is not None  # refuse_bad made sure
        ranges = tuple(
            asyncio.run(
                plan_topic(
                    settings.kafka_bootstrap,
                    settings.topic_turns,
                    request.partitions,
                    request.since,
                    request.until,
                )
            )
        )
    plan = Plan(request, settings, ranges)
    count = TurnCount(request.limit)
    processes = processes_for(plan)
    warm_up(request.draft)
    if processes == 1:
        report = asyncio.run(run_part(plan, ranges, count, started, progress))
    else:
        report = run_in_processes(plan, processes, count, started, progress)
    report.wall_time_s = time.monotonic() - started
    report.processes = processes
    report.partitions = tuple(r.partition for r in ranges)
    return report


def refuse_bad(request: BacktestRequest, settings: Settings) -> None:
    if request.limit is not None and request.limit < 1:
        raise ConfigurationError(f"invalid --limit {request.limit}: at least 1")
    if request.processes is not None and request.processes < 1:
        raise ConfigurationError(f"invalid --processes {request.processes}: at least 1")
    if request.file is None and not settings.kafka_bootstrap:
        raise ConfigurationError(
            "a backtest reads the turns topic (set TURNCHECK_KAFKA_BOOTSTRAP) or --file"
        )
    if request.file is not None:
        if request.partitions is not None or request.since or request.until:
            raise ConfigurationError(
                "--since, --until and --partitions are for the turns topic; --file is read whole"
            )
        if str(request.file) != "-" and not request.file.is_file():
            raise ConfigurationError(f"no such file: {request.file}")
    if request.since and request.until and request.until <= request.since:
        raise ConfigurationError("invalid --until: it is not after --since")


async def run_part(
    plan: Plan,
    ranges: Iterable[PartitionRange],
    count: TurnCount,
    started: float,
    progress: Callable[[Progress], None] | None = None,
) -> Report:
    """One process's share: its ranges of the topic (or the file), tallied into a report."""
    request = plan.request
    report = Report(source=plan.source, judged_skipped=() if request.judge else judged_names(plan))
    live = await LiveResults.open(plan.settings.database_url, plan.settings.erasure_key)
    judge = await open_judge(plan) if request.judge is not None else None
    labels = dict(request.labels)
    if live is not None:
        labels = {**await live.labels(draft_names(request.draft)), **labels}
    tally = Tally(request, report, live, judge, labels)
    try:
        # Closed on leaving, not when collected: a limit stops the reading midway.
        async with contextlib.aclosing(_batches(plan, tuple(ranges))) as batches:
            async for batch in batches:
                allowed = count.take(len(batch))
                await tally.add(batch[:allowed])
                if progress is not None:
                    progress(Progress(count.read, plan.expected, time.monotonic() - started))
                if allowed < len(batch):
                    break
    finally:
        if live is not None:
            await live.close()
        if judge is not None:
            judge.tally(report)
            await judge.aclose()
    return report


async def _batches(
    plan: Plan, ranges: tuple[PartitionRange, ...]
) -> AsyncGenerator[list[RawMessage], None]:
    if plan.request.file is not None:
        for batch in file_batches(plan.request.file, BATCH_SIZE):
            yield batch
        return
    assert plan.settings.kafka_bootstrap is not None
    reading = topic_batches(
        plan.settings.kafka_bootstrap, plan.settings.topic_turns, ranges, BATCH_SIZE
    )
    async with contextlib.aclosing(reading) as batches:  # its consumer stops with us
        async for batch in batches:
            yield batch


def draft_names(draft: CheckSet) -> set[str]:
    """Every check name of the draft, rule and judged."""
    groups = (draft.by_agent, draft.judged_by_agent)
    return {check.name for group in groups for checks in group.values() for check in checks}


def judged_names(plan: Plan) -> tuple[str, ...]:
    """The draft's judged checks, which a backtest without ``judge`` leaves out."""
    draft = plan.request.draft
    return tuple(sorted({c.name for checks in draft.judged_by_agent.values() for c in checks}))


async def open_judge(plan: Plan) -> TurnJudge:
    """The hook judging plugs into: helper module ``judging`` (one process only)."""
    from turncheck.worker.backtest import judging

    return await judging.open_judge(plan.request.judge, plan.request.draft, plan.settings)


class TurnJudge(Protocol):
    """What the engine asks of judging: per turn, the results of the draft's judged checks
    on it (those its sample takes); once at the end, to close."""

    async def judge(self, turn: Turn) -> list[CheckResult]: ...

    def tally(self, report: Report) -> None:
        """Add what the results do not carry (judgements left out by the cap, tokens)."""
        ...

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class Tally:
    """Counts a run's batches into its report."""

    request: BacktestRequest
    report: Report
    live: LiveResults | None
    judge: TurnJudge | None
    labels: Mapping[tuple[str, str], str]
    """(turn_id, check name) → label: the stored ones, and those given, which win."""

    @property
    def compare(self) -> bool:
        return self.request.compare

    async def _turns(self, messages: list[RawMessage]) -> list[Turn]:
        """The batch's turns, less those of erased persons; what is not a turn is counted."""
        turns = []
        for message in messages:
            try:
                turns.append(decode_turn(message.value))
            except InvalidTurn:
                self.report.unreadable += 1
            except Exception as exc:  # a bug on one message must not end the backtest
                log.error(
                    "message could not be decoded offset=%s error=%s",
                    message.offset,
                    type(exc).__name__,
                )
                self.report.unreadable += 1
        self.report.turns_read += len(turns)
        if self.live is None:
            return turns
        persons = {turn.person_id for turn in turns if turn.person_id}
        erased = await self.live.erased(persons) if persons else set()
        kept = [turn for turn in turns if turn.person_id not in erased]
        self.report.erased += len(turns) - len(kept)
        return kept

    async def add(self, messages: list[RawMessage]) -> None:
        report, labels = self.report, self.labels
        compared: list[tuple[str, str, bool, LiveComparison]] = []
        turns = await self._turns(messages)
        judged: list[list[CheckResult]] = [[] for _ in turns]
        if self.judge is not None:
            # The batch's turns are judged side by side: one at a time, a thousand
            # judgements would take a thousand round trips; the judge client bounds
            # each endpoint's requests in flight.
            judged = list(await asyncio.gather(*(self.judge.judge(turn) for turn in turns)))
        for turn, judged_results in zip(turns, judged, strict=True):
            results = evaluate(turn, self.request.draft) + judged_results
            if not results:
                report.unchecked += 1
                continue
            for result in results:
                check = result.check
                row = report.check(turn.agent.id, check.name, check.version, check.kind)
                passed = result.verdict is Verdict.PASSED
                row.turns_read += 1
                if passed:
                    row.passed += 1
                else:
                    if result.verdict is Verdict.ERRORED:
                        row.errored += 1
                    else:
                        row.would_fail += 1
                    row.reasons.add(result.reason)
                    row.examples.add(turn.turn_id)
                if labels:
                    row.labelled = row.labelled or Labelled()
                    label = labels.get((turn.turn_id, check.name))
                    if label is not None:
                        row.labelled.add(turn.turn_id, label, passed)
                if self.compare and self.live is not None:
                    row.live = row.live or LiveComparison()
                    compared.append((turn.turn_id, check.name, passed, row.live))
        if self.compare and self.live is not None and compared:
            stored = await self.live.verdicts(
                sorted({turn_id for turn_id, *_ in compared}), {name for _, name, *_ in compared}
            )
            for turn_id, name, passed, comparison in compared:
                verdict = stored.get((turn_id, name))
                comparison.add(turn_id, passed, None if verdict is None else verdict == "passed")
        for turn in turns:
            # After every list took what it keeps of the batch: a prune now lets go of
            # only the turns that no list holds.
            report.keep_thread(turn.turn_id, turn.thread_id)
