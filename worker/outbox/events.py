"""Build ``response.check_failed`` events: ids, names and times, never text."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import TYPE_CHECKING

from turncheck.schemas.event import CheckFailedData, CheckFailedEvent
from turncheck.worker.checks import CheckResult, Verdict

if TYPE_CHECKING:
    from turncheck.worker.pipeline.records import TurnRef


def event_id(turn_id: str, check: str, check_version: str) -> str:
    """The same for the same turn, check and check version, so consumers can de-duplicate."""
    digest = hashlib.sha256(f"{turn_id}\x00{check}\x00{check_version}".encode()).hexdigest()
    return f"evt_{digest[:32]}"


def check_failed_event(
    turn: TurnRef, result: CheckResult, occurred_at: datetime
) -> CheckFailedEvent:
    if result.verdict is Verdict.PASSED:
        raise ValueError("a passed result has no event")
    return CheckFailedEvent(
        id=event_id(*turn.key(result.check)),
        occurred_at=occurred_at,
        data=CheckFailedData(
            check=result.check.name,
            check_version=result.check.version,
            verdict=result.verdict.value,
            stage=result.check.stage,
            mode=result.check.mode,
            turn_id=turn.turn_id,
            thread_id=turn.thread_id,
            agent_id=turn.agent_id,
            agent_version=turn.agent_version,
            turn_created_at=turn.created_at,
        ),
    )
