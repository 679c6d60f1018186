"""What the pipeline hands the store: a turn's ids and its results, and the judgements
still to make. Plain values; planning and checking never need the database to use them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from turncheck.worker.checks import CheckId, CheckResult
from turncheck.worker.turns.structs import Turn

ResultKey = tuple[str, str, str]
"""(turn id, check name, check version): a result is unique per key."""


@dataclass(frozen=True, slots=True)
class TurnRef:
    """A turn's ids, agent and time: all a result keeps of its turn (never its text)."""

    turn_id: str
    thread_id: str | None
    person_id: str | None
    agent_id: str
    agent_version: int | str
    created_at: datetime

    @classmethod
    def of(cls, turn: Turn) -> TurnRef:
        return cls(
            turn.turn_id,
            turn.thread_id,
            turn.person_id,
            turn.agent.id,
            turn.agent.version,
            turn.created_at,
        )

    def key(self, check: CheckId) -> ResultKey:
        return (self.turn_id, check.name, check.version)


@dataclass(frozen=True, slots=True)
class PendingJudgement:
    """A sampled (turn, judged check) whose judge has not answered yet."""

    turn: TurnRef
    check: CheckId
    deadline_at: datetime

    @property
    def key(self) -> ResultKey:
        return self.turn.key(self.check)


@dataclass(frozen=True, slots=True)
class TurnResults:
    turn: TurnRef
    results: list[CheckResult]
    retention: timedelta
    pending: list[PendingJudgement] = field(default_factory=list)

    @property
    def expires_at(self) -> datetime:
        return self.turn.created_at + self.retention


@dataclass(frozen=True, slots=True)
class SaveReport:
    new_results: int
    pending: frozenset[ResultKey]
    """Keys of the judgements newly recorded as pending: only these are to be judged."""
