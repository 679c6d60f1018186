"""Regex scans over a whole text that stop when the turn's time budget is spent.

A check's cost grows with its text in two places: the engine's search between
two matches, and the Python work done per match. ``finditer`` and ``findall``
bound both on a long text. A text of up to ``LONG_TEXT_CHARS`` (far more than a
chat message) is scanned as it always was: no pattern of ours takes more than a
few milliseconds over so little, so ordinary turns pay nothing here, and a
loop that does real work per match calls ``budget.check()`` itself.

On a longer text the budget is checked between matches, and:

* a ``regex`` pattern runs with the budget left as its ``timeout``, its
  ``TimeoutError`` raised as ``BudgetSpent``. The engine counts the CPU time of
  the whole process, not this thread's, so a timeout that comes before the
  budget is spent (another thread was busy) resumes the scan where it stopped;
* an ``re`` pattern, which has no timeout, reads the text in windows of
  ``WINDOW_CHARS`` that run on ``OVERLAP_CHARS`` into the next one; a match is
  taken from the window it starts in. That is the whole-text scan exactly
  unless a single run the engine reads on through (digits, letters, spaces)
  is longer than the overlap and crosses a window's end: no message has those.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, overload

import regex

from turncheck.worker.checks.budget import INFINITY, Budget, BudgetSpent

LONG_TEXT_CHARS = 32_768
WINDOW_CHARS = 32_768
OVERLAP_CHARS = 4_096
# The engine refuses a timeout of zero; a spent budget still gets this long.
_MIN_TIMEOUT_S = 1e-4


@overload
def finditer(
    pattern: re.Pattern[str],
    text: str,
    budget: Budget,
    pos: int = 0,
    endpos: int | None = None,
    *,
    runaway: bool = False,
) -> Iterator[re.Match[str]]: ...


@overload
def finditer(
    pattern: regex.Pattern[str],
    text: str,
    budget: Budget,
    pos: int = 0,
    endpos: int | None = None,
    *,
    runaway: bool = False,
) -> Iterator[regex.Match[str]]: ...


def finditer(
    pattern: re.Pattern[str] | regex.Pattern[str],
    text: str,
    budget: Budget,
    pos: int = 0,
    endpos: int | None = None,
    *,
    runaway: bool = False,
) -> Iterator[re.Match[str]] | Iterator[regex.Match[str]]:
    """``pattern.finditer(text, pos, endpos)`` within the budget; raises ``BudgetSpent``.

    ``runaway``: the pattern may backtrack for long even on a short text (a user's
    pattern), so a ``regex`` pattern always runs under the timeout.
    """
    end = len(text) if endpos is None else min(endpos, len(text))
    if end - pos <= LONG_TEXT_CHARS and not runaway:
        # The plain scan, called as plainly as it can be: this is every ordinary turn.
        return (
            pattern.finditer(text)
            if end == len(text) and not pos
            else pattern.finditer(text, pos, end)
        )
    if isinstance(pattern, re.Pattern):
        return _windowed(pattern, text, budget, pos, end)
    return _timed(pattern, text, budget, pos, end)


@overload
def search(
    pattern: re.Pattern[str], text: str, budget: Budget, pos: int = 0
) -> re.Match[str] | None: ...


@overload
def search(
    pattern: regex.Pattern[str], text: str, budget: Budget, pos: int = 0
) -> regex.Match[str] | None: ...


def search(
    pattern: re.Pattern[str] | regex.Pattern[str], text: str, budget: Budget, pos: int = 0
) -> re.Match[str] | regex.Match[str] | None:
    """``pattern.search(text, pos)`` within the budget: the first match, or None."""
    matches: Iterator[Any] = finditer(pattern, text, budget, pos)
    return next(matches, None)


def findall(pattern: re.Pattern[str] | regex.Pattern[str], text: str, budget: Budget) -> list[Any]:
    """``pattern.findall(text)`` within the budget: strings, or tuples of the groups."""
    if len(text) <= LONG_TEXT_CHARS:
        return pattern.findall(text)
    matches: Iterator[Any] = finditer(pattern, text, budget)
    if pattern.groups == 0:
        return [m.group() for m in matches]
    if pattern.groups == 1:
        return [m.group(1) or "" for m in matches]
    return [m.groups("") for m in matches]


def _timed(
    pattern: regex.Pattern[str], text: str, budget: Budget, pos: int, end: int
) -> Iterator[regex.Match[str]]:
    last: tuple[int, int] | None = None
    while True:
        budget.check()
        remaining = budget.remaining_s()
        # The engine reads an infinite timeout as spent at once: no budget, no timeout.
        timeout = None if remaining == INFINITY else max(remaining, _MIN_TIMEOUT_S)
        try:
            for match in pattern.finditer(text, pos, end, timeout=timeout):
                if match.span() == last:
                    continue  # the empty match a resumed scan finds again
                last = match.span()
                yield match
                budget.check()
            return
        except TimeoutError:
            if budget.remaining_s() <= 0:
                raise BudgetSpent from None
            if last is not None:
                pos = last[1]


def _windowed(
    pattern: re.Pattern[str], text: str, budget: Budget, pos: int, end: int
) -> Iterator[re.Match[str]]:
    last: tuple[int, int] | None = None
    while True:
        budget.check()
        cut = min(pos + WINDOW_CHARS, end)
        for match in pattern.finditer(text, pos, min(cut + OVERLAP_CHARS, end)):
            if match.start() >= cut and cut < end:
                break  # the next window's, where the engine sees far enough past it
            if match.span() == last:
                continue  # the empty match the next window finds again at its start
            last = match.span()
            yield match
            budget.check()
        if cut == end:
            return
        pos = cut if last is None else max(cut, last[1])
