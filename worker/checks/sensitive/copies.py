"""Runs of words copied from a source text, found through small edits.

A copy is a stretch of the text that follows the source word by word, in
order, where each ``EDIT_EVERY_WORDS`` source words allow one edit: a word
changed, inserted or dropped (two words at most in one place: "e-mail" for
"email", "do not" for "don't"). Between two edits the text matches the source
exactly for at least ``SEED_WORDS`` words. A number is never edited: a copy
that states another number, or leaves one out, says something else. Nor is
"you" put in place of the source's words ("transfer you" for "transfer them"): that
is the agent doing what it was told, for the person it speaks to. Words are
runs of letters and digits compared case-folded, so punctuation and spacing
never count as edits.

How: the source is indexed once as a table from each ``SEED_WORDS`` words to
where they stand. A cheap pass over the text first keeps only stretches that
could hold a copy (mostly words of the source's vocabulary, see ``_STRETCH``):
most texts have none and cost two C-speed passes. In a stretch, seeds that sit
on the same diagonal (source position minus text position) and follow each
other make an exact segment; segments close enough on both sides chain into a
copy (a dynamic programme over segments in text order), and a chain counts
wherever a run of its segments spans enough source words for its edits.
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
# The copy search checks the budget once per so many words or seeds.
_CHECK_EVERY = 4096


@dataclass(frozen=True, slots=True)
class Source:
    """A text indexed for ``find``: its case-folded words, and where each seed stands."""

    words: tuple[str, ...]
    vocabulary: frozenset[str]
    seeds: dict[tuple[str, ...], tuple[int, ...]]
    sentences: tuple[tuple[int, int], ...]
    """``(first, end)`` word indices of each sentence."""
    seed_words: int


@dataclass(frozen=True, slots=True)
class Copy:
    """Words ``first..last`` of the text copy source words ``source_first..source_last``."""

    first: int
    last: int
    source_first: int
    source_last: int


def words_of(text: str, budget: Budget) -> list[str]:
    """The case-folded words of ``text``, as ``find`` reads them."""
    if text.isascii():
        return scan.findall(_ASCII_WORD, text.lower(), budget)
    return scan.findall(WORD, text.casefold(), budget)


def index(text: str, seed_words: int, budget: Budget) -> Source:
    matches = list(scan.finditer(WORD, text, budget))
    words = tuple(match.group().casefold() for match in matches)
    table: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for first in range(0, len(words) - seed_words + 1, _CHECK_EVERY):
        budget.check()
        for j in range(first, min(first + _CHECK_EVERY, len(words) - seed_words + 1)):
            table[words[j : j + seed_words]].append(j)
    starts = [0]
    for j in range(1, len(matches)):
        if _SENTENCE_END.search(text, matches[j - 1].end(), matches[j].start()):
            starts.append(j)
    sentences = tuple(zip(starts, [*starts[1:], len(words)], strict=True)) if words else ()
    seeds = {key: tuple(at) for key, at in table.items()}
    return Source(words, frozenset(words), seeds, sentences, seed_words)


def find(
    words: Sequence[str],
    source: Source,
    min_words: int,
    budget: Budget,
    excluded: frozenset[int] = frozenset(),
) -> list[Copy]:
    """Each copy in ``words`` spanning at least ``min_words`` source words, none of them in
    ``excluded`` (source word indices). Copies may overlap; their order is the text's."""
    if len(source.words) < source.seed_words:
        return []
    flags = bytes(map(source.vocabulary.__contains__, words))
    fewest_known = min_words - min_words // EDIT_EVERY_WORDS
    copies: list[Copy] = []
    for stretch in _STRETCH.finditer(flags):
        if stretch.group().count(1) >= fewest_known:
            segments = _segments(words, stretch.start(), stretch.end(), source, excluded, budget)
            for chain in _chains(segments, words, source, excluded, budget):
                copies.extend(_counted(chain, source.seed_words, min_words))
    return copies


# A segment: [text start, source start, text start of its last seed].
_Segment = list[int]


