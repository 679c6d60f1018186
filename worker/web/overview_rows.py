"""The overview's rows, one per (agent, check), from what the store read: the hourly
rollups of the last fourteen days, the alert window's verdicts, the rollouts and the
alerts raised today.

Pure: no store, no clock. Periods are whole rollup hours, as every pass rate is: "24 h"
is the current hour and the 23 before it, the previous 24 h the 24 hours before those;
"7 d" is 168 hours, likewise. The sparkline's days are the configured zone's; an hour
counts toward the day it starts in, as the alerts' trend counts it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from turncheck.worker.settings import Settings
from turncheck.worker.store.alert_readings import WindowCounts
from turncheck.worker.store.rollouts import SHADOW
from turncheck.worker.store.rows import ROLLUP_BUCKET, bucket_of
from turncheck.worker.store.views import PassRate
from turncheck.worker.web.sparkline import Point

DAY_HOURS = 24
WEEK_HOURS = 7 * 24
SPARK_DAYS = 7


class State(StrEnum):
    """What a row's badges say; several may hold at once. The value is the CSS class."""

    OK = "ok"
    BELOW = "below"
    FEW = "few"
    SHADOW = "shadow"
    ALERTED = "alerted"

    @property
    def words(self) -> str:
        return _WORDS[self]


_WORDS = {
    State.OK: "ok",
    State.BELOW: "below threshold",
    State.FEW: "too few results",
    State.SHADOW: "shadow",
    State.ALERTED: "alert sent today",
}
SEVERITY = (State.BELOW, State.ALERTED, State.FEW, State.SHADOW, State.OK)
"""The order rows sort in by state, worst first."""


@dataclass(frozen=True, slots=True)
class Thresholds:
    """The alert policy's numbers, from the settings as ``alerts/setup.py``'s
    ``thresholds`` reads them: the latest results counted, the least of them that say
    anything, and the pass rate below which a check alerts."""

    latest: int
    min_results: int
    min_pass_rate: float

    @classmethod
    def of(cls, settings: Settings) -> Thresholds:
        return cls(
            latest=settings.alert_latest,
            min_results=min(settings.alert_min_results, settings.alert_latest),
            min_pass_rate=settings.alert_min_pass_rate,
        )


@dataclass(frozen=True, slots=True)
class Counts:
    passed: int = 0
    total: int = 0

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    def plus(self, passed: int, total: int) -> Counts:
        return Counts(self.passed + passed, self.total + total)


def change_pp(now: Counts, before: Counts) -> float | None:
    """The change of the rate in percentage points; None when either period has no results."""
    if now.rate is None or before.rate is None:
        return None
    return (now.rate - before.rate) * 100


@dataclass(frozen=True, slots=True)
class Row:
    check: str
    agent_id: str
    rollout: str
    policy: Thresholds
    window: WindowCounts
    day: Counts
    day_before: Counts
    week: Counts
    week_before: Counts
    days: tuple[Point, ...]
    states: tuple[State, ...]

    @property
    def change_24h(self) -> float | None:
        return change_pp(self.day, self.day_before)

    @property
    def change_7d(self) -> float | None:
        return change_pp(self.week, self.week_before)


@dataclass(frozen=True, slots=True)
class Periods:
    """Where each hour of rollups falls, seen from ``now`` in ``zone``."""

    now: datetime
    zone: ZoneInfo
    hour: datetime = field(init=False)
    days: tuple[date, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hour", bucket_of(self.now))
        today = self.now.astimezone(self.zone).date()
        days = tuple(today - timedelta(days=n) for n in reversed(range(SPARK_DAYS)))
        object.__setattr__(self, "days", days)

    @property
    def since(self) -> datetime:
        """The first hour read: the previous 7 days' first."""
        return self.hour - (2 * WEEK_HOURS - 1) * ROLLUP_BUCKET

    @property
    def until(self) -> datetime:
        """The end of the current hour: a turn dated later (a skewed clock) is not counted."""
        return self.hour + ROLLUP_BUCKET

    def hours_ago(self, start: datetime) -> int:
        return int((self.hour - start) / ROLLUP_BUCKET)

    def start_of(self, day: date) -> datetime:
        return datetime.combine(day, time(), self.zone)


@dataclass(slots=True)
class _Tally:
    day: Counts = Counts()
    day_before: Counts = Counts()
    week: Counts = Counts()
    week_before: Counts = Counts()
    per_day: dict[date, Counts] = field(default_factory=dict)

    def add(self, periods: Periods, start: datetime, passed: int, total: int) -> None:
        ago = periods.hours_ago(start)
        if 0 <= ago < DAY_HOURS:
            self.day = self.day.plus(passed, total)
        elif DAY_HOURS <= ago < 2 * DAY_HOURS:
            self.day_before = self.day_before.plus(passed, total)
        if 0 <= ago < WEEK_HOURS:
            self.week = self.week.plus(passed, total)
        elif WEEK_HOURS <= ago < 2 * WEEK_HOURS:
            self.week_before = self.week_before.plus(passed, total)
        day = start.astimezone(periods.zone).date()
        if day in periods.days:
            self.per_day[day] = self.per_day.get(day, Counts()).plus(passed, total)


def states_of(
    window: WindowCounts, policy: Thresholds, *, shadow: bool, alerted: bool
) -> tuple[State, ...]:
    """The row's badges: shadow and alerted beside the window's verdict, decided as
    ``alerts/state.py``'s ``state_of`` decides it (only the composition root imports
    ``alerts``): too few results, else below the threshold, else ok."""
    found = [State.SHADOW] if shadow else []
    rate = window.pass_rate
    if rate is None or window.total < policy.min_results:
        found.append(State.FEW)
    else:
        found.append(State.BELOW if rate < policy.min_pass_rate else State.OK)
    if alerted:
        found.append(State.ALERTED)
    return tuple(found)


def build_rows(
    pairs: Iterable[tuple[str, str]],
    hours: Iterable[tuple[datetime, PassRate]],
    windows: Mapping[tuple[str, str], WindowCounts],
    periods: Periods,
    *,
    policy: Thresholds,
    shadow: Collection[tuple[str, str]],
    alerted: Collection[tuple[str, str]],
) -> list[Row]:
    """A row for each (check, agent) of ``pairs``, with or without hours of its own.
    ``shadow`` and ``alerted`` hold (agent, check), as ``KnownRollouts`` does."""
    tallies: dict[tuple[str, str], _Tally] = {}
    for start, rate in hours:
        tally = tallies.setdefault((rate.check, rate.agent_id), _Tally())
        total = rate.passed + rate.failed + rate.errored
        tally.add(periods, start, rate.passed, total)
    rows = []
    for check, agent_id in pairs:
        tally = tallies.get((check, agent_id), _Tally())
        window = windows.get((check, agent_id), WindowCounts())
        is_shadow = (agent_id, check) in shadow
        rows.append(
            Row(
                check=check,
                agent_id=agent_id,
                rollout=SHADOW if is_shadow else "live",
                policy=policy,
                window=window,
                day=tally.day,
                day_before=tally.day_before,
                week=tally.week,
                week_before=tally.week_before,
                days=tuple(_point(day, tally.per_day.get(day, Counts())) for day in periods.days),
                states=states_of(
                    window, policy, shadow=is_shadow, alerted=(agent_id, check) in alerted
                ),
            )
        )
    return rows


def _point(day: date, counts: Counts) -> Point:
    return Point(day.strftime("%b %d"), counts.passed, counts.total)
