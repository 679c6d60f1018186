"""Runs of words copied from a source text, found through small edits.

A copy is a stretch of the text that follows the source word by word, in
order, where each ``EDIT_EVERY_WORDS`` source words allow one edit: a word
changed, inserted or dropped (two words at most in one place: "e-mail" for
"email", "do not" for "don't"). After an edit the text matches the source
exactly again for at least ``SEED_WORDS`` words. A number is never edited: a
copy that states another number, or leaves one out, says something else. Nor
is "you" put in place of the source's words ("transfer you" for "transfer
them"): that is the agent doing what it was told, for the person it speaks
to. Words are runs of letters and digits compared case-folded, so punctuation
and spacing never count as edits.

How (seed and extend): a copy of at least m source words holds an exact run of
``anchor_words(m)`` words (4 for m = 12: edits are few, so one piece between
them is long). The source is indexed once as a table from each run of that
many words to where it stands. A cheap pass over the text keeps only stretches
that could hold a copy (enough words of the source's vocabulary, few others
between them) and, in them, the runs of vocabulary words long enough for an
anchor: most texts have none and cost two C-speed passes. From each anchor the
copy is extended both ways, past one edit at a time, as long as the text goes
on following the source; then the runs of its pieces that span enough source
words for their edits count.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget

WORD = regex.compile(r"[\p{L}\p{M}0-9]+")
# The same words in an ASCII text, where the standard engine finds them twice as fast.
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
SEED_WORDS = 2
MAX_GAP_WORDS = 2
EDIT_EVERY_WORDS = 6
# Where a sentence ends between two words: its mark and a space, or a new line.
_SENTENCE_END = re.compile(r"[.!?;][\s\"')\]]|\n")
# The text's words as bytes, 1 for a word of the source's vocabulary: a stretch
# of such words with gaps of at most MAX_GAP_WORDS others could hold a copy.
_STRETCH = re.compile(rb"\x01(?:\x01|\x00{1,%d}(?=\x01))*" % MAX_GAP_WORDS)
_DIGIT = re.compile("[0-9]")
_ADDRESS = frozenset({"you", "your", "yours", "yourself", "yourselves"})
# Exact words looked at ahead of each possible edit, to pick the best one.
_LOOKAHEAD_WORDS = 8
# The copy search checks the budget once per so many anchors or extension steps.
_CHECK_EVERY = 1024


@dataclass(frozen=True, slots=True)
class IndexedText:
    """A text indexed for ``find``: its case-folded words, and where each anchor stands."""

    words: tuple[str, ...]
    vocabulary: frozenset[str]
    anchors: dict[tuple[str, ...], tuple[int, ...]]
    anchor_words: int
    sentences: tuple[tuple[int, int], ...]
    """``(first, end)`` word indices of each sentence."""


@dataclass(frozen=True, slots=True)
class Copy:
    """Words ``first..last`` of the text copy source words ``source_first..source_last``."""

    first: int
    last: int
    source_first: int
    source_last: int


def anchor_words(min_words: int) -> int:
    """The exact run every copy spanning at least ``min_words`` source words holds."""

    def longest_piece(span: int) -> int:  # at least, with as many edits as span allows
        edits = span // EDIT_EVERY_WORDS
        return -(-(span - edits) // (edits + 1))

    # The bound grows with the span but for steps at each multiple of EDIT_EVERY_WORDS.
    spans = range(max(1, min_words), max(1, min_words) + 2 * EDIT_EVERY_WORDS)
    return max(1, min(longest_piece(span) for span in spans))


def words_of(text: str, budget: Budget) -> list[str]:
    """The case-folded words of ``text``, as ``find`` reads them."""
    if text.isascii():
        return scan.findall(_ASCII_WORD, text.lower(), budget)
    return scan.findall(WORD, text.casefold(), budget)


def index(text: str, anchor: int, budget: Budget) -> IndexedText:
    """``text`` indexed for copies of at least m words, for every m whose
    ``anchor_words(m)`` is ``anchor`` or more."""
    matches = list(scan.finditer(WORD, text, budget))
    words = tuple(match.group().casefold() for match in matches)
    table: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for j in range(len(words) - anchor + 1):
        if j % _CHECK_EVERY == 0:
            budget.check()
        table[words[j : j + anchor]].append(j)
    starts = [0]
    for j in range(1, len(matches)):
        if _SENTENCE_END.search(text, matches[j - 1].end(), matches[j].start()):
            starts.append(j)
    sentences = tuple(zip(starts, [*starts[1:], len(words)], strict=True)) if words else ()
    anchors = {key: tuple(at) for key, at in table.items()}
    return IndexedText(words, frozenset(words), anchors, anchor, sentences)


def find(
    words: Sequence[str],
    source: IndexedText,
    min_words: int,
    budget: Budget,
    excluded: frozenset[int] = frozenset(),
) -> list[Copy]:
    """Each copy in ``words`` spanning at least ``min_words`` source words, none of them in
    ``excluded`` (source word indices). Copies may overlap; their order is the text's."""
    a = source.anchor_words
    if a > anchor_words(min_words):
        raise ValueError("the source's anchors are too long for copies this short")
    if len(source.words) < a:
        return []
    flags = bytes(map(source.vocabulary.__contains__, words))
    fewest_known = min_words - min_words // EDIT_EVERY_WORDS
    anchor_runs = re.compile(rb"\x01{%d,}" % a)
    seen: set[tuple[int, int]] = set()  # (text word, diagonal) inside a copy followed
    found: list[Copy] = []
    tried = 0
    for stretch in _STRETCH.finditer(flags):
        if stretch.group().count(1) < fewest_known:
            continue
        for run in anchor_runs.finditer(flags, stretch.start(), stretch.end()):
            for i in range(run.start(), run.end() - a + 1):
                for j in source.anchors.get(tuple(words[i : i + a]), ()):
                    tried += 1
                    if tried % _CHECK_EVERY == 0:
                        budget.check()
                    if (i, j - i) in seen or not excluded.isdisjoint(range(j, j + a)):
                        continue
                    pieces = _extend(words, source, i, j, excluded, budget)
                    for i0, j0, length in pieces:
                        seen.update((t, j0 - i0) for t in range(i0, i0 + length))
                    found.extend(_counted(pieces, min_words))
    found.sort(key=lambda copy: copy.first)
    return found


