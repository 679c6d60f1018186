"""A text with the spans a check matched marked: escaped HTML built from offsets.

Offsets are code points (Python's string indices), as checks report them. Spans may
overlap or nest: the text is cut at every span's start and end, and each piece that any
span covers is one ``<mark>``, titled with the labels covering it, so no tag is ever
opened inside another. Offsets past the text are clamped; an empty span marks nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup, escape


@dataclass(frozen=True, slots=True)
class Mark:
    start: int
    end: int
    label: str


def highlighted(text: str, marks: Iterable[Mark]) -> Markup:
    """``text`` escaped, with each span's piece inside ``<mark>``."""
    size = len(text)
    spans = [(max(0, min(m.start, size)), max(0, min(m.end, size)), m.label) for m in marks]
    spans = [(start, end, label) for start, end, label in spans if start < end]
    cuts = sorted({0, size, *(s for s, _, _ in spans), *(e for _, e, _ in spans)})
    parts: list[str] = []
    for start, end in itertools.pairwise(cuts):
        piece = escape(text[start:end])
        labels = sorted({label for s, e, label in spans if s <= start and end <= e})
        if labels:
            title = escape(", ".join(labels))
            parts.append(f'<mark title="{title}">{piece}</mark>')
        else:
            parts.append(str(piece))
    return Markup("".join(parts))
