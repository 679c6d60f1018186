"""Pass-rate trends drawn for an alert: a text sparkline for Slack and plain-text mail, a
small PNG bar chart for the HTML mail. Pure functions: no I/O, no clock."""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import date

from PIL import Image, ImageDraw, ImageFont

BLOCKS = "▁▂▃▄▅▆▇█"
NO_DATA_MARK = "·"
"""A day without results in a sparkline: a middle dot, so the days keep their places."""

CHART_SIZE = (560, 200)
MAX_DAYS = 14
BACKGROUND = (255, 255, 255)
PASS_COLOUR = (47, 109, 181)
"""Blue: a day at or above the threshold. Blue and orange stay apart for colour-blind readers."""
WARNING_COLOUR = (232, 113, 10)
"""Orange: a day below the threshold."""
NO_DATA_COLOUR = (170, 170, 170)
THRESHOLD_COLOUR = (51, 51, 51)
GRID_COLOUR = (225, 225, 225)
TEXT_COLOUR = (68, 68, 68)

_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 16, 24, 22
"""Margins around the plot: percentages on the left, the title above, day labels below."""
_NO_DATA_HEIGHT = 4


def sparkline(rates: Sequence[float | None]) -> str:
    """One block per day, scaled from the lowest to the highest rate present (all equal: all
    full blocks); a day without results is a middle dot (``NO_DATA_MARK``)."""
    present = [rate for rate in rates if rate is not None]
    if not present:
        return NO_DATA_MARK * len(rates)
    low, high = min(present), max(present)
    top = len(BLOCKS) - 1

    def block(rate: float | None) -> str:
        if rate is None:
            return NO_DATA_MARK
        if high == low:
            return BLOCKS[top]
        return BLOCKS[round((rate - low) / (high - low) * top)]

    return "".join(block(rate) for rate in rates)


def daily_chart_png(days: Sequence[tuple[date, float | None]], threshold: float) -> bytes:
    """A ``CHART_SIZE`` PNG of the last ``MAX_DAYS`` days' pass rates (0..1): one bar per
    day, orange below ``threshold`` and blue otherwise, the threshold as a dark line, a grey
    stub for a day without results. The same input gives the same bytes."""
    days = days[-MAX_DAYS:]
    width, height = CHART_SIZE
    image = Image.new("RGB", CHART_SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    bottom, plot_height = height - _BOTTOM, height - _TOP - _BOTTOM

    def y_of(rate: float) -> int:
        return bottom - round(min(max(rate, 0.0), 1.0) * plot_height)

    title = f"Pass rate per day; the line is the alert threshold, {threshold * 100:g}%"
    draw.text((_LEFT, 6), title, fill=TEXT_COLOUR, font=font)
    for level, label in ((0.0, "0%"), (0.5, "50%"), (1.0, "100%")):
        draw.line([(_LEFT, y_of(level)), (width - _RIGHT, y_of(level))], fill=GRID_COLOUR)
        draw.text((_LEFT - 6, y_of(level)), label, fill=TEXT_COLOUR, font=font, anchor="rm")

    slot = (width - _LEFT - _RIGHT) / max(len(days), 1)
    bar_width = max(round(slot * 0.6), 2)
    for index, (day, rate) in enumerate(days):
        centre = round(_LEFT + slot * (index + 0.5))
        left, right = centre - bar_width // 2, centre + bar_width // 2
        if rate is None:
            draw.rectangle([(left, bottom - _NO_DATA_HEIGHT), (right, bottom)], fill=NO_DATA_COLOUR)
        else:
            colour = WARNING_COLOUR if rate < threshold else PASS_COLOUR
            draw.rectangle([(left, y_of(rate)), (right, bottom)], fill=colour)
        draw.text(
            (centre, bottom + 4), day.strftime("%m-%d"), fill=TEXT_COLOUR, font=font, anchor="mt"
        )

    # Drawn after the bars so the line shows across the tall ones too.
    draw.line(
        [(_LEFT, y_of(threshold)), (width - _RIGHT, y_of(threshold))],
        fill=THRESHOLD_COLOUR,
        width=2,
    )

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()
