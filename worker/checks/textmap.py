"""Text rewritten for matching, with a way back to offsets in the original.

Detectors and matchers read a rewritten text (normalised, or folded) and
report spans in it; ``MappedText.span`` turns those into offsets of the text
as the turn stored it, which is what results carry.

Both rewrites also read every way of writing a number alike (``canonical``):
each Unicode dash and minus sign is ``-`` (models write U+2011 inside card
numbers, dates and phone numbers), each decimal digit of any script is its
ASCII digit (Arabic-Indic, Devanagari, full-width, ...), and zero-width and
bidirectional control characters are removed.

Each character is rewritten on its own (``"e\\u0301"`` stays two characters;
no composition across characters), so the rewrite of a text is a table from
character to replacement, applied by ``str.translate`` in C. A rewritten text
is as long as the original but where a character is removed (invisible ones)
or becomes several ("ﬁ" is "fi"): only those places are recorded, as the
offsets where the distance to the original changes. The rewrite goes by
chunks and checks the budget between them: a text of megabytes takes its time
from the turn's budget like any check does.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from turncheck.worker.checks import canonical_table, unicode_table
from turncheck.worker.checks.budget import Budget

# Zero-width and other invisible format characters that can split a word or a
# number without showing: "4111\u200b1111..." must still read as one number.
# Bidirectional marks, embeddings and isolates too: "\u202d4111...\u202c" shows
# the digits alone; and the invisible operators, the grapheme joiner, emoji
# variation selectors and the keycap ("4\ufe0f\u20e3" is a 4), tag characters.
INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\ufeff\u00ad\u180e"
    "\u200e\u200f\u061c\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    "\u2061\u2062\u2063\u2064\u034f\ufe0e\ufe0f\u20e3" + "".join(map(chr, range(0xE0001, 0xE0080)))
)
_ASCII = re.compile(r"[\x00-\x7f]")


def _class(code_points: list[int]) -> str:
    """A regex character class of ``code_points``, consecutive ones as ranges."""
    parts, low = [], 0
    for i, code_point in enumerate(code_points):
        if i == 0 or code_point != code_points[i - 1] + 1:
            low = code_point
        if i + 1 == len(code_points) or code_points[i + 1] != code_point + 1:
            high = code_point
            parts.append(re.escape(chr(low)) + ("" if low == high else "-" + re.escape(chr(high))))
    return "[" + "".join(parts) + "]"


@lru_cache(maxsize=64)
def _scanner(chars: frozenset[str]) -> re.Pattern[str]:
    """A scan for ``chars``: a class of the BMP's, then one range from the lowest to the
    highest past the BMP, a superset a caller checks. A class holding ranges past the BMP
    is read range by range, 50 to 100 times slower on every character of a text."""
    points = sorted(map(ord, chars))
    bmp, astral = [c for c in points if c <= 0xFFFF], [c for c in points if c > 0xFFFF]
    alternatives = [_class(bmp)] if bmp else []
    if astral:
        alternatives.append(f"[{re.escape(chr(astral[0]))}-{re.escape(chr(astral[-1]))}]")
    return re.compile("|".join(alternatives))


# Exact: the only invisible characters past the BMP, the tags, are one range.
_INVISIBLE_RUN = _scanner(INVISIBLE)


def _canonical_table() -> dict[int, str]:
    """Dashes and minus signs to ``-``, decimal digits of every script to ASCII ones, and
    the Arabic decimal and thousands separators to ``.`` and ``,`` (``unicode_table``):
    as written at build time for this Python's Unicode version, else built now (0.1 s
    over every code point)."""
    if unicodedata.unidata_version == canonical_table.UNIDATA_VERSION:
        return dict(canonical_table.CANONICAL)
    return unicode_table.build()


# ~680 characters, each one to one.
CANONICAL = _canonical_table()


# Where a character may change; past the BMP a superset, checked by ``_canonical_char``.
_MAY_CHANGE = _scanner(frozenset(map(chr, CANONICAL)))
_MAY_CHANGE_OR_VANISH = _scanner(frozenset(map(chr, CANONICAL)) | INVISIBLE)


def _canonical_char(match: re.Match[str]) -> str:
    ch = match.group()
    return CANONICAL.get(ord(ch), ch)


def canonical(text: str) -> str:
    """``text`` with ``CANONICAL`` applied: ``str.translate`` costs ~50 ns a character
    off ASCII, this only what a scan finds."""
    return _MAY_CHANGE.sub(_canonical_char, text)


CHUNK_CHARS = 65_536


@dataclass(frozen=True, slots=True)
class MappedText:
    """``text`` rewritten from an original; ``span`` maps its offsets back.

    From offset ``breaks[k]`` of ``text`` on (until the next break), the original
    offset is the offset plus ``shifts[k]``; before the first break they agree.
    """

    text: str
    breaks: tuple[int, ...] = ()
    shifts: tuple[int, ...] = ()

    def origin(self, offset: int) -> int:
        """The original offset of the character at ``offset`` of ``text``."""
        k = bisect_right(self.breaks, offset)
        return offset if k == 0 else offset + self.shifts[k - 1]

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original offsets of ``text[start:end]`` (``end > start``)."""
        if not self.breaks:
            return start, end
        return self.origin(start), self.origin(end - 1) + 1


