"""``find_private_values``: a value the customer entered privately, repeated word for word.

The context holds only salted SHA-256 digests (``sha256(salt + value)``), so
candidates from the text are hashed and compared. A candidate is a run of 1
to ``MAX_VALUE_WORDS`` whitespace-separated words, joined by single spaces
(so line breaks and double spaces between the words do not matter), as
written and with surrounding punctuation (quotes, brackets, backticks,
``*``...) stripped; when it holds a digit, also without spaces and hyphens
(``4111 1111-1111 1111`` ~ ``4111111111111111``); when it is digit groups between
spaces, dots, slashes or hyphens, also with the groups joined by nothing, a single
space or a hyphen (``555.010.2030``, ``555 / 010 / 2030`` or ``555 - 010 - 2030`` ~
``5550102030``, ``555 010 2030`` or ``555-010-2030``; a lone dot is a decimal point:
``48.21`` is not ``4821``). A run may also begin just after, or end just before, a
separator inside a word (``: = & / ? ( )`` and the like; not ``- _ @ + '``, nor a
dot between letters or digits or a comma between digits): ``PIN:0417.``,
``?token=R7QK-22LP``, ``answer=Maple Street``.

The value in another letter case (``JOHN`` for ``john``) counts only when the
producer also sent ``sha256_casefold``, the digest of the case-folded value.

Does not count: the value in another spelling or grouping than these
(``41111111 11111111`` for ``4111 1111 1111 1111``). Nor part of a word (``0417`` in
``904172``, in ``$4.17`` or in ``04.17``), a run cut inside both its first and its
last word, values longer than ``MAX_VALUE_WORDS`` words (but for a number of up to
``MAX_SPREAD_GROUPS`` digit groups, ``4111 - 1111 - 1111 - 1111``), and candidates
shorter than two characters. Candidates are never logged or kept.

A long text is read in windows of ``WINDOW_WORDS`` words, each with the
``MAX_VALUE_WORDS - 1`` words before and after it as context, so every run
that starts in a window is whole in it; the budget is checked between
windows and inside them. A message of up to ``ONE_WINDOW_CHARS`` is one window.

With the ``turncheck_native`` extension installed (``native``), hashing and
cutting a long text into windows run in it, with the same results as the
pure-Python reference here and in ``private_hashes``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress, count
from operator import itemgetter

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.context import DetectorContext
from turncheck.worker.checks.sensitive.native import NATIVE
from turncheck.worker.checks.sensitive.private_forms import (
    DIGIT,
    MAX_VALUE_WORDS,
    PUNCTUATION,
    WORD,
    grouped,
    pieces,
    spread_numbers,
)
from turncheck.worker.checks.sensitive.private_hashes import Digests, native_hits, pure_hits
from turncheck.worker.checks.sensitive.spans import merged
from turncheck.worker.turns.structs import PrivateValue

ONE_WINDOW_CHARS = 8_192
WINDOW_WORDS = 1_024
_CONTEXT_WORDS = MAX_VALUE_WORDS - 1
_VALUES_PER_CHECK = 4_096

native = NATIVE
"""The extension this module runs on, or ``None`` for the pure-Python reference."""


@dataclass(frozen=True, slots=True)
class _Window:
    """Words ``first`` to ``first + count - 1`` of ``text``, ``text[start:end]``, are its own;
    ``text`` is the whole text's ``text[offset:]`` up to the end of the context after."""

    text: str
    offset: int
    first: int
    count: int
    start: int
    end: int


