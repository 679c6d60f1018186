"""Apply a turn's rule checks: every blocking check of the turn's agent, every turn."""

from __future__ import annotations

import logging

from schemas.turn import Turn
from worker.checks import CheckResult, CheckSet, Outcome

log = logging.getLogger(__name__)

CRASHED = Outcome.errored("The check could not run on this turn.")


def evaluate(turn: Turn, checks: CheckSet) -> list[CheckResult]:
    """One result per check; a check that raises is ``errored``, never ``passed``."""
    results = []
    for check in checks.for_agent(turn.agent.id):
        if check.mode != "block":
            continue
        try:
            outcome = check.run(turn)
        except Exception as exc:  # a bug in one check must not lose the turn's other results
            log.error(
                "check crashed check=%s turn_id=%s error=%s",
                check.name,
                turn.turn_id,
                type(exc).__name__,
            )
            outcome = CRASHED
        results.append(
            CheckResult(
                check=check.name,
                check_version=check.version,
                kind=check.kind,
                stage=check.stage,
                mode=check.mode,
                verdict=outcome.verdict,
                reason=outcome.reason,
                score=outcome.score,
                spans=outcome.spans,
            )
        )
    return results
