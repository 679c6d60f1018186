"""Judge one turn now, with every judged check and no sample: the "test checks" panel."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from turncheck.worker.checks import CheckResult
from turncheck.worker.judge.kinds import CompiledJudged
from turncheck.worker.judge.plan import plan_turn
from turncheck.worker.judge.runner import judge_job
from turncheck.worker.judge.types import JudgeClient
from turncheck.worker.turns.structs import Turn


async def judge_now(
    turn: Turn,
    checks: Sequence[CompiledJudged],
    client: JudgeClient,
    configured: frozenset[str],
    deadline_s: float,
) -> list[CheckResult]:
    """One result per check, in the checks' order; nothing is stored."""
    plan = plan_turn(
        turn,
        checks,
        configured=configured,
        room=len(checks),
        now=datetime.now(UTC),
        retention=timedelta(0),
        deadline_s=deadline_s,
        sample=False,
    )
    judged = await asyncio.gather(*(judge_job(client, job, deadline_s) for job in plan.jobs))
    order = {check.name: i for i, check in enumerate(checks)}
    return sorted([*plan.results, *judged], key=lambda r: order[r.check.name])
