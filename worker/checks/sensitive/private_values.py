"""``find_private_values``: a value the customer entered privately, repeated word for word.

The context holds only salted SHA-256 digests (``sha256(salt + value)``), so
candidates from the text are hashed and compared. A candidate is a run of 1
to ``MAX_VALUE_WORDS`` whitespace-separated words, joined by single spaces
(so line breaks and double spaces between the words do not matter), as
written and with surrounding punctuation stripped; when it holds a digit,
also without spaces and hyphens (``4111 1111-1111 1111`` ~ ``4111111111111111``).

Does not count: the value in another case, spelling or grouping than these
(``JOHN`` for ``john``, ``41111111 11111111``), part of a word, values longer
than ``MAX_VALUE_WORDS`` words, and candidates shorter than two characters.
Candidates are never logged or kept.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress, count, repeat

import regex

from worker.checks.sensitive.context import DetectorContext

MAX_VALUE_WORDS = 6
"""Longest value looked for, in words: enough for a name, phone, card or street address."""

_WORD = regex.compile(r"\S+")
_PUNCTUATION = ".,;:!?\"'()[]{}<>«»“”‘’*"  # noqa: RUF001 -- typographic quotes on purpose
_DIGIT = regex.compile(r"[0-9]")


def find_private_values(text: str, ctx: DetectorContext) -> Iterator[tuple[int, int]]:
    """Yield ``(start, end)`` of each run of words whose salted digest is a private value."""
    if not ctx.private_values:
        return
    # One hash per salt, not per value: values entered together often share a salt.
    by_salt: dict[str, set[bytes]] = {}
    for value in ctx.private_values:
        by_salt.setdefault(value.salt, set()).add(bytes.fromhex(value.sha256))
    tokens = _WORD.findall(text)
    runs = _runs(tokens)
    stripped = [list(map(str.strip, run, repeat(_PUNCTUATION))) for run in runs]
    # Hashing is the cost: each distinct form is hashed once per salt, up front,
    # and the search below compares forms with the few that hit.
    hits = _hits(runs, stripped, _with_digits(tokens, stripped), by_salt, ctx)
    if not hits:
        return
    words = [m.span() for m in _WORD.finditer(text)]
    last_end = -1
    for i in _starts(hits, runs, stripped):
        ctx.budget.check()
        if words[i][0] < last_end:
            continue
        # Longest first, so "4111 1111 1111 1111" wins over its first group.
        for k in range(min(MAX_VALUE_WORDS, len(words) - i), 0, -1):
            span = _matching_span(runs[k - 1][i], words[i][0], words[i + k - 1][1], hits)
            if span is not None:
                yield span
                last_end = span[1]
                break


def _runs(tokens: list[str]) -> list[list[str]]:
    """``runs[k - 1][i]``: words ``i`` to ``i + k - 1`` joined by single spaces."""
    flat = " ".join(tokens)
    # Where each word starts and ends in ``flat``: a run is then one slice, not a join.
    starts = list(accumulate((len(t) + 1 for t in tokens), initial=0))
    ends = [start - 1 for start in starts[1:]]
    return [
        list(map(flat.__getitem__, map(slice, starts, ends[k - 1 :])))
        for k in range(1, min(MAX_VALUE_WORDS, len(tokens)) + 1)
    ]


def _with_digits(tokens: list[str], stripped: list[list[str]]) -> list[str]:
    """The stripped runs that hold a digit: those over a word with one."""
    # Digits before each word: a run holds one where the count rises over it.
    before = list(accumulate(map(bool, map(_DIGIT.search, tokens)), initial=0))
    return [
        form
        for k, bare in enumerate(stripped, 1)
        for form in compress(bare, map(int.__lt__, before, before[k:]))
    ]


def _compact(forms: Iterable[str]) -> list[str]:
    return [form.replace(" ", "").replace("-", "") for form in forms]


def _hits(
    runs: list[list[str]],
    stripped: list[list[str]],
    with_digits: list[str],
    by_salt: dict[str, set[bytes]],
    ctx: DetectorContext,
) -> set[str]:
    """Which forms of the runs (as written, stripped, compact) have a value's digest."""
    distinct: set[str] = set()
    for joined, bare in zip(runs, stripped, strict=True):
        distinct.update(joined, bare)
    distinct.update(_compact(with_digits))
    forms = list(distinct)
    encoded = [form.encode("utf-8") for form in forms]
    found: set[str] = set()
    for salt, digests in by_salt.items():
        ctx.budget.check()
        # Copying the salted state is cheaper than a new hash of salt + form.
        copy = hashlib.sha256(salt.encode("utf-8")).copy
        for form, data in zip(forms, encoded, strict=True):
            digest = copy()
            digest.update(data)
            if digest.digest() in digests:
                found.add(form)
    return found


def _starts(hits: set[str], runs: list[list[str]], stripped: list[list[str]]) -> list[int]:
    """The words that start a run with a form in ``hits``; no other word can start a finding."""
    starts: set[int] = set()
    for joined, bare in zip(runs, stripped, strict=True):
        for forms in (joined, bare, _compact(bare)):
            starts.update(compress(count(), map(hits.__contains__, forms)))
    return sorted(starts)


def _matching_span(joined: str, start: int, end: int, hits: set[str]) -> tuple[int, int] | None:
    """The span of the first form of ``joined`` (at ``start:end``) in ``hits``."""
    stripped = joined.strip(_PUNCTUATION)
    if len(stripped) < 2:
        return None
    if joined in hits:
        return start, end
    # Punctuation is stripped inside the first and last word, where offsets agree.
    inner_start = start + len(joined) - len(joined.lstrip(_PUNCTUATION))
    inner_end = end - (len(joined) - len(joined.rstrip(_PUNCTUATION)))
    if stripped != joined and stripped in hits:
        return inner_start, inner_end
    if _DIGIT.search(stripped):
        compact = stripped.replace(" ", "").replace("-", "")
        if compact != stripped and compact in hits:
            return inner_start, inner_end
    return None
