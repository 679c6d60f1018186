"""The overview's rows, one per (agent, check), from what the store read: each check's
counts over the periods' ranges of hours, the alert window's verdicts, the rollouts and
the alerts raised today.

Pure: no store, no clock; the database sums each range (``store/range_sums.py``).
Periods are whole rollup hours, as every pass rate is: "24 h" is the current hour and
the 23 before it, the previous 24 h the 24 hours before those; "7 d" is 168 hours,
likewise. The sparkline's days are the configured zone's; an hour counts toward the
day it starts in, as the alerts' trend counts it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo

from turncheck.worker.settings import Settings
from turncheck.worker.store.alert_readings import Standing, WindowCounts
from turncheck.worker.store.range_sums import Range, RangeCount
from turncheck.worker.store.rollouts import SHADOW
from turncheck.worker.store.rows import ROLLUP_BUCKET, bucket_of
from turncheck.worker.web.sparkline import Point
from turncheck.worker.web.tally import PassTally

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
    RAISED = "raised"
    """Today's alert is raised but no channel has sent it yet (or none could)."""

    @property
    def words(self) -> str:
        return _WORDS[self]

    @property
    def css(self) -> str:
        """The stylesheet's ``.state`` class: a raised alert looks like a sent one."""
        return "alerted" if self is State.RAISED else self.value


_WORDS = {
    State.OK: "ok",
    State.BELOW: "below threshold",
    State.FEW: "too few results",
    State.SHADOW: "shadow",
    State.ALERTED: "alert sent today",
    State.RAISED: "alert raised today, not sent",
}
SEVERITY = (State.BELOW, State.ALERTED, State.RAISED, State.FEW, State.SHADOW, State.OK)
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


def change_pp(now: PassTally, before: PassTally) -> float | None:
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
    day: PassTally
    day_before: PassTally
    week: PassTally
    week_before: PassTally
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
    """The ranges of hours each column counts, seen from ``now`` in ``zone``."""

    now: datetime
    zone: ZoneInfo
    hour: datetime = field(init=False)
    days: tuple[date, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hour", bucket_of(self.now))
        today = self.now.astimezone(self.zone).date()
        days = tuple(today - timedelta(days=n) for n in reversed(range(SPARK_DAYS)))
        object.__setattr__(self, "days", days)

    def ranges(self) -> list[Range]:
        """[24 h, the 24 h before, 7 d, the 7 d before, then each sparkline day], each
        [start, end) of the hours' starts, none past the current hour."""
        end = self.hour + ROLLUP_BUCKET

        def back(hours: int) -> datetime:
            return end - hours * ROLLUP_BUCKET

        periods = [
            (back(DAY_HOURS), end),
            (back(2 * DAY_HOURS), back(DAY_HOURS)),
            (back(WEEK_HOURS), end),
            (back(2 * WEEK_HOURS), back(WEEK_HOURS)),
        ]
        return periods + [
            (self._first_hour(day), min(self._first_hour(day + timedelta(days=1)), end))
            for day in self.days
        ]

    def _first_hour(self, day: date) -> datetime:
        """The first hour that starts on ``day`` in the zone: in a zone half an hour off
        UTC, the hour starting at 23:30 belongs to the day before."""
        start = datetime.combine(day, time(), self.zone)
        hour = bucket_of(start)
        return hour if hour == start else hour + ROLLUP_BUCKET


def states_of(
    window: WindowCounts, policy: Thresholds, *, shadow: bool, alert: bool | None
) -> tuple[State, ...]:
    """The row's badges: shadow and today's alert (``alert``: None without one, else
    whether a channel sent it) beside where the window stands, by the alerts' own rule
    (``WindowCounts.standing``)."""
    found = [State.SHADOW] if shadow else []
    standing = window.standing(policy.min_pass_rate, policy.min_results)
    found.append({Standing.TOO_FEW: State.FEW, Standing.BELOW: State.BELOW}.get(standing, State.OK))
    if alert is not None:
        found.append(State.ALERTED if alert else State.RAISED)
    return tuple(found)


def build_rows(
    pairs: Iterable[tuple[str, str]],
    sums: Mapping[tuple[str, str], Sequence[RangeCount]],
    windows: Mapping[tuple[str, str], WindowCounts],
    periods: Periods,
    *,
    policy: Thresholds,
    shadow: Collection[tuple[str, str]],
    alerts: Mapping[tuple[str, str], bool],
) -> list[Row]:
    """A row for each (check, agent) of ``pairs``, with or without counts of its own.
    ``sums`` holds each pair's counts over ``periods.ranges()``; ``shadow`` and
    ``alerts`` (today's: whether a channel sent it) are keyed by (agent, check), as
    ``KnownRollouts`` is."""
    empty = [RangeCount()] * len(periods.ranges())
    rows = []
    for check, agent_id in pairs:
        day, day_before, week, week_before, *per_day = [
            PassTally(c.passed, c.total) for c in sums.get((check, agent_id), empty)
        ]
        window = windows.get((check, agent_id), WindowCounts())
        is_shadow = (agent_id, check) in shadow
        rows.append(
            Row(
                check=check,
                agent_id=agent_id,
                rollout=SHADOW if is_shadow else "live",
                policy=policy,
                window=window,
                day=day,
                day_before=day_before,
                week=week,
                week_before=week_before,
                days=tuple(
                    Point(d.strftime("%b %d"), c.passed, c.total)
                    for d, c in zip(periods.days, per_day, strict=True)
                ),
                states=states_of(
                    window, policy, shadow=is_shadow, alert=alerts.get((agent_id, check))
                ),
            )
        )
    return rows
