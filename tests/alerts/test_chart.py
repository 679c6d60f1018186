"""The trend sparkline and the daily bar chart."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
from PIL import Image

from turncheck.alerts.chart import (
    CHART_SIZE,
    NO_DATA_COLOUR,
    PASS_COLOUR,
    THRESHOLD_COLOUR,
    WARNING_COLOUR,
    daily_chart_png,
    sparkline,
)

FIRST_DAY = date(2026, 11, 16)


def days(*rates: float | None) -> list[tuple[date, float | None]]:
    return [(FIRST_DAY + timedelta(days=n), rate) for n, rate in enumerate(rates)]


def opened(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.convert("RGB")


def colours_along(image: Image.Image, y: int) -> list[tuple[int, int, int]]:
    """The colours met left to right along row ``y``, each run counted once."""
    runs: list[tuple[int, int, int]] = []
    for x in range(image.width):
        pixel = image.getpixel((x, y))
        assert isinstance(pixel, tuple)
        colour = (pixel[0], pixel[1], pixel[2])
        if not runs or runs[-1] != colour:
            runs.append(colour)
    return runs


def bar_colours(image: Image.Image, y: int) -> list[tuple[int, int, int]]:
    bars = {PASS_COLOUR, WARNING_COLOUR, NO_DATA_COLOUR}
    return [colour for colour in colours_along(image, y) if colour in bars]


@pytest.mark.parametrize(
    ("rates", "line"),
    [
        ([0.5, 0.6, 0.7, 0.8, 0.9, 1.0], "▁▂▄▅▇█"),
        ([1.0, 0.9, 0.6], "█▆▁"),
        ([0.97, 0.97, 0.97], "███"),
        ([0.0, 0.0], "██"),
        ([0.9, None, 1.0, None], "▁·█·"),
        ([None, 0.5], "·█"),
        ([None, None], "··"),
        ([], ""),
    ],
    ids=["rising", "falling", "flat", "flat-at-zero", "gaps", "one-day", "no-results", "empty"],
)
def test_sparkline_scales_between_the_lowest_and_highest_day(
    rates: list[float | None], line: str
) -> None:
    """Blocks span the lowest to the highest rate present; a day without results is a dot."""
    assert sparkline(rates) == line


def test_the_same_days_give_the_same_png_bytes() -> None:
    """Drawing is deterministic, so a chart can be compared byte for byte."""
    history = days(0.99, None, 0.8, 1.0, 0.95)

    assert daily_chart_png(history, 0.95) == daily_chart_png(history, 0.95)
    assert daily_chart_png(history, 0.95) != daily_chart_png(history, 0.9)


def test_the_chart_is_a_png_of_the_chart_size() -> None:
    """The chart is a PNG of CHART_SIZE, with and without days."""
    for history in (days(0.9, 0.97), days(*[0.9] * 20), []):
        png = daily_chart_png(history, 0.95)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        assert opened(png).size == CHART_SIZE


def test_a_bar_below_the_threshold_is_orange_and_one_at_or_above_is_blue() -> None:
    """Along a row near the bottom, bars show in order: blue, orange, blue at the threshold."""
    image = opened(daily_chart_png(days(0.99, 0.5, 0.95), 0.95))

    assert bar_colours(image, CHART_SIZE[1] - 30) == [PASS_COLOUR, WARNING_COLOUR, PASS_COLOUR]


def test_a_day_without_results_is_a_short_grey_marker() -> None:
    """An empty day is grey just above the baseline and nothing higher up."""
    image = opened(daily_chart_png(days(0.99, None, 0.99), 0.5))
    baseline = CHART_SIZE[1] - 22

    assert bar_colours(image, baseline - 2) == [PASS_COLOUR, NO_DATA_COLOUR, PASS_COLOUR]
    assert bar_colours(image, baseline - 30) == [PASS_COLOUR, PASS_COLOUR]


def test_only_the_last_fourteen_days_are_drawn() -> None:
    """Older days beyond fourteen are left out: the first, failing, day is not drawn."""
    image = opened(daily_chart_png(days(0.1, *[0.99] * 14), 0.95))

    assert bar_colours(image, CHART_SIZE[1] - 30) == [PASS_COLOUR] * 14


def test_the_threshold_is_a_dark_line_across_the_plot() -> None:
    """A threshold of 50% is a dark line halfway up the plot, across its middle."""
    image = opened(daily_chart_png(days(0.2, 0.2), 0.5))
    top, bottom = 24, CHART_SIZE[1] - 22
    rows = [
        y
        for y in range(CHART_SIZE[1])
        if image.getpixel((CHART_SIZE[0] // 2, y)) == THRESHOLD_COLOUR
    ]

    assert rows
    assert all(abs(y - (top + bottom) / 2) <= 2 for y in rows)
