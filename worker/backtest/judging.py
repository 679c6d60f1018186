"""Judged checks in a backtest (``turncheck backtest --judge``, ``"judge": true`` over the
API): the draft's judged checks on their sample of the turns read, through the judges of
``TURNCHECK_JUDGES``, at most ``max_judgements`` judgements a run; nothing is stored.

Which turns are judged is the worker's decision (``worker/judge/plan.py``): a background
check judges the turns on a thread that its deterministic sample takes (``sample_rate``),
a block-mode one every turn; a turn whose judge model is not configured is ``errored``,
as in the worker. Judgements past the cap are not asked, and counted per check as
``not_judged_cap``, never as errored.

What a run would ask, before it asks anything, is ``estimate.py``'s.

The engine calls ``open_judge`` once per run (a run that judges has one process), then
``judge(turn)`` per turn (several turns at once: the client bounds each endpoint's
requests in flight), ``tally(report)`` and ``aclose()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from turncheck.worker.backtest.report import CheckKey, Report
from turncheck.worker.checks import CheckResult, CheckSet
from turncheck.worker.clock import utc_now
from turncheck.worker.judge.config import JudgeEndpoint, load_judges, require_judges
from turncheck.worker.judge.http import HttpJudgeClient, JudgeRetry
from turncheck.worker.judge.kinds import CompiledJudged
from turncheck.worker.judge.plan import JudgeJob, TurnPlan, plan_turn
from turncheck.worker.judge.runner import judge_job
from turncheck.worker.settings import Settings, process_environment
from turncheck.worker.turns.structs import Turn

DEFAULT_MAX_JUDGEMENTS = 1000
MAX_JUDGEMENTS_LIMIT = 1_000_000


@dataclass(frozen=True, slots=True)
class JudgeOptions:
    """What ``--judge`` asks; the judges themselves are ``TURNCHECK_JUDGES``."""

    max_judgements: int = DEFAULT_MAX_JUDGEMENTS


def judges_for(settings: Settings, draft: CheckSet) -> dict[str, JudgeEndpoint]:
    """The configured judges, refusing (``ConfigurationError``) a draft's judged check
    no judge could decide, as the worker does at start."""
    judges = load_judges(settings.judges)
    require_judges(draft, judges)
    return judges


def plan_for_draft(
    turn: Turn, checks: Sequence[CompiledJudged], configured: Iterable[str]
) -> TurnPlan:
    return plan_turn(
        turn,
        checks,
        configured=frozenset(configured),
        room=len(checks),
        now=utc_now(),
        retention=timedelta(0),
        deadline_s=0,  # the pending judgement it describes is never stored
    )


@dataclass(slots=True)
class _Spent:
    capped: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class BacktestJudge:
    """The engine's ``TurnJudge``: judges each turn's sample, up to the cap."""

    def __init__(
        self,
        options: JudgeOptions,
        draft: CheckSet,
        client: HttpJudgeClient,
        deadline_s: float,
    ) -> None:
        self.draft = draft
        self.client = client
        self.deadline_s = deadline_s
        self.remaining = options.max_judgements
        self.asked = 0
        self._spent: dict[CheckKey, _Spent] = {}
        self._kinds: dict[CheckKey, str] = {}

    async def judge(self, turn: Turn) -> list[CheckResult]:
        """The results of the draft's judged checks its sample takes on ``turn``. Which
        judgements fit under the cap is decided before the first await, so turns judged
        side by side take the cap in the order they were read."""
        checks = self.draft.judged_for_agent(turn.agent.id, turn.agent.version)
        if not checks:
            return []
        plan = plan_for_draft(turn, checks, self.client.endpoints)
        asked: list[JudgeJob] = []
        for job in plan.jobs:
            if self.remaining > 0:
                self.remaining -= 1
                asked.append(job)
            else:
                self._at(turn, job.check).capped += 1
        self.asked += len(asked)
        judged = await asyncio.gather(
            *(judge_job(self.client, job, self.deadline_s) for job in asked)
        )
        for job, result in zip(asked, judged, strict=True):
            spent = self._at(turn, job.check)
            usage = result.usage or {}
            spent.input_tokens += usage.get("input_tokens", 0)
            spent.output_tokens += usage.get("output_tokens", 0)
        return [*plan.results, *judged]

    def _at(self, turn: Turn, check: CompiledJudged) -> _Spent:
        key = (turn.agent.id, check.name, check.id.version)
        spent = self._spent.get(key)
        if spent is None:
            spent = self._spent[key] = _Spent()
            self._kinds[key] = check.id.kind
        return spent

    def tally(self, report: Report) -> None:
        """Add the cap and the tokens to the report's rows of the judged checks."""
        for (agent, name, version), spent in self._spent.items():
            row = report.check(agent, name, version, self._kinds[agent, name, version])
            row.not_judged_cap += spent.capped
            row.judge_input_tokens += spent.input_tokens
            row.judge_output_tokens += spent.output_tokens

    async def aclose(self) -> None:
        await self.client.aclose()


async def open_judge(options: object, draft: CheckSet, settings: Settings) -> BacktestJudge:
    """The run's judge: ``ConfigurationError`` when the draft's judged checks have none."""
    if not isinstance(options, JudgeOptions):
        raise TypeError("the request's judge is not JudgeOptions")
    judges = judges_for(settings, draft)
    client = HttpJudgeClient(judges, process_environment(), retry=JudgeRetry.of(settings))
    return BacktestJudge(options, draft, client, settings.judge_deadline_s)
