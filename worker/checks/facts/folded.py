"""Scans that start at a digit, run over the text with every ASCII digit folded to "0".

``re`` skips ahead to where a match may start: fast when the pattern opens with
one literal character (a ``memchr``), slowly when it opens with a class (a test
per character). ``[0-9]`` is a class, and skipping to it was most of a scan of a
source text: ~9 ns a character, as much as the matching.

A pattern that asks of a character only whether it is an ASCII digit, never which
one (``digit_blind``), makes the same decisions at every offset of ``fold(text)``
as of ``text``: its matches there have the same offsets, and only their digits
read differently (take them from ``text``). In the folded text ``[0-9]`` and ``0``
match the same characters, so ``folded(pattern)`` opens with the literal ``0``.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")

_FOLD = str.maketrans("123456789", "000000000")
_DIGITS = frozenset(range(ord("0"), ord("9") + 1))
_OPENING = "[0-9]"


def fold(text: str) -> str:
    """``text`` with each ASCII digit turned into "0": same length, same offsets."""
    return text.translate(_FOLD)


def folded(pattern: re.Pattern[str], flags: int = 0) -> re.Pattern[str]:
    """``pattern`` (``digit_blind``, opening with ``[0-9]``) opening with "0" instead, to run
    on ``fold(text)``: the same matches as ``pattern`` on ``text``, at the same offsets.
    ``flags`` are added to the pattern's own. ValueError for any other pattern."""
    source = pattern.pattern
    at = source.find(_OPENING)
    if at < 0 or source[:at].strip() or not digit_blind(pattern):
        raise ValueError(f"not a digit-blind pattern opening with {_OPENING}: {source[:40]!r}")
    return re.compile(source[:at] + "0" + source[at + len(_OPENING) :], pattern.flags | flags)


def digit_blind(pattern: re.Pattern[str]) -> bool:
    """Whether every test of ``pattern`` treats the ten ASCII digits alike: no digit as a
    literal, each class holding all ten or none, and no back-reference (which compares
    the characters themselves)."""
    return _blind(_parser.parse(pattern.pattern, pattern.flags))


def _blind(items: Any) -> bool:
    c = _constants
    for op, av in items:
        if op in (c.LITERAL, c.NOT_LITERAL):
            if av in _DIGITS:
                return False
        elif op is c.IN:
            covered = _covered(av)
            if covered is None or covered not in (set(), _DIGITS):
                return False
        elif op in (c.ANY, c.AT, c.CATEGORY):
            continue
        elif op is c.SUBPATTERN:
            if not _blind(av[3]):
                return False
        elif op is c.BRANCH:
            if not all(_blind(branch) for branch in av[1]):
                return False
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            if not _blind(av[2]):
                return False
        elif op in (c.ASSERT, c.ASSERT_NOT):
            if not _blind(av[1]):
                return False
        elif op is c.ATOMIC_GROUP:
            if not _blind(av):
                return False
        else:
            return False  # a back-reference, a conditional: may tell digits apart
    return True


def _covered(members: Any) -> set[int] | None:
    """The digits a class's own members name (its negation flips all or none alike);
    None for a member this cannot read."""
    c = _constants
    covered: set[int] = set()
    for op, av in members:
        if op is c.LITERAL:
            covered |= {av} & _DIGITS
        elif op is c.RANGE:
            covered |= set(range(max(av[0], 48), min(av[1], 57) + 1))
        elif op is c.CATEGORY or op is c.NEGATE:
            continue  # a category holds every digit or none (\d, \w, \s and their negations)
        else:
            return None
    return covered
