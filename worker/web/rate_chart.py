"""A check's pass rate over time as an inline SVG line chart, and the same numbers as a
table for readers the picture does not serve. Pure: counts in, markup out.

Every series (all results, or one agent or check version) is one ``<path class="series">``
broken where a bucket has no results (a gap, never a drop to 0), with a marker of its own
shape on each bucket that has; series differ in colour (Okabe-Ito, ``palette.SERIES``),
dash pattern and marker shape (``chart_marks.py``), so colour is never the only cue. The
alert threshold is a dashed line labelled with its value; a day an alert went out is an
orange band with a triangle on top. Times on the axis are in the zone the chart is given,
which the axis label names.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from html import escape
from typing import Literal
from zoneinfo import ZoneInfo

from turncheck.worker.web import palette
from turncheck.worker.web.chart_marks import (
    LEGEND_COLUMN,
    LEGEND_ROW,
    THRESHOLD_DASH,
    LegendEntry,
    legend,
    marker,
    style,
)
from turncheck.worker.web.tally import PassTally

Step = Literal["hour", "day"]

WIDTH = 760
LEFT, RIGHT, TOP = 64, 96, 24
"""Room on the right for the threshold's label, clear of the lines."""
PLOT_HEIGHT = 200
AXIS_SPACE = 64
"""Below the plot: tick labels and the x axis' label."""
Y_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True, slots=True)
class Series:
    """One line: its name in the legend, and its counts per bucket start (absent: none)."""

    name: str
    counts: dict[datetime, PassTally]


@dataclass(frozen=True, slots=True)
class RateChart:
    """What one chart shows. ``starts``: every bucket, oldest first, aware; ``alert_days``:
    the days (in ``zone``) an alert went out."""

    title: str
    step: Step
    starts: tuple[datetime, ...]
    series: tuple[Series, ...]
    threshold: float
    alert_days: frozenset[date]
    zone: ZoneInfo


