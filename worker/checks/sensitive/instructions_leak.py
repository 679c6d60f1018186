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

from turncheck.worker.checks.sensitive.context import DetectorContext

_WORD = regex.compile(r"[\p{L}\p{M}0-9]+")


@lru_cache(maxsize=64)
def _index(instructions: str, n: int) -> tuple[frozenset[str], frozenset[tuple[str, ...]]]:
    """The instructions' words and every run of ``n`` consecutive words, case-folded."""
    words = [word.casefold() for word in _WORD.findall(instructions)]
    runs = frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return frozenset(words), runs


def find_instructions_leak(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each run of at least n words copied from the instructions."""
    if not ctx.instructions:
        return
    n = max(1, ctx.instructions_leak_words)
    vocabulary, runs = _index(ctx.instructions, n)
    if not runs:
        return
    # Offsets are only needed when something was copied: find the words without them first.
    words = _WORD.findall(text.casefold())
    copied = _copied_runs(words, vocabulary, runs, n)
    if not copied:
        return
    matches = list(_WORD.finditer(text))
    if len(matches) != len(words):  # case folding split or joined a word: redo per word
        words = [match.group().casefold() for match in matches]
        copied = _copied_runs(words, vocabulary, runs, n)
    for first, last in copied:
        yield matches[first].start(), matches[last].end()


def _copied_runs(
    words: list[str], vocabulary: frozenset[str], runs: frozenset[tuple[str, ...]], n: int
) -> list[tuple[int, int]]:
    """``(first, last)`` word indices of each copied run, overlapping windows merged."""
    found: list[tuple[int, int]] = []
    known = 0  # how many words up to here stand in the instructions, without a break
    for i, word in enumerate(words):
        known = known + 1 if word in vocabulary else 0
        # Only a window of n known words can be a copied run: test just those.
        first = i - n + 1
        if known < n or tuple(words[first : i + 1]) not in runs:
            continue
        if found and first <= found[-1][1] + 1:
            found[-1] = (found[-1][0], i)
        else:
            found.append((first, i))
    return found
