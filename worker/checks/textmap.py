"""Text rewritten for matching, with a way back to offsets in the original.

Detectors and matchers read a rewritten text (normalised, or folded) and
report spans in it; ``MappedText.span`` turns those into offsets of the text
as the turn stored it, which is what results carry.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

# Zero-width and other invisible format characters that can split a word or a
# number without showing: "4111\u200b1111..." must still read as one number.
INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e")


@dataclass(frozen=True, slots=True)
class MappedText:
    """``text`` rewritten; ``origin[i]`` is the original offset of character ``i``."""

    text: str
    origin: tuple[int, ...] | None  # None: every offset kept (the text was not changed)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of ``text[start:end]`` (``end > start``)."""
        if self.origin is None:
            return start, end
        return self.origin[start], self.origin[end - 1] + 1


def _rewrite(text: str, per_char: str) -> MappedText:
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch in INVISIBLE:
            continue
        if per_char == "nfkc":
            parts = unicodedata.normalize("NFKC", ch)
        else:
            decomposed = unicodedata.normalize("NFKD", ch).casefold()
            parts = "".join(p for p in decomposed if not unicodedata.combining(p))
        chars.append(parts)
        origin.extend([i] * len(parts))
    return MappedText("".join(chars), tuple(origin))


def normalize(text: str) -> MappedText:
    """NFKC (full-width digits and letters become ASCII ones) with invisible characters removed."""
    if text.isascii():
        return MappedText(text, None)
    return _rewrite(text, "nfkc")


def fold(text: str) -> MappedText:
    """Normalised, lower-cased (full case folding) and without accents: "Crème" ~ "CREME"."""
    if text.isascii():
        return MappedText(text.lower(), None)
    return _rewrite(text, "fold")
