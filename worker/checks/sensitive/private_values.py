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
from collections.abc import Iterator
from typing import TYPE_CHECKING

import regex

from worker.checks.sensitive.context import DetectorContext

if TYPE_CHECKING:
    from _hashlib import HASH

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
    salted = [(hashlib.sha256(salt.encode("utf-8")), digests) for salt, digests in by_salt.items()]
    words = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
    last_end = -1
    for i, (start, _, first) in enumerate(words):
        ctx.budget.check()
        if start < last_end:
            continue
        runs = [(start, words[i][1], first)]
        for _, next_end, word in words[i + 1 : i + MAX_VALUE_WORDS]:
            runs.append((start, next_end, runs[-1][2] + " " + word))
        # Longest first, so "4111 1111 1111 1111" wins over its first group.
        for run_start, run_end, joined in reversed(runs):
            span = _matching_span(joined, run_start, run_end, salted)
            if span is not None:
                yield span
                last_end = span[1]
                break


def _matching_span(
    joined: str, start: int, end: int, salted: list[tuple[HASH, set[bytes]]]
) -> tuple[int, int] | None:
    """The span of the form of ``joined`` (at ``start:end``) whose digest is a value's."""
    stripped = joined.strip(_PUNCTUATION)
    if len(stripped) < 2:
        return None
    forms = [(joined, start, end)]
    inner_start, inner_end = start, end
    if stripped != joined:
        # Punctuation is stripped inside the first and last word, where offsets agree.
        inner_start = start + len(joined) - len(joined.lstrip(_PUNCTUATION))
        inner_end = end - (len(joined) - len(joined.rstrip(_PUNCTUATION)))
        forms.append((stripped, inner_start, inner_end))
    if _DIGIT.search(stripped):
        compact = stripped.replace(" ", "").replace("-", "")
        if compact != stripped:
            forms.append((compact, inner_start, inner_end))
    for candidate, form_start, form_end in forms:
        data = candidate.encode("utf-8")
        for base, digests in salted:
            digest = base.copy()
            digest.update(data)
            if digest.digest() in digests:
                return form_start, form_end
    return None