def find_private_values(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each run of words whose salted digest is a private value."""
    if not ctx.private_values:
        return
    by_salt, folded_by_salt = _digests(ctx.private_values, ctx.budget)
    spans: list[tuple[int, int]] = []
    last_end = -1  # the end of the last run found: a run starting inside it is not tried
    for window in _windows(text, ctx.budget):
        last_end = _find_in(window, by_salt, folded_by_salt, ctx.budget, spans, last_end)
    yield from merged(spans)


def _digests(values: tuple[PrivateValue, ...], budget: Budget) -> tuple[Digests, Digests]:
    """The digests by salt, exact and case-folded: one hash per salt, not per value (values
    entered together often share a salt)."""
    by_salt: Digests = {}
    folded_by_salt: Digests = {}
    for seen, value in enumerate(values):
        if not seen % _VALUES_PER_CHECK:
            budget.check()
        by_salt.setdefault(value.salt, set()).add(bytes.fromhex(value.sha256))
        if value.sha256_casefold:
            folded_by_salt.setdefault(value.salt, set()).add(bytes.fromhex(value.sha256_casefold))
    return by_salt, folded_by_salt


def _windows(text: str, budget: Budget) -> Iterator[_Window]:
    if len(text) <= ONE_WINDOW_CHARS:
        yield _Window(text, 0, 0, len(text), 0, len(text))
        return
    for lo, hi, first, words, own_start, own_end in _bounds(text, budget):
        budget.check()
        yield _Window(text[lo:hi], lo, first, words, own_start, own_end)


def _bounds(text: str, budget: Budget) -> list[tuple[int, int, int, int, int, int]]:
    """``(lo, hi, first, count, own_start, own_end)`` of each window of ``text``."""
    if native is not None:
        budget.check()  # the extension splits a megabyte in about a millisecond
        return native.word_windows(text, WINDOW_WORDS, _CONTEXT_WORDS)
    words = [m.span() for m in scan.finditer(WORD, text, budget)]
    bounds = []
    for first in range(0, len(words), WINDOW_WORDS):
        last = min(first + WINDOW_WORDS, len(words))
        before = max(0, first - _CONTEXT_WORDS)
        lo, hi = words[before][0], words[min(len(words), last + _CONTEXT_WORDS) - 1][1]
        own_start, own_end = words[first][0] - lo, words[last - 1][1] - lo
        bounds.append((lo, hi, first - before, last - first, own_start, own_end))
    return bounds


def _find_in(
    window: _Window,
    by_salt: Digests,
    folded_by_salt: Digests,
    budget: Budget,
    spans: list[tuple[int, int]],
    last_end: int,
) -> int:
    """Add the spans of the runs that start in ``window`` to ``spans``; the new ``last_end``."""
    text, offset = window.text, window.offset
    cut = pieces(text, (window.start, window.end, window.first), budget)
    cut += spread_numbers(text, window.start, window.end, budget)
    # Hashing is the cost: each form is hashed once per salt, up front, and the
    # search below compares forms with the few that hit.
    form_hits = pure_hits if native is None else native_hits
    hits = form_hits(text, [form for form, _, _ in cut], by_salt, folded_by_salt, budget)
    if not hits:
        return last_end
    spans.extend((start + offset, end + offset) for form, start, end in cut if form in hits)
    tokens = WORD.findall(text)
    starts = possible_starts(hits, tokens)
    words = [m.span() for m in WORD.finditer(text)] if starts else []
    own = range(window.first, window.first + window.count)
    for i in starts:
        budget.check()
        if i not in own or words[i][0] + offset < last_end:
            continue
        # Longest first, so "4111 1111 1111 1111" wins over its first group.
        for k in range(min(MAX_VALUE_WORDS, len(words) - i), 0, -1):
            joined = " ".join(tokens[i : i + k])
            span = _matching_span(joined, words[i][0], words[i + k - 1][1], hits)
            if span is not None:
                spans.append((span[0] + offset, span[1] + offset))
                last_end = span[1] + offset
                break
    return last_end


def possible_starts(hits: set[str], tokens: list[str]) -> list[int]:
    """The words that may start a run with a form in ``hits`` (as ``_matching_span`` reads
    them), in order: a superset, found without building every run's forms.

    Every form of a run (stripped of ``PUNCTUATION``, without spaces and hyphens, its digit
    groups rejoined) drops or swaps only characters that are not letters or digits, so it
    has the run's letters and digits in order; a hit's run therefore starts with a word
    whose letters and digits begin the hit's (none at all: any hit's).
    """
    keys = {_letters_and_digits(hit) for hit in hits}
    firsts = {key[0] for key in keys if key}
    # Most words start with a letter that starts no hit: ruled out by their first
    # character alone, at C speed.
    heads = set(map(itemgetter(0), tokens))
    allowed = {c for c in heads if c in firsts or not c.isalnum()}
    maybe = compress(count(), map(allowed.__contains__, map(itemgetter(0), tokens)))
    return [i for i in maybe if any(k.startswith(_letters_and_digits(tokens[i])) for k in keys)]


def _letters_and_digits(text: str) -> str:
    return "".join(filter(str.isalnum, text))


def _matching_span(joined: str, start: int, end: int, hits: set[str]) -> tuple[int, int] | None:
    """The span of the first form of ``joined`` (at ``start:end``) in ``hits``."""
    stripped = joined.strip(PUNCTUATION)
    if len(stripped) < 2:
        return None
    if joined in hits:
        return start, end
    # Punctuation is stripped inside the first and last word, where offsets agree.
    inner_start = start + len(joined) - len(joined.lstrip(PUNCTUATION))
    inner_end = end - (len(joined) - len(joined.rstrip(PUNCTUATION)))
    if stripped != joined and stripped in hits:
        return inner_start, inner_end
    if DIGIT.search(stripped):
        compact = stripped.replace(" ", "").replace("-", "")
        if compact != stripped and compact in hits:
            return inner_start, inner_end
        if not hits.isdisjoint(grouped(stripped)):
            return inner_start, inner_end
    return None