# A piece of a copy: its text start, source start and length, in words.
_Piece = tuple[int, int, int]


def _extend(
    words: Sequence[str],
    source: IndexedText,
    i: int,
    j: int,
    excluded: frozenset[int],
    budget: Budget,
) -> list[_Piece]:
    """The pieces of the copy through the exact match at text word i, source word j."""
    src = source.words
    back = _exact(words, src, i, j, -1, len(words), excluded)
    ahead = _exact(words, src, i, j, 1, len(words), excluded)
    pieces = [(i - back, j - back, back + ahead)]
    for step in (1, -1):
        steps = 0
        while True:
            steps += 1
            if steps % _CHECK_EVERY == 0:
                budget.check()
            i0, j0, length = pieces[-1] if step > 0 else pieces[0]
            # Where the text and the source are, just past the copy's end (or before its start).
            t, s = (i0 + length, j0 + length) if step > 0 else (i0, j0)
            nxt = _next_piece(words, src, t, s, step, excluded)
            if nxt is None:
                break
            if step > 0:
                pieces.append(nxt)
            else:
                pieces.insert(0, nxt)
    return pieces


def _next_piece(
    words: Sequence[str],
    src: Sequence[str],
    t: int,
    s: int,
    step: int,
    excluded: frozenset[int],
) -> _Piece | None:
    """The piece past one edit from text word t, source word s (going by ``step``) that
    matches longest for the edit's size, or None."""
    best: tuple[int, int, int, int] | None = None  # score, gap in text, gap in source, length
    for gap_t in range(MAX_GAP_WORDS + 1):
        for gap_s in range(MAX_GAP_WORDS + 1):
            if not gap_t and not gap_s:
                continue
            # The edit's words: put in (text) and left out (source).
            if step > 0:
                put_in, left_out = words[t : t + gap_t], src[s : s + gap_s]
                at_t, at_s = t + gap_t, s + gap_s
            else:
                put_in, left_out = words[t - gap_t : t], src[s - gap_s : s]
                at_t, at_s = t - gap_t, s - gap_s
            if len(put_in) < gap_t or len(left_out) < gap_s or at_t < 0 or at_s < 0:
                continue
            length = _exact(words, src, at_t, at_s, step, _LOOKAHEAD_WORDS, excluded)
            if length < SEED_WORDS or _changes_meaning(put_in, left_out):
                continue
            if not excluded.isdisjoint(range(s, at_s) if step > 0 else range(at_s, s)):
                continue
            score = length - max(gap_t, gap_s)
            if best is None or score > best[0]:
                best = (score, gap_t, gap_s, length)
    if best is None:
        return None
    _, gap_t, gap_s, _ = best
    if step > 0:
        at_t, at_s = t + gap_t, s + gap_s
        length = _exact(words, src, at_t, at_s, 1, len(words), excluded)
        return at_t, at_s, length
    at_t, at_s = t - gap_t, s - gap_s
    length = _exact(words, src, at_t, at_s, -1, len(words), excluded)
    return at_t - length, at_s - length, length


