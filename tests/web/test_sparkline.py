"""The sparkline, pure: a dot a period with data, gaps where none, the threshold line,
the colours by the threshold and the text alternative."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from turncheck.worker.web import palette
from turncheck.worker.web.sparkline import Point, describe, percent, sparkline

SVG = "{http://www.w3.org/2000/svg}"


def parsed(points: list[Point], threshold: float | None = 0.9) -> ET.Element:
    return ET.fromstring(str(sparkline(points, threshold)))


def test_each_period_with_results_is_one_dot_and_a_period_without_is_none() -> None:
    """Three of five days have results: three dots, none for the empty days."""
    points = [Point("a", 9, 10), Point("b", 0, 0), Point("c", 5, 5), Point("d", 0, 0)]
    points.append(Point("e", 1, 2))
    svg = parsed(points)
    assert len(svg.findall(f"{SVG}circle")) == 3


def test_a_day_without_results_breaks_the_line_rather_than_drawing_zero() -> None:
    """Two runs of data around an empty day are two lines, never one through zero."""
    points = [Point("a", 9, 10), Point("b", 8, 10), Point("c", 0, 0)]
    points += [Point("d", 10, 10), Point("e", 9, 10)]
    lines = parsed(points).findall(f"{SVG}polyline")
    assert len(lines) == 2
    assert all(len(line.attrib["points"].split()) == 2 for line in lines)


def test_the_threshold_is_a_faint_line_and_dots_below_it_are_vermilion() -> None:
    """Below the threshold is FAILING, at or above it PASSING; the line is GRID."""
    svg = parsed([Point("a", 8, 10), Point("b", 9, 10)], threshold=0.9)
    line = svg.find(f"{SVG}line")
    assert line is not None and line.attrib["stroke"] == palette.GRID
    colours = [c.attrib["fill"] for c in svg.findall(f"{SVG}circle")]
    assert colours == [palette.FAILING, palette.PASSING]


def test_higher_rates_are_drawn_higher() -> None:
    """SVG's y grows downwards: the better day has the smaller y."""
    svg = parsed([Point("a", 5, 10), Point("b", 10, 10)], threshold=None)
    low, high = (float(c.attrib["cy"]) for c in svg.findall(f"{SVG}circle"))
    assert high < low
    assert svg.find(f"{SVG}line") is None


def test_the_title_states_every_rate_and_the_threshold() -> None:
    """The text alternative reads each period, a period without results as none."""
    svg = parsed([Point("Nov 23", 39, 40), Point("Nov 24", 0, 0)], threshold=0.95)
    title = svg.find(f"{SVG}title")
    assert title is not None
    assert title.text == "Pass rate: Nov 23 97.5 % of 40, Nov 24 none; threshold 95 %"
    assert svg.attrib["role"] == "img"


def test_labels_are_escaped_in_the_markup() -> None:
    """A label with markup in it stays text."""
    markup = str(sparkline([Point("<b>&", 1, 1)], None))
    assert "<b>" not in markup and "&lt;b&gt;&amp;" in markup


def test_a_series_without_any_results_is_an_empty_chart_that_says_so() -> None:
    """No dots, no lines, and the title says none for each period."""
    svg = parsed([Point("a", 0, 0), Point("b", 0, 0)])
    assert not svg.findall(f"{SVG}circle") and not svg.findall(f"{SVG}polyline")
    assert describe([Point("a", 0, 0)], None) == "Pass rate: a none"


def test_percent_drops_a_trailing_zero() -> None:
    """100 % and 0 % read whole; other rates keep one decimal."""
    assert [percent(1.0), percent(0.0), percent(0.975)] == ["100 %", "0 %", "97.5 %"]
    assert re.fullmatch(r"\d+(\.\d)? %", percent(1 / 3))
