"""The overview's periods and states, pure: the ranges of hours each column counts, in
the configured zone, and the badges a row gets."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from turncheck.worker.store.alert_readings import WindowCounts
from turncheck.worker.store.range_sums import RangeCount
from turncheck.worker.web.overview_rows import (
    Periods,
    State,
    Thresholds,
    build_rows,
    change_pp,
    states_of,
)
from turncheck.worker.web.tally import PassTally

NOW = datetime(2026, 11, 29, 13, 20, tzinfo=UTC)
POLICY = Thresholds(latest=10, min_results=3, min_pass_rate=0.9)


def utc(day: int, hour: int, month: int = 11) -> datetime:
    return datetime(2026, month, day, hour, tzinfo=UTC)


def test_24_h_and_7_d_are_whole_hours_ending_with_the_current_one() -> None:
    """The current hour counts; the periods before end where these begin."""
    day, day_before, week, week_before, *_ = Periods(NOW, ZoneInfo("UTC")).ranges()
    assert day == (utc(28, 14), utc(29, 14))
    assert day_before == (utc(27, 14), utc(28, 14))
    assert week == (utc(22, 14), utc(29, 14))
    assert week_before == (utc(15, 14), utc(22, 14))


def test_sparkline_days_are_the_zones_and_end_today_at_the_current_hour() -> None:
    """In Kolkata (UTC+5:30) a day's first hour is the first starting on it: 19:00 UTC."""
    periods = Periods(NOW, ZoneInfo("Asia/Kolkata"))
    ranges = periods.ranges()[4:]
    assert [d.day for d in periods.days] == [23, 24, 25, 26, 27, 28, 29]
    assert ranges[0] == (utc(22, 19), utc(23, 19))
    assert ranges[-1] == (utc(28, 19), utc(29, 14))


def test_the_window_is_too_few_below_or_ok_and_shadow_and_alerted_come_beside_it() -> None:
    """The alerter's words: fewer than min_results is too few whatever the rate."""
    few = WindowCounts(passed=2)
    below = WindowCounts(passed=8, failed=2, errored=1)
    ok = WindowCounts(passed=9, failed=1)
    assert states_of(few, POLICY, shadow=False, alert=None) == (State.FEW,)
    assert states_of(below, POLICY, shadow=False, alert=True) == (State.BELOW, State.ALERTED)
    assert states_of(ok, POLICY, shadow=True, alert=None) == (State.SHADOW, State.OK)
    assert states_of(WindowCounts(), POLICY, shadow=False, alert=None) == (State.FEW,)
    assert states_of(ok, POLICY, shadow=False, alert=False) == (State.OK, State.RAISED)


def test_the_change_is_in_points_and_none_without_a_rate_on_either_side() -> None:
    """From 50 % to 75 % is +25 points; an empty period before gives no change."""
    assert change_pp(PassTally(3, 4), PassTally(1, 2)) == 25.0
    assert change_pp(PassTally(3, 4), PassTally()) is None
    assert change_pp(PassTally(), PassTally(1, 2)) is None


def test_a_pair_without_counts_in_any_range_is_a_row_of_empty_periods() -> None:
    """Every pair asked is a row; its sparkline has a point a day, none with data."""
    periods = Periods(NOW, ZoneInfo("UTC"))
    sums = {("tone", "bot"): tuple(RangeCount(1, 2) for _ in periods.ranges())}
    rows = build_rows(
        [("tone", "bot"), ("quiet", "bot")],
        sums,
        {},
        periods,
        policy=POLICY,
        shadow={("bot", "quiet")},
        alerts={},
    )
    tone, quiet = rows
    assert tone.day == PassTally(1, 2) and [p.total for p in tone.days] == [2] * 7
    assert quiet.day == PassTally() and [p.rate for p in quiet.days] == [None] * 7
    assert quiet.rollout == "shadow" and quiet.states == (State.SHADOW, State.FEW)
    assert tone.days[-1].label == "Nov 29"
