"""What an alert or a digest says: numbers and names, never text of a turn.

A notice is built when the threshold is crossed and stored as JSON with the alert, so a
send retried hours later says what was true when the alert was raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from pydantic import TypeAdapter

from turncheck.alerts.state import CheckState, state_of
from turncheck.worker.store.alert_readings import WindowCounts
from turncheck.worker.store.alerts import Earlier

VERSIONS_NAMED = 3
"""Check versions an alert names when its window mixes them; the rest are counted."""


@dataclass(frozen=True, slots=True)
class DayRate:
    day: date
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


@dataclass(frozen=True, slots=True)
class Links:
    command: str
    """The command that lists the failing turns."""
    api_url: str | None = None


@dataclass(frozen=True, slots=True)
class FailingTurn:
    """One of the newest turns the check did not pass, with its page on the chat platform
    (``TURNCHECK_TURN_URL``): ids, never text."""

    turn_id: str
    verdict: str
    turn_created_at: datetime
    url: str


@dataclass(frozen=True, slots=True)
class CheckAlert:
    check: str
    agent_id: str
    day: date
    raised_at: datetime
    latest: int
    """The window asked for; ``counts.total`` may be less."""
    min_pass_rate: float
    counts: WindowCounts
    trend: tuple[DayRate, ...]
    """Daily pass rates, oldest first, ending with ``day``."""
    links: Links
    earlier: Earlier | None = None
    min_results: int = 1
    """Fewer results and the state is too few results. Alerts stored before it was kept
    were raised with enough, so 1 reads them as they were."""
    check_versions: tuple[str, ...] = ()
    """The check versions counted in the window's hours, oldest first; more than one: the
    check changed within the window. Alerts stored before it was kept read as none."""
    failing: tuple[FailingTurn, ...] = ()
    """The newest turns among those not passed, newest first, each with its link; none
    without ``TURNCHECK_TURN_URL`` (and in alerts stored before it was kept)."""

    @property
    def state(self) -> CheckState:
        """What a preview shows; an alert is raised only when it is below threshold."""
        return state_of(self.counts, self.min_pass_rate, self.min_results)

    @property
    def mixed_versions(self) -> bool:
        return len(self.check_versions) > 1

    @property
    def versions_named(self) -> str:
        """The window's check versions as a message names them: the first few, then how
        many more."""
        shown = ", ".join(self.check_versions[:VERSIONS_NAMED])
        more = len(self.check_versions) - VERSIONS_NAMED
        return f"{shown} and {more} more" if more > 0 else shown


@dataclass(frozen=True, slots=True)
class DigestLine:
    check: str
    agent_id: str
    min_pass_rate: float
    min_results: int
    counts: WindowCounts
    trend: tuple[DayRate, ...]
    alerted: Earlier | None
    """The alert raised on the day the digest covers, if any."""
    links: Links

    @property
    def state(self) -> CheckState:
        return state_of(self.counts, self.min_pass_rate, self.min_results)

    @property
    def below(self) -> bool:
        """Kept for templates of one's own written before ``state``."""
        return self.state.below


@dataclass(frozen=True, slots=True)
class Digest:
    day: date
    """The day the digest covers: the day before it is sent."""
    raised_at: datetime
    lines: tuple[DigestLine, ...]


Notice = CheckAlert | Digest

_NOTICE: TypeAdapter[Notice] = TypeAdapter(Notice)
_ALERT: TypeAdapter[CheckAlert] = TypeAdapter(CheckAlert)
_DIGEST: TypeAdapter[Digest] = TypeAdapter(Digest)


def to_json(notice: Notice) -> str:
    return _NOTICE.dump_json(notice).decode()


def from_json(kind: str, data: str) -> Notice:
    """``kind`` is the alert row's: "check" or "digest"."""
    return (_DIGEST if kind == "digest" else _ALERT).validate_json(data)
