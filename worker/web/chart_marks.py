"""How a chart's lines are told apart, never by colour alone: each series' colour
(``palette.SERIES``), dash pattern and marker shape; and the legend that names them,
the threshold and the alert mark."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Literal

from turncheck.worker.web import palette

DASHES = ("", "8 4", "2 3", "10 3 2 3", "4 4", "12 3 3 3 3 3", "1 4")
"""Seven patterns against eight colours: (colour, dash) pairs repeat only after 56 series."""
SHAPES = ("circle", "square", "diamond", "triangle", "triangle-down", "cross")
THRESHOLD_DASH = "6 4"
LEGEND_ROW = 22
LEGEND_COLUMN = 240


@dataclass(frozen=True, slots=True)
class Style:
    colour: str
    dash: str
    shape: str


def style(index: int) -> Style:
    """The look of the ``index``th series."""
    return Style(
        palette.SERIES[index % len(palette.SERIES)],
        DASHES[index % len(DASHES)],
        SHAPES[index % len(SHAPES)],
    )


def marker(shape: str, cx: float, cy: float, r: float = 4.0) -> str:
    if shape == "square":
        return f"M{cx - r:.1f},{cy - r:.1f} h{2 * r} v{2 * r} h{-2 * r} Z"
    if shape == "diamond":
        return polygon((cx, cy - r - 1), (cx + r + 1, cy), (cx, cy + r + 1), (cx - r - 1, cy))
    if shape == "triangle":
        return polygon((cx, cy - r - 1), (cx + r + 1, cy + r), (cx - r - 1, cy + r))
    if shape == "triangle-down":
        return polygon((cx, cy + r + 1), (cx + r + 1, cy - r), (cx - r - 1, cy - r))
    if shape == "cross":
        w = r / 2.5
        return (
            f"M{cx - w:.1f},{cy - r:.1f} h{2 * w:.1f} v{r - w:.1f} h{r - w:.1f} v{2 * w:.1f} "
            f"h{w - r:.1f} v{r - w:.1f} h{-2 * w:.1f} v{w - r:.1f} h{w - r:.1f} v{-2 * w:.1f} "
            f"h{r - w:.1f} Z"
        )
    return f"M{cx - r:.1f},{cy:.1f} a{r},{r} 0 1,0 {2 * r},0 a{r},{r} 0 1,0 {-2 * r},0 Z"


def polygon(*corners: tuple[float, float]) -> str:
    return "M" + " L".join(f"{px:.1f},{py:.1f}" for px, py in corners) + " Z"


@dataclass(frozen=True, slots=True)
class LegendEntry:
    text: str
    look: Style | None
    kind: Literal["series", "threshold", "alert"]


def legend(entries: list[LegendEntry], left_edge: int, top: int, per_row: int) -> list[str]:
    """The legend's marks, ``per_row`` entries a row from (``left_edge``, ``top``) down."""
    parts = ['<g class="legend">']
    for n, entry in enumerate(entries):
        left = left_edge + (n % per_row) * LEGEND_COLUMN
        mid = top + (n // per_row) * LEGEND_ROW + 8
        if entry.kind == "series" and entry.look is not None:
            look = entry.look
            dash = f' stroke-dasharray="{look.dash}"' if look.dash else ""
            parts.append(
                f'<line x1="{left}" x2="{left + 32}" y1="{mid}" y2="{mid}" '
                f'stroke="{look.colour}" stroke-width="2"{dash}/>'
            )
            parts.append(
                f'<path d="{marker(look.shape, left + 16, mid)}" fill="{look.colour}" '
                f'stroke="{palette.INK}" stroke-width="0.6"/>'
            )
        elif entry.kind == "threshold":
            parts.append(
                f'<line x1="{left}" x2="{left + 32}" y1="{mid}" y2="{mid}" '
                f'stroke="{palette.FAILING}" stroke-width="1.5" '
                f'stroke-dasharray="{THRESHOLD_DASH}"/>'
            )
        else:
            parts.append(
                f'<rect x="{left + 6}" y="{mid - 7}" width="20" height="14" '
                f'fill="{palette.ALERT}" fill-opacity="0.18"/>'
                f'<path d="M{left + 10},{mid - 7} L{left + 22},{mid - 7} L{left + 16},{mid + 3} Z" '
                f'fill="{palette.ALERT}" stroke="{palette.INK}" stroke-width="0.8"/>'
            )
        parts.append(
            f'<text class="legend-item" x="{left + 40}" y="{mid + 4}" font-size="12" '
            f'fill="{palette.INK}">{escape(entry.text)}</text>'
        )
    parts.append("</g>")
    return parts
