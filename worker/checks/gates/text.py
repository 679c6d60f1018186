"""The text a gate reads: the detectors' normalised text, folded to ASCII.

Both engines read this same text, so they agree by construction: every
character is ASCII, one byte each in UTF-8, and a gate's atoms use only
constructs that mean the same to Python's ``re`` (ASCII mode) and to
Hyperscan (literals, ASCII classes, bounded and unbounded repeats,
alternation, ASCII case folding).

Folding may only add matches, never lose one a detector would see:

* a character becomes what ``textmap.fold`` makes of it when that is ASCII
  ("é" -> "e"), as phrases are matched;
  the letters that case-fold to an ASCII one in a case-insensitive regex do
  too (dotted and dotless I, long s, the Kelvin sign);
* a decimal digit of any script becomes its ASCII digit;
* invisible characters go (a detector reads the text without them);
* anything else becomes ``?``, which no atom names: to a digit gate it is a
  separator, as the widest detector takes it.

The text is framed by a space on each side, so an atom can ask for a
non-letter before or after a word without anchors.
"""

from __future__ import annotations

import unicodedata

from turncheck.worker.checks.textmap import INVISIBLE

# Non-ASCII characters a case-insensitive ``regex`` or ``re`` pattern matches
# with an ASCII letter (found by trying every code point against a-z).
_CASE_FOLDS_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


def _ascii_of(ch: str) -> str:
    if ch in INVISIBLE:
        return ""
    if ch in _CASE_FOLDS_TO_ASCII:
        return _CASE_FOLDS_TO_ASCII[ch]
    digit = unicodedata.decimal(ch, None)
    if digit is not None:
        return str(digit)
    # As ``textmap.fold`` reads it: "é" is "e", "≠" is "=". (No character outside the
    # letters folds to an ASCII letter or digit.) A lone combining mark stays a mark
    # to a detector, so it is "?" here; phrases are gated on ``fold``'s text, without it.
    decomposed = unicodedata.normalize("NFKD", ch).casefold()
    bare = "".join(p for p in decomposed if not unicodedata.combining(p))
    return bare if bare and bare.isascii() else "?"


_MOST_KEPT = 65_536


class _Table(dict[int, str]):
    """``str.translate``'s table, filled on first sight of each character."""

    def __missing__(self, code: int) -> str:
        replacement = _ascii_of(chr(code))
        if len(self) < _MOST_KEPT:  # a text of every code point must not grow it forever
            self[code] = replacement
        return replacement


_TABLE = _Table({code: chr(code) for code in range(128)})


def gate_text(normalized: str) -> str:
    """``normalized`` (``textmap.normalize``'s text) as an ASCII string, framed by spaces."""
    if normalized.isascii():
        return f" {normalized} "
    return f" {normalized.translate(_TABLE)} "
