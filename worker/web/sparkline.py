"""A sparkline: a small inline SVG of a series of pass rates (a day's or an hour's each),
drawn on the server, so the page needs no script and no image request.

Pure: points in, markup out. A point without results is a gap in the line, never a
zero; the threshold is a faint dashed line; each point with data is a dot, vermilion
below the threshold and blue at or above it (``palette.py``), and the ``<title>`` says
every rate in words, so a reader who sees no colour, or no image, reads the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from markupsafe import Markup

from turncheck.worker.web import palette

WIDTH = 120
HEIGHT = 28
PAD = 3
"""Room around the line for the dots, in SVG units."""


@dataclass(frozen=True, slots=True)
class Point:
    """One period of the series: its label (``Nov 23``) and its counts."""

    label: str
    passed: int
    total: int

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None


def sparkline(
    points: Sequence[Point], threshold: float | None, *, width: int = WIDTH, height: int = HEIGHT
) -> Markup:
    """The series as an ``<svg>`` element, points evenly spaced, oldest on the left.

    The vertical scale runs from just under the lowest rate (or threshold) up to 100 %,
    so a dip from 99 % to 96 % shows; it never starts below 0."""
    rates = [p.rate for p in points if p.rate is not None]
    low = min([*rates, *([threshold] if threshold is not None else []), 1.0])
    bottom = max(0.0, low - 0.02)
    span = 1.0 - bottom or 1.0

    def x(i: int) -> float:
        step = (width - 2 * PAD) / max(len(points) - 1, 1)
        return round(PAD + i * step, 1)

    def y(rate: float) -> float:
        return round(PAD + (1.0 - rate) / span * (height - 2 * PAD), 1)

    parts = [
        f'<svg class="spark" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
        f"<title>{escape(describe(points, threshold))}</title>",
    ]
    if threshold is not None:
        parts.append(
            f'<line class="threshold" x1="0" x2="{width}" y1="{y(threshold)}" '
            f'y2="{y(threshold)}" stroke="{palette.GRID}" stroke-dasharray="3 2"/>'
        )
    for run in _runs(points):
        if len(run) > 1:
            line = " ".join(f"{x(i)},{y(rate)}" for i, rate in run)
            parts.append(
                f'<polyline points="{line}" fill="none" stroke="{palette.MUTED}" '
                'stroke-width="1.2"/>'
            )
    for i, point in enumerate(points):
        if point.rate is not None:
            below = threshold is not None and point.rate < threshold
            colour = palette.FAILING if below else palette.PASSING
            parts.append(f'<circle cx="{x(i)}" cy="{y(point.rate)}" r="2" fill="{colour}"/>')
    parts.append("</svg>")
    # Markup: every text in it (the labels in the title) is escaped above.
    return Markup("".join(parts))


def describe(points: Sequence[Point], threshold: float | None) -> str:
    """The text alternative: each period's rate and count, or that it had no results."""
    said = [
        f"{p.label} {percent(p.rate)} of {p.total}" if p.rate is not None else f"{p.label} none"
        for p in points
    ]
    end = f"; threshold {percent(threshold)}" if threshold is not None else ""
    return "Pass rate: " + ", ".join(said) + end


def percent(rate: float) -> str:
    """A rate as a person reads it: 97.5 %, 100 %, 0 %."""
    return f"{rate * 100:.1f}".removesuffix(".0") + " %"


def _runs(points: Sequence[Point]) -> list[list[tuple[int, float]]]:
    """The stretches of consecutive points with data: a line is drawn along each."""
    runs: list[list[tuple[int, float]]] = [[]]
    for i, point in enumerate(points):
        if point.rate is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((i, point.rate))
    return [run for run in runs if run]