def _segments(
    words: Sequence[str],
    start: int,
    end: int,
    source: Source,
    excluded: frozenset[int],
    budget: Budget,
) -> list[_Segment]:
    """Exact runs of at least ``seed_words`` words, in order of their text start."""
    k = source.seed_words
    blocked = {at - back for at in excluded for back in range(k)} if excluded else set()
    growing: dict[int, _Segment] = {}  # by diagonal: the segment that may grow next
    segments: list[_Segment] = []
    for i in range(start, end - k + 1):
        if (i - start) % _CHECK_EVERY == 0:
            budget.check()
        for j in source.seeds.get(tuple(words[i : i + k]), ()):
            if j in blocked:
                continue
            segment = growing.get(j - i)
            if segment is not None and segment[2] == i - 1:
                segment[2] = i
            else:
                growing[j - i] = segment = [i, j, i]
                segments.append(segment)
    return segments


def _chains(
    segments: list[_Segment],
    words: Sequence[str],
    source: Source,
    excluded: frozenset[int],
    budget: Budget,
) -> list[list[_Segment]]:
    """The best chain ending at each segment no other chain goes on from."""
    k = source.seed_words
    best: list[int] = []  # matched words minus edits, of the best chain ending here
    previous: list[int] = []
    by_end: dict[int, list[int]] = defaultdict(list)  # text end -> segments ending there
    for s, (i0, j0, last) in enumerate(segments):
        if s % _CHECK_EVERY == 0:
            budget.check()
        length = last - i0 + k
        score, before = length, -1
        for text_end in range(i0 - MAX_GAP_WORDS, i0 + 1):
            for p in by_end.get(text_end, ()):
                pi0, pj0, plast = segments[p]
                source_end = pj0 + plast - pi0 + k
                gap = j0 - source_end
                if not 0 <= gap <= MAX_GAP_WORDS or (gap == 0 and text_end == i0):
                    continue
                if excluded and not excluded.isdisjoint(range(source_end, j0)):
                    continue
                if _changes_meaning(words[text_end:i0], source.words[source_end:j0]):
                    continue
                linked = best[p] + length - max(gap, i0 - text_end)
                if linked > score:
                    score, before = linked, p
        best.append(score)
        previous.append(before)
        by_end[last + k].append(s)
    continued = set(previous)
    chains = []
    for s in range(len(segments)):
        if s in continued:
            continue
        chain = []
        while s != -1:
            chain.append(segments[s])
            s = previous[s]
        chains.append(chain[::-1])
    return chains


def _changes_meaning(put_in: Sequence[str], left_out: Sequence[str]) -> bool:
    """Whether an edit says something else, or to someone else, rather than hides a copy."""
    if any(_DIGIT.search(word) for word in (*put_in, *left_out)):
        return True
    # In place of other words only: "asks you to cancel" for "asks to cancel" still copies.
    return bool(left_out) and not _ADDRESS.isdisjoint(put_in) and _ADDRESS.isdisjoint(left_out)


def _counted(chain: list[_Segment], k: int, min_words: int) -> list[Copy]:
    """From each segment on, the longest run of segments that spans ``min_words`` source
    words with no more edits than it allows, if there is one.

    A run from segment a to b allows it when ``6 * (E[b] - E[a]) <= S[b] - J[a]`` (E: edits
    before a segment, S: source end, J: source start), i.e. ``f(b) <= g(a)`` with
    ``f(b) = 6 * E[b] - S[b]`` and ``g(a) = 6 * E[a] - J[a]``; the minimum of f over each
    suffix never falls, so the last b with ``f(b) <= g(a)`` is a binary search away.
    """
    ends = [(i0 + last - i0 + k, j0 + last - i0 + k) for i0, j0, last in chain]
    edits = [0]
    for b in range(1, len(chain)):
        gap = max(chain[b][0] - ends[b - 1][0], chain[b][1] - ends[b - 1][1])
        edits.append(edits[-1] + gap)
    suffix_min = [EDIT_EVERY_WORDS * e - end for e, (_, end) in zip(edits, ends, strict=True)]
    for b in range(len(chain) - 2, -1, -1):
        suffix_min[b] = min(suffix_min[b], suffix_min[b + 1])
    copies = []
    for a, (i0, j0, _) in enumerate(chain):
        b = bisect_right(suffix_min, EDIT_EVERY_WORDS * edits[a] - j0) - 1
        if ends[b][1] - j0 >= min_words:
            copies.append(Copy(i0, ends[b][0] - 1, j0, ends[b][1] - 1))
    return copies
