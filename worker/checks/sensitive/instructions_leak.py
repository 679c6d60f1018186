"""``find_instructions_leak``: a long run of words copied from the agent's instructions.

Counts: ``ctx.instructions_leak_words`` (default 12) or more consecutive words
of the text that also stand consecutively in ``ctx.instructions``, compared
case-insensitively, word by word (a word is a run of letters and digits, so
punctuation, markup and whitespace between words do not matter). The span
runs from the first copied word to the last; overlapping and touching runs
are merged into one.

Does not count: shorter runs, paraphrases, reordered or skipped words, and
anything when the instructions are empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext

_WORD = regex.compile(r"[\p{L}\p{M}0-9]+")
# Instructions up to this long are indexed once and kept (they are the same turn after
# turn); longer ones, an attack more than a prompt, are indexed within the budget.
_CACHED_CHARS = 32_768
# The copy search checks the budget once per so many words.
_CHECK_EVERY = 4096

_Index = tuple[frozenset[str], frozenset[tuple[str, ...]]]


def _build_index(instructions: str, n: int, budget: Budget) -> _Index:
    """The instructions' words and every run of ``n`` consecutive words, case-folded."""
    words = [word.casefold() for word in scan.findall(_WORD, instructions, budget)]
    runs: set[tuple[str, ...]] = set()
    for first in range(0, len(words) - n + 1, _CHECK_EVERY):
        budget.check()
        last = min(first + _CHECK_EVERY, len(words) - n + 1)
        runs.update(tuple(words[i : i + n]) for i in range(first, last))
    return frozenset(words), frozenset(runs)


@lru_cache(maxsize=64)
def _cached_index(instructions: str, n: int) -> _Index:
    return _build_index(instructions, n, Budget.unlimited())


def _index(instructions: str, n: int, budget: Budget) -> _Index:
    if len(instructions) <= _CACHED_CHARS:
        return _cached_index(instructions, n)
    return _build_index(instructions, n, budget)


def find_instructions_leak(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each run of at least n words copied from the instructions."""
    if not ctx.instructions:
        return
    budget = ctx.budget
    n = max(1, ctx.instructions_leak_words)
    vocabulary, runs = _index(ctx.instructions, n, budget)
    if not runs:
        return
    # Offsets are only needed when something was copied: find the words without them first.
    words = scan.findall(_WORD, text.casefold(), budget)
    copied = _copied_runs(words, vocabulary, runs, n, budget)
    if not copied:
        return
    matches = list(scan.finditer(_WORD, text, budget))
    if len(matches) != len(words):  # case folding split or joined a word: redo per word
        words = [match.group().casefold() for match in matches]
        copied = _copied_runs(words, vocabulary, runs, n, budget)
    for first, last in copied:
        yield matches[first].start(), matches[last].end()


def _copied_runs(
    words: list[str],
    vocabulary: frozenset[str],
    runs: frozenset[tuple[str, ...]],
    n: int,
    budget: Budget,
) -> list[tuple[int, int]]:
    """``(first, last)`` word indices of each copied run, overlapping windows merged."""
    found: list[tuple[int, int]] = []
    known = 0  # how many words up to here stand in the instructions, without a break
    for block in range(0, len(words), _CHECK_EVERY):
        budget.check()
        for i in range(block, min(block + _CHECK_EVERY, len(words))):
            known = known + 1 if words[i] in vocabulary else 0
            # Only a window of n known words can be a copied run: test just those.
            first = i - n + 1
            if known < n or tuple(words[first : i + 1]) not in runs:
                continue
            if found and first <= found[-1][1] + 1:
                found[-1] = (found[-1][0], i)
            else:
                found.append((first, i))
    return found
