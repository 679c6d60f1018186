"""A pattern tried only where the gates' scan says a match can start.

``matches(pattern, text, budget, starts)`` gives exactly what
``pattern.finditer(text)`` gives, provided every match of ``pattern`` in
``text`` starts at one of ``starts``: the seeds of a pattern (``Seed``,
``gates.detectors``' for the detectors, ``gates.facts``' for ``facts``) are
written so that it does. A scan from the
left tries each position in turn, and resumes after each match; a position
where no match starts finds nothing whether it is tried or not, so trying
the candidates alone, skipping those inside a match, is the same scan. The
pattern still reads the whole text around each candidate (lookbehinds before
it, lookaheads after): the candidates choose where to try, not what is seen.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, overload

import regex

from turncheck.worker.checks import scan
from turncheck.worker.checks.budget import Budget


@overload
def matches(
    pattern: re.Pattern[str], text: str, budget: Budget, starts: Sequence[int] | None
) -> Iterator[re.Match[str]]: ...


@overload
def matches(
    pattern: regex.Pattern[str], text: str, budget: Budget, starts: Sequence[int] | None
) -> Iterator[regex.Match[str]]: ...


def matches(pattern: Any, text: str, budget: Budget, starts: Sequence[int] | None) -> Any:
    """``scan.finditer(pattern, text, budget)``, trying ``pattern`` only at ``starts``
    (ascending) when given: see the module docstring for when that is the same."""
    if starts is None:
        return scan.finditer(pattern, text, budget)
    return _at(pattern, text, budget, starts)


def _at(pattern: Any, text: str, budget: Budget, starts: Sequence[int]) -> Iterator[Any]:
    resume = 0
    for start in starts:
        if start < resume:
            continue
        match = pattern.match(text, start)
        if match is not None:
            budget.check()
            yield match
            # A scan resumes at the end of a match, one further after an empty one.
            resume = max(match.end(), start + 1)
