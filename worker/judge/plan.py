"""Decide, for one turn, which judged checks to ask a judge and which cannot be asked.

Background checks judge a deterministic sample of output turns stored on a
thread; block-mode judged checks judge every turn. A check whose judge model
cannot be known (a router without a judge model, no model at all) or is not
configured, or whose texts name a prompt variable the turn does not hold
(``variables.unusable``), is decided here and now as ``errored``, never skipped,
and no judge is asked.
"""

from __future__ import annotations

import logging
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from turncheck.worker.checks.result import CheckResult, Outcome
from turncheck.worker.judge import variables
from turncheck.worker.judge.kinds import CompiledJudged
from turncheck.worker.judge.sampling import in_sample
from turncheck.worker.judge.types import JudgeRequest
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef
from turncheck.worker.turns.structs import Turn

BACKLOG_FULL = "The judge backlog was full; the turn was not judged."
PROMPT_FAILED = "The judge's prompt could not be built for this turn."

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class JudgeJob:
    """A judgement to make: the prompt is rendered, so the turn itself is not held."""

    turn: TurnRef
    check: CompiledJudged
    request: JudgeRequest
    expires_at: datetime
    pending: PendingJudgement

    @property
    def key(self) -> tuple[str, str, str]:
        return self.pending.key


@dataclass(slots=True)
class TurnPlan:
    results: list[CheckResult] = field(default_factory=list)
    jobs: list[JudgeJob] = field(default_factory=list)


def judge_model(turn: Turn, check: CompiledJudged) -> str | Outcome:
    """The model to ask, or why none can be asked."""
    if check.judge_model:
        return check.judge_model
    model = turn.agent.model
    if not model:
        return Outcome.errored("The turn names no model and the check names no judge model.")
    if model.startswith("router:"):
        return Outcome.errored(
            "The turn ran on a router, so the check needs a judge model of its own."
        )
    return model


def _sampled(turn: Turn, check: CompiledJudged) -> bool:
    """Background judging reads only turns stored on a thread, and a sample of those."""
    return turn.thread_id is not None and in_sample(turn.turn_id, check.name, check.sample_rate)


def plan_turn(
    turn: Turn,
    checks: Sequence[CompiledJudged],
    *,
    configured: Container[str],
    room: int,
    now: datetime,
    retention: timedelta,
    deadline_s: float,
    sample: bool = True,
) -> TurnPlan:
    """``room``: how many more jobs memory may hold; past it, a sampled turn is errored."""
    plan = TurnPlan()
    ref = TurnRef.of(turn)
    for check in checks:
        judged_now = not sample or check.mode != "background"
        if not judged_now and not _sampled(turn, check):
            continue
        model = judge_model(turn, check)
        unusable = variables.unusable(turn, check.prompt.variables)
        if unusable is not None:
            plan.results.append(CheckResult.of(check.id, unusable))
        elif isinstance(model, Outcome):
            plan.results.append(CheckResult.of(check.id, model))
        elif model not in configured:
            reason = f"No judge is configured for model '{model}'."
            plan.results.append(CheckResult.of(check.id, Outcome.errored(reason)))
        elif len(plan.jobs) >= room:
            plan.results.append(CheckResult.of(check.id, Outcome.errored(BACKLOG_FULL)))
        else:
            try:
                request = check.request(turn, model)
            except Exception as exc:  # a template that fails on one turn errs that result only
                log.error(
                    "judge prompt failed check=%s turn_id=%s error=%s",
                    check.name,
                    turn.turn_id,
                    type(exc).__name__,
                )
                plan.results.append(CheckResult.of(check.id, Outcome.errored(PROMPT_FAILED)))
                continue
            pending = PendingJudgement(ref, check.id, now + timedelta(seconds=deadline_s))
            plan.jobs.append(JudgeJob(ref, check, request, turn.created_at + retention, pending))
    return plan
