"""Apply a turn's rule checks: every blocking check of the turn's agent and agent version,
every turn."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import UTC

from turncheck.worker.checks import CheckResult, CheckSet, CompiledCheck, Outcome
from turncheck.worker.checks.budget import DEFAULT_TURN_BUDGET_MS, Budget, BudgetSpent
from turncheck.worker.turns.structs import Agent, InputMessage, Instant, Output, Turn, TurnInput

log = logging.getLogger(__name__)

CRASHED = Outcome.errored("The check could not run on this turn.")
OUT_OF_TIME = Outcome.errored("The turn's time budget for rule checks was spent.")


def evaluate(
    turn: Turn, checks: CheckSet, budget_ms: float = DEFAULT_TURN_BUDGET_MS
) -> list[CheckResult]:
    """One result per check; a check that raises or runs out of time is ``errored``, never
    ``passed``. ``budget_ms`` is shared by all the turn's rule checks together."""
    applied = checks.for_agent(turn.agent.id, turn.agent.version)
    return run_checks(turn, [check for check in applied if check.mode == "block"], budget_ms)


def run_checks(
    turn: Turn, checks: Iterable[CompiledCheck], budget_ms: float = DEFAULT_TURN_BUDGET_MS
) -> list[CheckResult]:
    """``checks`` on ``turn`` in order, sharing one budget of ``budget_ms``: a check that
    raises or runs out of time is ``errored``, never ``passed`` (the test panel runs the
    checks a person chose this way too)."""
    budget = Budget.of_ms(budget_ms)
    return [CheckResult.of(check.id, _run(check, turn, budget)) for check in checks]


def _run(check: CompiledCheck, turn: Turn, budget: Budget) -> Outcome:
    try:
        budget.check()
        return check.run(turn, budget)
    except BudgetSpent:
        log.warning("check out of time check=%s turn_id=%s", check.name, turn.turn_id)
        return OUT_OF_TIME
    except Exception as exc:  # a bug in one check must not lose the turn's other results
        log.error(
            "check crashed check=%s turn_id=%s error=%s",
            check.name,
            turn.turn_id,
            type(exc).__name__,
        )
        return CRASHED


WARM_UP_TEXT = (
    "Order A-88213 for $42.50 ships 2026-03-04; mail help@example.com or call "
    "(555) 010-2030. Card 4111 1111 1111 1111, see https://example.com/returns."
)


def warm_up(checks: CheckSet) -> None:
    """Run every check once on a made-up turn, so no slow first call lands on a real one
    (compiled regex caches, library metadata), whatever agent versions it applies to."""
    for agent_id, compiled in checks.by_agent.items():
        turn = Turn(
            schema_="turn.stored/v1",
            turn_id="warm-up",
            agent=Agent(id=agent_id, version=0),
            created_at=Instant(2026, 1, 1, tzinfo=UTC),
            input=TurnInput(messages=[InputMessage(role="user", content=WARM_UP_TEXT)]),
            instructions=WARM_UP_TEXT,
            output=Output(text=WARM_UP_TEXT),
        )
        for check in compiled:
            _run(check, turn, Budget.of_ms(10_000))