@lru_cache(maxsize=8192)
def _nfkc(ch: str) -> str:
    # NFKC first: it makes U+2011 a U+2010 and a superscript minus U+2212, both dashes.
    return "" if ch in INVISIBLE else unicodedata.normalize("NFKC", ch).translate(CANONICAL)


@lru_cache(maxsize=8192)
def _folded(ch: str) -> str:
    if ch in INVISIBLE:
        return ""
    decomposed = unicodedata.normalize("NFKD", ch).casefold()
    return "".join(p for p in decomposed if not unicodedata.combining(p)).translate(CANONICAL)


class _Rewrite:
    """The rewritten text and its breaks, built chunk by chunk."""

    def __init__(self, per_char: Callable[[str], str]) -> None:
        self.per_char = per_char
        self.table: dict[int, str] = {}  # every character met that changes
        self.changing: set[str] = set()  # the same characters
        self.resizing: set[str] = set()  # those that do not become exactly one
        self.seen: set[str] = set()
        self.pieces: list[str] = []
        self.breaks: list[int] = []
        self.shifts: list[int] = []
        self.shift = 0  # original offset minus rewritten offset, at the end so far

    def add(self, text: str, start: int, end: int, budget: Budget) -> None:
        chunk = text[start:end]
        chars = set(chunk)
        for ch in chars - self.seen:
            replacement = self.per_char(ch)
            if replacement != ch:
                self.table[ord(ch)] = replacement
                self.changing.add(ch)
                if len(replacement) != 1:
                    self.resizing.add(ch)
        self.seen |= chars
        resized = chars & self.resizing
        if resized:
            self._break_at(chunk, start, resized, budget)
        if not chars.isdisjoint(self.changing):
            chunk = chunk.translate(self.table)
        self.pieces.append(chunk)

    def add_unchanged(self, text: str, start: int, end: int, budget: Budget) -> None:
        """``text[start:end]``, where NFKC changes nothing: invisible characters go,
        dashes and digits become canonical (one for one: no break)."""
        chunk = text[start:end]
        if _MAY_CHANGE_OR_VANISH.search(chunk) is None:  # most text: one scan
            self.pieces.append(chunk)
            return
        if _INVISIBLE_RUN.search(chunk) is not None:
            self._break_at(chunk, start, INVISIBLE, budget)
            chunk = _INVISIBLE_RUN.sub("", chunk)
        self.pieces.append(canonical(chunk))

    def _break_at(
        self, chunk: str, start: int, chars: set[str] | frozenset[str], budget: Budget
    ) -> None:
        """Record the breaks of ``chars`` (those that resize) in ``chunk``, at ``start``."""
        for match in _scanner(frozenset(chars)).finditer(chunk):
            budget.check()
            if match.group() not in chars:
                continue  # past the BMP the scan finds a superset
            original = start + match.start()
            at = original - self.shift  # its offset in the rewritten text
            size = len(self.per_char(match.group()))
            # Each extra character of an expansion points back at the one it came from.
            for extra in range(1, size):
                self._record(at + extra, original - at - extra)
            self.shift = original + 1 - at - size
            self._record(at + size, self.shift)

    def _record(self, at: int, shift: int) -> None:
        if self.breaks and self.breaks[-1] == at:
            self.shifts[-1] = shift
        else:
            self.breaks.append(at)
            self.shifts.append(shift)

    def result(self) -> MappedText:
        return MappedText("".join(self.pieces), tuple(self.breaks), tuple(self.shifts))


def _rewrite(
    text: str,
    per_char: Callable[[str], str],
    budget: Budget,
    unchanged: Callable[[str], bool] = lambda chunk: False,
) -> MappedText:
    """``unchanged(chunk)``: a quick test that ``per_char`` leaves every character of
    ``chunk`` as it is, invisible ones and ``CANONICAL`` ones aside (``add_unchanged``
    removes and replaces those)."""
    rewrite = _Rewrite(per_char)
    for start in range(0, len(text), CHUNK_CHARS):
        budget.check()
        end = min(start + CHUNK_CHARS, len(text))
        if unchanged(text[start:end]):
            rewrite.add_unchanged(text, start, end, budget)
        else:
            rewrite.add(text, start, end, budget)
    return rewrite.result()


