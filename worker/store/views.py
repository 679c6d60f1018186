"""What the store's queries and the outbox give back: plain values for the CLI and the API."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

_NOT_PRINTED = ("write_id", "position", "thread_id")
"""Left out of the commands' JSON, which has carried none of them."""


@dataclass(frozen=True, slots=True)
class StoredResult:
    write_id: int
    """The write that stored it (``passed_results.id``); with ``position`` (its place
    among that write's results) the order results were stored in, which breaks ties
    between results of turns created at the same moment."""
    position: int
    turn_id: str
    thread_id: str | None
    check: str
    check_version: str
    kind: str
    stage: str
    mode: str
    verdict: str
    score: float | None
    reason: str | None
    spans: list[dict[str, Any]]
    usage: dict[str, int] | None
    answers: dict[str, Any] | None
    agent_id: str
    agent_version: str
    person_id: str | None
    turn_created_at: datetime
    checked_at: datetime
    expires_at: datetime

    @classmethod
    def from_row(cls, row: Mapping[Any, Any]) -> StoredResult:
        return cls(
            write_id=row["write_id"],
            position=row["position"],
            turn_id=row["turn_id"],
            thread_id=row["thread_id"],
            check=row["check_name"],
            check_version=row["check_version"],
            kind=row["check_kind"],
            stage=row["stage"],
            mode=row["mode"],
            verdict=row["verdict"],
            score=row["score"],
            reason=row["reason"],
            spans=row["spans"],
            usage=row["usage"],
            answers=row["answers"],
            agent_id=row["agent_id"],
            agent_version=row["agent_version"],
            person_id=row["person_id"],
            turn_created_at=row["turn_created_at"],
            checked_at=row["checked_at"],
            expires_at=row["expires_at"],
        )

    @property
    def order(self) -> tuple[datetime, int, int]:
        """Where it sorts among results, oldest first, and the API's page key:
        (turn_created_at, write_id, position)."""
        return (self.turn_created_at, self.write_id, self.position)

    def as_dict(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__slots__ if name not in _NOT_PRINTED}
        for name in ("turn_created_at", "checked_at", "expires_at"):
            data[name] = data[name].isoformat()
        return data


@dataclass(frozen=True, slots=True)
class PassRate:
    check: str
    agent_id: str
    passed: int
    failed: int
    errored: int
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0
    check_version: str | None = None
    """The one check version counted, when rates are split by check version."""
    agent_version: str | None = None
    """The one agent version counted, when rates are split by agent version."""
    check_versions: tuple[str, ...] = ()
    """Every check version counted, oldest first (``unknown``: counts kept before
    rollups had check versions)."""
    agent_versions: tuple[str, ...] = ()
    """Every agent version counted, integers in their order first."""

    @property
    def mixed_versions(self) -> bool:
        """Whether the counts are of more than one check version: the check changed in
        the window, so its rate mixes how it decided."""
        return len(self.check_versions) > 1

    false_alarms: int = 0
    """Failures a person labelled false alarms (``worker/store/label_rates.py``)."""
    confirmed: int = 0
    """Failures a person labelled confirmed."""

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored

    @property
    def labelled_failures(self) -> int:
        return self.false_alarms + self.confirmed

    @property
    def precision(self) -> float | None:
        """Of the labelled failures, the share confirmed; None with none labelled."""
        labelled = self.labelled_failures
        return self.confirmed / labelled if labelled else None

    @property
    def pass_rate(self) -> float | None:
        """Errored results count against the rate: a check that cannot decide has not passed."""
        return self.passed / self.total if self.total else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "agent_id": self.agent_id,
            "passed": self.passed,
            "failed": self.failed,
            "errored": self.errored,
            "total": self.total,
            "pass_rate": self.pass_rate,
            "judge_input_tokens": self.judge_input_tokens,
            "judge_output_tokens": self.judge_output_tokens,
            "check_version": self.check_version,
            "agent_version": self.agent_version,
            "check_versions": list(self.check_versions),
            "agent_versions": list(self.agent_versions),
            "mixed_versions": self.mixed_versions,
            "labelled_failures": self.labelled_failures,
            "false_alarms": self.false_alarms,
            "confirmed": self.confirmed,
            "precision": self.precision,
        }


@dataclass(frozen=True, slots=True)
class PendingEvent:
    id: int
    topic: str
    key: str
    payload: str
    attempts: int = 0
    """Failed sends so far."""
