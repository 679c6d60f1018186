"""The rate chart's SVG, read back with xml.etree: axes in the configured zone, the
threshold where its value puts it, one broken line per series, alert days marked, and
series told apart by more than colour."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from turncheck.worker.web import palette
from turncheck.worker.web.chart_marks import style
from turncheck.worker.web.rate_chart import (
    LEFT,
    PLOT_HEIGHT,
    RIGHT,
    TOP,
    WIDTH,
    RateChart,
    Series,
    svg,
    table,
)
from turncheck.worker.web.tally import PassTally

SVG = "{http://www.w3.org/2000/svg}"
BERLIN = ZoneInfo("Europe/Berlin")
START = datetime(2026, 11, 28, 0, tzinfo=UTC)
HOURS = tuple(START + timedelta(hours=i) for i in range(48))


def hourly(*series: Series, alert_days: frozenset[date] = frozenset()) -> RateChart:
    return RateChart("a check per hour", "hour", HOURS, series, 0.95, alert_days, BERLIN)


def drawn(chart: RateChart) -> ET.Element:
    return ET.fromstring(svg(chart))


def of_class(root: ET.Element, tag: str, name: str) -> list[ET.Element]:
    return [e for e in root.iter(SVG + tag) if e.get("class") == name]


def test_the_axes_are_labelled_and_the_hours_are_in_the_configured_zone() -> None:
    """The y axis says pass rate from 0% to 100%; the x axis names the zone and its ticks
    fall on hours 00, 06, 12 and 18 there, not in UTC."""
    root = drawn(hourly(Series("all results", {HOURS[0]: PassTally(9, 10)})))
    assert [e.text for e in of_class(root, "text", "y-label")] == ["pass rate"]
    assert [e.text for e in of_class(root, "text", "y-tick")] == ["0%", "25%", "50%", "75%", "100%"]
    (x_label,) = of_class(root, "text", "x-label")
    assert x_label.text is not None and "Europe/Berlin" in x_label.text
    ticks = [e.text for e in of_class(root, "text", "x-tick")]
    # 2026-11-28 00:00 UTC is 01:00 in Berlin: the first tick is 06:00 there.
    assert ticks[:4] == ["06:00", "12:00", "18:00", "Nov 29"]


def test_the_threshold_line_sits_at_its_value_and_says_it() -> None:
    """A 95% threshold is a dashed line 5% of the plot below its top, labelled 95%."""
    root = drawn(hourly(Series("all results", {})))
    (line,) = of_class(root, "line", "threshold")
    expected = TOP + 0.05 * PLOT_HEIGHT
    assert abs(float(line.get("y1", "0")) - expected) < 0.1
    assert line.get("stroke-dasharray")
    (label,) = of_class(root, "text", "threshold")
    assert label.text == "threshold 95%"


def test_each_series_is_one_path_broken_where_a_bucket_has_no_results() -> None:
    """Two series give two paths; an hour without results starts a new run (a second M)
    instead of a line down to zero, and each hour with results has a marker."""
    first = Series(
        "agent version 7",
        {HOURS[0]: PassTally(9, 10), HOURS[1]: PassTally(8, 10), HOURS[3]: PassTally(10, 10)},
    )
    second = Series("agent version 8", {HOURS[2]: PassTally(5, 10), HOURS[3]: PassTally(6, 10)})
    root = drawn(hourly(first, second))
    paths = of_class(root, "path", "series")
    assert [p.get("data-series") for p in paths] == ["agent version 7", "agent version 8"]
    moves = paths[0].get("d", "").split()
    assert [m[0] for m in moves] == ["M", "L", "M"]
    assert [m[0] for m in paths[1].get("d", "").split()] == ["M", "L"]
    assert len(of_class(root, "path", "marker")) == 5


def test_alert_days_are_marked_on_their_days_in_the_zone() -> None:
    """An alert day is a band over that day's hours in Berlin, with a triangle: the
    chart's first hour (01:00 on the 28th there) belongs to the 28th."""
    chart = hourly(Series("all results", {}), alert_days=frozenset({date(2026, 11, 29)}))
    root = drawn(chart)
    (band,) = of_class(root, "rect", "alert-day")
    assert band.get("data-day") == "2026-11-29"
    (mark,) = of_class(root, "path", "alert-mark")
    assert mark.get("data-day") == "2026-11-29"
    # The 29th in Berlin starts at 23:00 UTC on the 28th: the 24th bucket (index 23).
    slot = (WIDTH - LEFT - RIGHT) / 48
    assert abs(float(band.get("x", "0")) - (LEFT + 23 * slot)) < 0.1
    assert abs(float(band.get("width", "0")) - 24 * slot) < 0.1
    rows = table(chart).rows
    assert rows[22][-1] == "" and rows[23][-1] == "yes"


def test_series_differ_in_colour_dash_and_marker_and_use_the_palette() -> None:
    """Every series' colour is an Okabe-Ito colour, and no two of the first eight share
    a dash pattern with a colour, or a marker shape with the one before."""
    series = [Series(f"check version v{i}", {HOURS[0]: PassTally(1, 2)}) for i in range(8)]
    root = drawn(hourly(*series))
    paths = of_class(root, "path", "series")
    colours = [p.get("stroke") for p in paths]
    assert colours == list(palette.SERIES)
    dashes = [p.get("stroke-dasharray", "") for p in paths]
    assert len(set(zip(colours, dashes, strict=True))) == 8
    assert len(set(dashes[:7])) == 7
    shapes = [style(i).shape for i in range(8)]
    assert all(a != b for a, b in itertools.pairwise(shapes))


def test_the_chart_has_a_title_a_description_and_a_legend() -> None:
    """The SVG names itself for readers of assistive technology and lists its lines,
    the threshold and the alert mark in a legend."""
    root = drawn(hourly(Series("all results", {HOURS[0]: PassTally(1, 1)})))
    assert root.findtext(SVG + "title") == "a check per hour"
    desc = root.findtext(SVG + "desc") or ""
    assert "Europe/Berlin" in desc and "95%" in desc
    legend = [e.text for e in of_class(root, "text", "legend-item")]
    assert legend == ["all results", "alert threshold 95%", "a day an alert went out"]


def test_the_table_gives_the_same_numbers_with_times_in_the_zone() -> None:
    """Each bucket is a row in the zone's time, each series' rate with its counts, and
    "no results" where the chart has a gap."""
    chart = hourly(Series("all results", {HOURS[0]: PassTally(9, 10)}))
    numbers = table(chart)
    assert numbers.header == (
        "hour of the turns' time (Europe/Berlin)",
        "all results",
        "alert sent that day",
    )
    assert numbers.rows[0] == ("2026-11-28 01:00", "90% (9 of 10)", "")
    assert numbers.rows[1][1] == "no results"


def test_text_is_escaped() -> None:
    """A version named like markup stays text: the SVG still parses."""
    root = drawn(hourly(Series("agent version <b>&", {HOURS[0]: PassTally(1, 1)})))
    (path,) = of_class(root, "path", "series")
    assert path.get("data-series") == "agent version <b>&"
