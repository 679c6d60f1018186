"""``find_instructions_leak``: a long passage copied from the agent's instructions.

Counts: a stretch of the text that copies ``ctx.instructions_leak_words``
(default 12) or more consecutive words of ``ctx.instructions``, compared
case-insensitively word by word (a word is a run of letters and digits, so
punctuation and spacing between words do not matter), through markup and
small edits:

* markup is read as the reader sees it (``markup.plain``, on the text and the
  instructions alike): HTML tags, emphasis, link targets and list numbers add
  or hide no words;
* a word changed, inserted or dropped here and there still counts, up to one
  edit per six words copied, with at least three words matching exactly
  between two edits (``copies``).

The span runs from the first copied word to the last; overlapping and
touching copies are merged into one.

Does not count: shorter copies, paraphrases, reordered words, anything when the
instructions are empty, and what the instructions share with the knowledge
given to the agent (``ctx.knowledge``, e.g. a public policy the prompt repeats):
the agent may quote that. A sentence of the instructions that stands in a
passage of knowledge, or a run of instructions words at least as long as a leak
that does, is public; a leak must copy enough words of the rest.

Cost: with gates on (Hyperscan), most texts hold no anchor of a copy and
cost one scan (``leak_gate``); the others share no long stretch with the
instructions and cost two C-speed passes (their words, and their words
against the instructions' vocabulary). The knowledge is read only when the
text holds a copy without it, once per turn and within the budget.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import lru_cache

from turncheck.worker.checks import markup, scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive import copies, leak_gate
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.textmap import normalize

# Instructions up to this long are indexed once and kept (they are the same turn after
# turn); longer ones, an attack more than a prompt, are indexed within the budget.
_CACHED_CHARS = 32_768
# What the instructions share with the knowledge of the last few turns: the same turn
# asks once per text it reads.
_PUBLIC_KEPT = 4
# What the knowledge must copy of the instructions to share it: two words in a row are
# chance ("the customer"); four are a sentence's fragment.
_SHARED_MIN_WORDS = 4
# Sentences of the instructions compared with the knowledge between two budget checks.
_CHECK_EVERY = 1024
_public_memo: dict[tuple[str, tuple[str, ...], int], frozenset[int]] = {}
_public_lock = threading.Lock()


def _build_index(instructions: str, n: int, budget: Budget) -> copies.IndexedText:
    # Anchors short enough for the leak's copies and for the knowledge's shared ones.
    anchor = min(copies.anchor_words(n), copies.anchor_words(_SHARED_MIN_WORDS))
    return copies.index(markup.plain(instructions, budget).text, anchor, budget)


@lru_cache(maxsize=64)
def _cached_index(instructions: str, n: int) -> copies.IndexedText:
    return _build_index(instructions, n, Budget.unlimited())


def _index(instructions: str, n: int, budget: Budget) -> copies.IndexedText:
    if len(instructions) <= _CACHED_CHARS:
        return _cached_index(instructions, n)
    return _build_index(instructions, n, budget)


def find_instructions_leak(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each passage of at least n words copied from the instructions."""
    if not ctx.instructions:
        return
    budget = ctx.budget
    n = max(1, ctx.instructions_leak_words)
    source = _index(ctx.instructions, n, budget)
    view = markup.plain(text, budget)
    if ctx.gated and not leak_gate.may_copy(view.text, ctx.instructions, n, source):
        return
    # Offsets are only needed when something was copied: find the words without them first.
    words = copies.words_of(view.text, budget)
    found = _copies(words, source, n, ctx)
    if not found:
        return
    matches = list(scan.finditer(copies.WORD, view.text, budget))
    if len(matches) != len(words):  # case folding split or joined a word: redo per word
        found = _copies([match.group().casefold() for match in matches], source, n, ctx)
    for first, last in _merged(found):
        yield view.span(matches[first].start(), matches[last].end())


def _copies(
    words: list[str], source: copies.IndexedText, n: int, ctx: DetectorContext
) -> list[copies.Copy]:
    """The copies of at least n words, of the instructions' words the knowledge lacks."""
    found = copies.find(words, source, n, ctx.budget)
    if found and ctx.knowledge:
        public = _public(ctx.instructions, ctx.knowledge, n, source, ctx.budget)
        if public:
            found = copies.find(words, source, n, ctx.budget, public)
    return found


def _merged(found: list[copies.Copy]) -> list[tuple[int, int]]:
    """``(first, last)`` word indices of the copies, overlapping and touching ones merged."""
    merged: list[tuple[int, int]] = []
    for copy in sorted(found, key=lambda c: c.first):
        if merged and copy.first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], copy.last))
        else:
            merged.append((copy.first, copy.last))
    return merged


def _public(
    instructions: str,
    knowledge: tuple[str, ...],
    n: int,
    source: copies.IndexedText,
    budget: Budget,
) -> frozenset[int]:
    """Indices of the instructions' words that the knowledge holds too (see the module)."""
    key = (instructions, knowledge, n)
    with _public_lock:
        known = _public_memo.get(key)
    if known is None:
        known = _shared(knowledge, n, source, budget)
        with _public_lock:
            while len(_public_memo) >= _PUBLIC_KEPT:
                del _public_memo[next(iter(_public_memo))]
            _public_memo[key] = known
    return known


def _shared(
    knowledge: tuple[str, ...], n: int, source: copies.IndexedText, budget: Budget
) -> frozenset[int]:
    covered: set[int] = set()
    for passage in knowledge:
        budget.check()
        plain = markup.plain(normalize(passage, budget).text, budget).text
        words = copies.words_of(plain, budget)
        for copy in copies.find(words, source, _SHARED_MIN_WORDS, budget):
            covered.update(range(copy.source_first, copy.source_last + 1))
    if not covered:
        return frozenset()
    public: set[int] = set()
    # A sentence the knowledge holds but for an edit at either end, as a copy allows.
    for k, (first, end) in enumerate(source.sentences):
        if k % _CHECK_EVERY == 0:
            budget.check()
        size = end - first
        allowed = max(1, size // copies.EDIT_EVERY_WORDS)
        if (
            size >= _SHARED_MIN_WORDS
            and size - len(covered.intersection(range(first, end))) <= allowed
        ):
            public.update(range(first, end))
    # A run the knowledge holds that is as long as a leak, sentences or not.
    runs: list[list[int]] = []  # [first, last] of each run of covered words
    for j in sorted(covered):
        if runs and j == runs[-1][1] + 1:
            runs[-1][1] = j
        else:
            runs.append([j, j])
    for first, last in runs:
        if last - first + 1 >= n:
            public.update(range(first, last + 1))
    return frozenset(public)
