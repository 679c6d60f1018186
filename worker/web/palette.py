"""The colours of the pages' charts: the Okabe-Ito palette, which readers with any common
colour-vision deficiency tell apart. The stylesheet (``templates/turncheck.css``) names
the same colours; a chart also marks every state by shape or word, never colour alone."""

from __future__ import annotations

PASSING = "#0072b2"
"""Blue: at or above the threshold."""
FAILING = "#d55e00"
"""Vermilion: below the threshold, or a failed result."""
ALERT = "#e69f00"
"""Orange: a day an alert went out."""
SHADOW = "#cc79a7"
GOOD = "#009e73"
MUTED = "#5f6368"
GRID = "#d9dce1"
INK = "#1d1d1f"

SERIES = ("#0072b2", "#e69f00", "#009e73", "#cc79a7", "#56b4e9", "#d55e00", "#f0e442", "#000000")
"""One colour a series (an agent version, a check version), in this order; past eight,
the colours start again and the series' dash patterns tell them apart."""
