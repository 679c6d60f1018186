"""Case- and accent-insensitive text, with a way back to the original offsets."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Folded:
    """``text`` folded; ``origin[i]`` is the offset in the original of folded character ``i``."""

    text: str
    origin: tuple[int, ...] | None  # None: folding kept every offset (plain ASCII)

    def span(self, start: int, end: int) -> tuple[int, int]:
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


def fold(text: str) -> Folded:
    """Lower-case (full case folding) and strip accents: "Crème" and "CREME" fold alike."""
    if text.isascii():
        return Folded(text.lower(), None)
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        for part in unicodedata.normalize("NFKD", ch).casefold():
            if unicodedata.combining(part):
                continue
            chars.append(part)
            origin.append(i)
    return Folded("".join(chars), tuple(origin))


def fold_phrase(phrase: str) -> str:
    return fold(phrase).text