@dataclass(frozen=True, slots=True)
class Table:
    """The chart's numbers: a header and a row per bucket, each cell a sentence part."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def axis_label(chart: RateChart) -> str:
    return f"{chart.step} of the turns' time ({chart.zone.key})"


def percent(rate: float) -> str:
    return f"{rate * 100:.1f}%".replace(".0%", "%")


def bucket_label(start: datetime, step: Step, zone: ZoneInfo) -> str:
    local = start.astimezone(zone)
    return f"{local:%Y-%m-%d}" if step == "day" else f"{local:%Y-%m-%d %H:%M}"


def table(chart: RateChart) -> Table:
    """The chart as rows: the bucket (in the chart's zone), each series' rate with its
    counts or "no results", and whether an alert went out that day."""
    header = (axis_label(chart), *(s.name for s in chart.series), "alert sent that day")
    rows = []
    for start in chart.starts:
        cells = [bucket_label(start, chart.step, chart.zone)]
        for line in chart.series:
            found = line.counts.get(start)
            rate = found.rate if found is not None else None
            cells.append(
                f"{percent(rate)} ({found.passed} of {found.total})"
                if found is not None and rate is not None
                else "no results"
            )
        alerted = start.astimezone(chart.zone).date() in chart.alert_days
        cells.append("yes" if alerted else "")
        rows.append(tuple(cells))
    return Table(header, tuple(rows))


def svg(chart: RateChart) -> str:
    """The chart as an ``<svg>`` element, text escaped, ready to put in a page."""
    n = max(len(chart.starts), 1)
    plot_width = WIDTH - LEFT - RIGHT
    slot = plot_width / n

    def x(i: int) -> float:
        return LEFT + (i + 0.5) * slot

    def y(rate: float) -> float:
        return TOP + (1 - rate) * PLOT_HEIGHT

    entries = _legend_entries(chart)
    per_row = max(1, (WIDTH - LEFT) // LEGEND_COLUMN)
    legend_top = TOP + PLOT_HEIGHT + AXIS_SPACE
    height = legend_top + LEGEND_ROW * math.ceil(len(entries) / per_row) + 8
    bottom = TOP + PLOT_HEIGHT
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="rate-chart" role="img" '
        f'width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}">',
        f"<title>{escape(chart.title)}</title>",
        f"<desc>{escape(_description(chart))}</desc>",
    ]
    # Alert days first, under everything else.
    for day, first, last in _alert_runs(chart):
        left = LEFT + first * slot
        parts.append(
            f'<rect class="alert-day" data-day="{day.isoformat()}" x="{left:.1f}" y="{TOP}" '
            f'width="{(last - first + 1) * slot:.1f}" height="{PLOT_HEIGHT}" '
            f'fill="{palette.ALERT}" fill-opacity="0.18"/>'
        )
        mid = left + (last - first + 1) * slot / 2
        parts.append(
            f'<path class="alert-mark" data-day="{day.isoformat()}" '
            f'd="M{mid - 6:.1f},{TOP - 12} L{mid + 6:.1f},{TOP - 12} L{mid:.1f},{TOP - 2} Z" '
            f'fill="{palette.ALERT}" stroke="{palette.INK}" stroke-width="0.8">'
            f"<title>an alert went out on {day.isoformat()}</title></path>"
        )
    for rate in Y_TICKS:
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(rate):.1f}" '
            f'y2="{y(rate):.1f}" stroke="{palette.GRID}"/>'
        )
        parts.append(
            f'<text class="y-tick" x="{LEFT - 6}" y="{y(rate) + 4:.1f}" text-anchor="end" '
            f'font-size="11" fill="{palette.INK}">{percent(rate)}</text>'
        )
    parts.append(
        f'<text class="y-label" transform="translate(16 {TOP + PLOT_HEIGHT / 2:.1f}) rotate(-90)" '
        f'text-anchor="middle" font-size="12" fill="{palette.INK}">pass rate</text>'
    )
    parts.append(
        f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{bottom}" y2="{bottom}" '
        f'stroke="{palette.INK}"/>'
    )
    for i in _tick_indexes(chart):
        label = _tick_label(chart, chart.starts[i])
        parts.append(
            f'<line class="x-tick" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{bottom}" '
            f'y2="{bottom + 5}" stroke="{palette.INK}"/>'
        )
        parts.append(
            f'<text class="x-tick" x="{x(i):.1f}" y="{bottom + 18}" text-anchor="middle" '
            f'font-size="11" fill="{palette.INK}">{escape(label)}</text>'
        )
    parts.append(
        f'<text class="x-label" x="{LEFT + plot_width / 2:.1f}" y="{bottom + 44}" '
        f'text-anchor="middle" font-size="12" fill="{palette.INK}">'
        f"{escape(axis_label(chart))}</text>"
    )
    threshold_y = y(chart.threshold)
    parts.append(
        f'<line class="threshold" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{threshold_y:.1f}" '
        f'y2="{threshold_y:.1f}" stroke="{palette.FAILING}" stroke-width="1.5" '
        f'stroke-dasharray="{THRESHOLD_DASH}"/>'
    )
    parts.append(
        f'<text class="threshold" x="{WIDTH - RIGHT + 6}" y="{threshold_y + 4:.1f}" '
        f'font-size="11" fill="{palette.FAILING}">'
        f"threshold {percent(chart.threshold)}</text>"
    )
    for index, line in enumerate(chart.series):
        look = style(index)
        points = [
            (i, found)
            for i, start in enumerate(chart.starts)
            if (found := line.counts.get(start)) is not None and found.total
        ]
        parts.append(
            f'<path class="series" data-series="{escape(line.name)}" d="{_path(points, x, y)}" '
            f'fill="none" stroke="{look.colour}" stroke-width="2"'
            + (f' stroke-dasharray="{look.dash}"' if look.dash else "")
            + "/>"
        )
        for i, found in points:
            rate = found.rate or 0.0
            tip = (
                f"{line.name}, {bucket_label(chart.starts[i], chart.step, chart.zone)}: "
                f"{percent(rate)} ({found.passed} of {found.total})"
            )
            parts.append(
                f'<path class="marker" data-shape="{look.shape}" '
                f'd="{marker(look.shape, x(i), y(rate))}" fill="{look.colour}" '
                f'stroke="{palette.INK}" stroke-width="0.6"><title>{escape(tip)}</title></path>'
            )
    parts += legend(entries, LEFT, legend_top, per_row)
    parts.append("</svg>")
    return "\n".join(parts)


def _description(chart: RateChart) -> str:
    names = ", ".join(s.name for s in chart.series) or "no results"
    alerts = ", ".join(day.isoformat() for day in sorted(chart.alert_days)) or "none"
    return (
        f"Pass rate per {chart.step}, {len(chart.starts)} {chart.step}s, times in "
        f"{chart.zone.key}. Lines: {names}. Threshold {percent(chart.threshold)}. "
        f"Alerts went out on: {alerts}. A gap in a line is a {chart.step} without results."
    )


def _path(
    points: Sequence[tuple[int, PassTally]], x: Callable[[int], float], y: Callable[[float], float]
) -> str:
    """``M`` at each run's first point, ``L`` after: buckets without results break it."""
    moves = []
    previous = None
    for i, found in points:
        command = "L" if previous is not None and i == previous + 1 else "M"
        moves.append(f"{command}{x(i):.1f},{y(found.rate or 0.0):.1f}")
        previous = i
    return " ".join(moves)


def _alert_runs(chart: RateChart) -> list[tuple[date, int, int]]:
    """(day, first bucket, last bucket) of each alert day the chart covers."""
    runs: dict[date, list[int]] = {}
    for i, start in enumerate(chart.starts):
        day = start.astimezone(chart.zone).date()
        if day in chart.alert_days:
            runs.setdefault(day, []).append(i)
    return [(day, found[0], found[-1]) for day, found in sorted(runs.items())]


def _tick_indexes(chart: RateChart) -> list[int]:
    """Hours: each one at 00, 06, 12 and 18 in the zone. Days: about eight, evenly apart."""
    if chart.step == "hour":
        return [i for i, s in enumerate(chart.starts) if s.astimezone(chart.zone).hour % 6 == 0]
    every = max(1, math.ceil(len(chart.starts) / 8))
    last = len(chart.starts) - 1
    return [i for i in range(len(chart.starts)) if (last - i) % every == 0]


def _tick_label(chart: RateChart, start: datetime) -> str:
    local = start.astimezone(chart.zone)
    if chart.step == "day":
        return f"{local:%b} {local.day}"
    return f"{local:%b} {local.day}" if local.hour == 0 else f"{local:%H:%M}"


def _legend_entries(chart: RateChart) -> list[LegendEntry]:
    entries = [LegendEntry(s.name, style(i), "series") for i, s in enumerate(chart.series)]
    entries.append(LegendEntry(f"alert threshold {percent(chart.threshold)}", None, "threshold"))
    entries.append(LegendEntry("a day an alert went out", None, "alert"))
    return entries
