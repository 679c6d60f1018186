"""What the pipeline hands the store: a turn's ids and its results, and the judgements
still to make. Plain values; planning and checking never need the database to use them.

A turn expires ``retention`` after its ``created_at``, and its results with it. One that
has expired by the time it is checked ("expired on arrival": ``expires_at`` at or before
the worker's clock) is neither stored, judged, counted in the rollups nor given events:
the purge deletes only expired results, so a turn delivered or replayed again after a
purge is always such a turn, and counting it would count it twice.
"""

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


def expired_on_arrival(created_at: datetime, retention: timedelta, now: datetime) -> bool:
    """Whether a turn of ``created_at`` has expired when checked at ``now``: its expiry
    (``created_at + retention``) is at or before ``now``. Written as ``created_at <= now -
    retention`` so that a time near the year 9999 is not expired here (its expiry cannot be
    stored, and the store step says so) rather than an ``OverflowError``."""
    try:
        return created_at <= now - retention
    except OverflowError:  # a retention longer than the years since the year 1
        return False


@dataclass(frozen=True, slots=True)
class SaveReport:
    new_results: int
    pending: frozenset[ResultKey]
    """Keys of the judgements newly recorded as pending: only these are to be judged."""
