"""Which candidate forms of a window's words have one of the private values' digests.

Hashing is ``private_values``' cost: every run of up to ``MAX_VALUE_WORDS``
words gives up to three forms, each hashed once per salt. Two implementations
keep one contract and give the same set of forms (a differential test holds
them to it):

- ``pure_hits``, the reference, in Python with ``hashlib``;
- ``native_hits``, in the ``turncheck_native`` extension, several times
  faster; it hashes bounded chunks without the GIL and the budget is checked
  between them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from itertools import repeat

from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.sensitive.native import NATIVE
from turncheck.worker.checks.sensitive.private_forms import (
    MAX_VALUE_WORDS,
    PUNCTUATION,
    WORD,
    distinct_forms,
    runs_of,
    with_digits,
)

Digests = dict[str, set[bytes]]
"""Digests (32 bytes each) by salt."""

FormHits = Callable[[str, list[str], Digests, Digests, Budget], set[str]]
"""``(text, cut, by_salt, folded_by_salt, budget)``: the forms with a digest of their salt.

The forms are the runs of ``text``'s words and ``cut``, the pieces cut at
separators inside words (``private_forms.pieces``); a form counts for
``folded_by_salt`` when its case-folded text has the digest.
"""

HASHES_PER_CHECK = 4_096


def pure_hits(
    text: str, cut: list[str], by_salt: Digests, folded_by_salt: Digests, budget: Budget
) -> set[str]:
    tokens = WORD.findall(text)
    runs = runs_of(tokens)
    stripped = [list(map(str.strip, run, repeat(PUNCTUATION))) for run in runs]
    forms = distinct_forms(runs, stripped, with_digits(tokens, stripped), cut)
    hits = _hashed(forms, by_salt, budget)
    if folded_by_salt:
        hits |= _hashed(forms, folded_by_salt, budget, fold=True)
    return hits


def _hashed(forms: list[str], by_salt: Digests, budget: Budget, fold: bool = False) -> set[str]:
    """Which forms (case-folded first, with ``fold``) have one of the digests."""
    encoded = [(form.casefold() if fold else form).encode("utf-8") for form in forms]
    found: set[str] = set()
    for salt, digests in by_salt.items():
        # Copying the salted state is cheaper than a new hash of salt + form.
        copy = hashlib.sha256(salt.encode("utf-8")).copy
        for first in range(0, len(forms), HASHES_PER_CHECK):
            budget.check()
            last = first + HASHES_PER_CHECK
            for form, data in zip(forms[first:last], encoded[first:last], strict=True):
                digest = copy()
                digest.update(data)
                if digest.digest() in digests:
                    found.add(form)
    return found


def native_hits(
    text: str, cut: list[str], by_salt: Digests, folded_by_salt: Digests, budget: Budget
) -> set[str]:
    """``pure_hits`` in the extension; raises ``RuntimeError`` when it is not installed."""
    if NATIVE is None:
        raise RuntimeError("turncheck_native is not installed")
    salts = [
        (salt.encode("utf-8"), list(by_salt.get(salt, ())), list(folded_by_salt.get(salt, ())))
        for salt in by_salt.keys() | folded_by_salt.keys()
    ]
    # Python's case folding is the reference; the extension hashes what it is given.
    folded = (text.casefold(), [form.casefold() for form in cut]) if folded_by_salt else None
    forms = NATIVE.forms(text, cut, salts, PUNCTUATION, MAX_VALUE_WORDS, folded)
    found: set[str] = set()
    at, end = 0, len(forms)
    while at < end:
        budget.check()
        hits, at = forms.hits(at)
        found.update(hits)
    return found