def _in_nfkc(chunk: str) -> bool:
    # A text in NFKC holds no character that NFKC alone changes: such a character
    # either decomposes (and only a primary composite, which NFKC keeps alone too,
    # can come back from composition) or composes with nothing. Most text in any
    # script is in NFKC already, and this C-speed test spares it the table.
    return unicodedata.is_normalized("NFKC", chunk)


def normalize(text: str, budget: Budget) -> MappedText:
    """NFKC (full-width digits and letters become ASCII ones), dashes and digits made
    canonical, invisible characters removed."""
    if text.isascii():
        return MappedText(text)
    return _rewrite(text, _nfkc, budget, _in_nfkc)


def fold(text: str, budget: Budget) -> MappedText:
    """Normalised, lower-cased (full case folding) and without accents: "Crème" ~ "CREME"."""
    if text.isascii():
        return MappedText(text.lower())
    return _rewrite(text, _folded, budget)


def normalize_plain(text: str, budget: Budget) -> str:
    """``text`` normalised as ``normalize`` does, without offsets: by C calls on whole
    chunks, so NFKC also composes across characters ("e" + U+0301 is "é").

    A chunk ends before an ASCII character, which nothing before it composes with
    or reorders across: chunk by chunk is the whole text's NFKC, and the budget is
    checked between chunks. For texts that are only searched, never pointed into.
    """
    if text.isascii():
        return text
    pieces = []
    start = 0
    while start < len(text):
        budget.check()
        cut = _ASCII.search(text, min(start + CHUNK_CHARS, len(text)))
        end = len(text) if cut is None else cut.start()
        chunk = text[start:end]
        if _INVISIBLE_RUN.search(chunk) is not None:
            chunk = _INVISIBLE_RUN.sub("", chunk)
        pieces.append(canonical(unicodedata.normalize("NFKC", chunk)))
        start = end
    return "".join(pieces)


# An edit of a text: ``text[start:end]`` becomes ``replacement``, whose character ``i``
# came from the original offset ``origins[i]`` (each one at ``start`` when empty).
Edit = tuple[int, int, str, tuple[int, ...]]


def edited(text: str, edits: list[Edit]) -> MappedText:
    """``text`` with ``edits`` (in order, not overlapping) applied; ``span`` maps back.

    A replaced character points at the original offset its edit gives it (a digit
    read from "four" at the "f"); what follows an edit points past its end.
    """
    if not edits:
        return MappedText(text)
    pieces: list[str] = []
    breaks: list[int] = []
    shifts: list[int] = []
    done = 0
    shift = 0
    for start, end, replacement, origins in edits:
        pieces.append(text[done:start])
        pieces.append(replacement)
        done = end
        at = start - shift
        for i in range(len(replacement)):
            _append(breaks, shifts, at + i, (origins[i] if origins else start) - at - i)
        shift = end - at - len(replacement)
        _append(breaks, shifts, at + len(replacement), shift)
    pieces.append(text[done:])
    return MappedText("".join(pieces), tuple(breaks), tuple(shifts))


def _append(breaks: list[int], shifts: list[int], at: int, shift: int) -> None:
    """A break at ``at``; none where the shift does not change, the later at one offset."""
    if breaks and breaks[-1] == at:
        shifts[-1] = shift
        if shift == (shifts[-2] if len(shifts) > 1 else 0):
            breaks.pop()
            shifts.pop()
    elif shift != (shifts[-1] if shifts else 0):
        breaks.append(at)
        shifts.append(shift)


def compose(outer: MappedText, inner: MappedText) -> MappedText:
    """``outer`` (a rewrite of ``inner.text``) mapping back to what ``inner`` rewrote.

    ``compose(b, a).origin(i) == a.origin(b.origin(i))`` for every offset ``i``: a
    rewrite of a rewrite (markup taken out of a normalised text, spoken digits read
    in it) leads back to the text as stored.
    """
    if not inner.breaks:
        return outer
    if not outer.breaks:
        return MappedText(outer.text, inner.breaks, inner.shifts)
    breaks: list[int] = []
    shifts: list[int] = []
    starts = (0, *outer.breaks)
    ends = (*outer.breaks, sys.maxsize)
    for start, end, shift in zip(starts, ends, (0, *outer.shifts), strict=True):
        # Offsets start..end of outer are start+shift..end+shift of inner, each break
        # of inner among those a break of the composition.
        k = bisect_right(inner.breaks, start + shift)
        _append(breaks, shifts, start, shift + (inner.shifts[k - 1] if k else 0))
        while k < len(inner.breaks) and inner.breaks[k] < end + shift:
            _append(breaks, shifts, inner.breaks[k] - shift, shift + inner.shifts[k])
            k += 1
    return MappedText(outer.text, tuple(breaks), tuple(shifts))
