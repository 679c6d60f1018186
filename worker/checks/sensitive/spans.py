"""Spans found by several shapes of one detector, reported once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def merged(spans: Iterable[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """In text order; a span starting inside one already reported (a shorter shape of the
    same finding) is dropped, the longest at a position wins."""
    last_end = -1
    for start, end in sorted(spans, key=lambda span: (span[0], -span[1])):
        if start >= last_end:
            yield start, end
            last_end = end