def _exact(
    words: Sequence[str],
    src: Sequence[str],
    t: int,
    s: int,
    step: int,
    limit: int,
    excluded: frozenset[int],
) -> int:
    """How many words match exactly from text word t and source word s on (``step`` 1), or
    before them (``step`` -1), up to ``limit``, none of them excluded."""
    count = 0
    if step > 0:
        while (
            count < limit
            and t + count < len(words)
            and s + count < len(src)
            and words[t + count] == src[s + count]
            and s + count not in excluded
        ):
            count += 1
    else:
        while (
            count < limit
            and t - count > 0
            and s - count > 0
            and words[t - count - 1] == src[s - count - 1]
            and s - count - 1 not in excluded
        ):
            count += 1
    return count


def _changes_meaning(put_in: Sequence[str], left_out: Sequence[str]) -> bool:
    """Whether an edit says something else, or to someone else, rather than hides a copy."""
    if any(_DIGIT.search(word) for word in (*put_in, *left_out)):
        return True
    # In place of other words only: "asks you to cancel" for "asks to cancel" still copies.
    return bool(left_out) and not _ADDRESS.isdisjoint(put_in) and _ADDRESS.isdisjoint(left_out)


def _counted(pieces: list[_Piece], min_words: int) -> list[Copy]:
    """From each piece on, the longest run of pieces that spans ``min_words`` source words
    with no more edits than it allows, if there is one.

    A run from piece a to b allows it when ``6 * (E[b] - E[a]) <= S[b] - J[a]`` (E: edits
    before a piece, S: source end, J: source start), i.e. ``f(b) <= g(a)`` with
    ``f(b) = 6 * E[b] - S[b]`` and ``g(a) = 6 * E[a] - J[a]``; the minimum of f over each
    suffix never falls, so the last b with ``f(b) <= g(a)`` is a binary search away.
    """
    ends = [(i0 + length, j0 + length) for i0, j0, length in pieces]
    edits = [0]
    for b in range(1, len(pieces)):
        gap = max(pieces[b][0] - ends[b - 1][0], pieces[b][1] - ends[b - 1][1])
        edits.append(edits[-1] + gap)
    suffix_min = [EDIT_EVERY_WORDS * e - end for e, (_, end) in zip(edits, ends, strict=True)]
    for b in range(len(pieces) - 2, -1, -1):
        suffix_min[b] = min(suffix_min[b], suffix_min[b + 1])
    copies = []
    for a, (i0, j0, _) in enumerate(pieces):
        b = bisect_right(suffix_min, EDIT_EVERY_WORDS * edits[a] - j0) - 1
        if ends[b][1] - j0 >= min_words:
            copies.append(Copy(i0, ends[b][0] - 1, j0, ends[b][1] - 1))
    return copies
