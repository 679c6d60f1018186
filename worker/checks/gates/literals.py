"""Gates of the checks a user writes: banned phrases and patterns.

A phrase matches only where each of its words stands literally (folded, as
``does_not_contain`` reads the text), so a phrase's gate is one of its
words. A pattern's gate is a set of literals one of which every match holds
(``required``): read from the pattern's syntax tree, never guessed. A
pattern with none (``[0-9]{3}-[0-9]{4}``) or written in syntax only the
``regex`` module knows has no gate: it always runs.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from turncheck.worker.checks.gates import Atom, Gate

try:  # the syntax tree of ``re``: private, so a Python that moves it loses the gates only
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    sre_parse = None


def phrases_gate(folded_phrases: Iterable[str]) -> Gate:
    """Any phrase's longest ASCII word, in any case; always open when a phrase has none."""
    atoms = []
    for phrase in folded_phrases:
        words = [w for w in phrase.split() if w.isascii()]
        if not words:
            return ()
        atoms.append(Atom.literal(max(words, key=len), caseless=True))
    return (tuple(dict.fromkeys(atoms)),) if atoms else ()


# Syntax that ``re`` parses but the ``regex`` module reads otherwise: version 1 set
# operations and POSIX classes.
_REGEX_ONLY = re.compile(r"\(\?[a-zA-Z]*V1|\[\[?:")


def pattern_gate(pattern: str, ignorecase: bool, verbose: bool) -> Gate:
    """A gate for a ``pattern`` check: one of its required literals must be in the text."""
    if sre_parse is None or _REGEX_ONLY.search(pattern):
        return ()
    flags = (re.IGNORECASE if ignorecase else 0) | (re.VERBOSE if verbose else 0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "possible nested set" and the like
            tree = sre_parse.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError):
        return ()  # syntax of the regex module only (\p{L}, fuzzy matching, ...)
    caseless = ignorecase or bool(tree.state.flags & re.IGNORECASE) or _scoped_ignorecase(tree)
    try:
        found = required(list(tree))
    except _Fuzzy:
        return ()
    if not found:
        return ()
    return (tuple(Atom.literal(f, caseless) for f in sorted(found)),)


class _Fuzzy(Exception):
    """A literal brace: ``re`` read as text what may be a ``regex`` fuzzy constraint
    (``(?:acme){e<=1}``), which would make the literal before it optional. One in an
    optional part or a lookaround is never looked at, and there it constrains no literal
    chosen here."""


def required(items: Sequence[Any]) -> frozenset[str] | None:
    """Literals one of which every match of the sequence ``items`` holds, or None."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []

    def close() -> None:
        if run:
            candidates.append(frozenset(["".join(run)]))
            run.clear()

    for op, av in items:
        if op is sre_constants.LITERAL:
            ch = chr(av)
            if ch in "{}":
                raise _Fuzzy
            if ch.isascii():
                run.append(ch)
                continue
            close()
        elif op is sre_constants.SUBPATTERN:
            close()
            _add(candidates, required(av[-1]))
        elif op is sre_constants.ATOMIC_GROUP:
            close()
            _add(candidates, required(av))
        elif op is sre_constants.BRANCH:
            close()
            branches = [required(branch) for branch in av[1]]
            if all(b is not None for b in branches):
                _add(candidates, frozenset().union(*(b for b in branches if b is not None)))
        elif op in _REPEATS:
            close()
            if av[0] >= 1:
                _add(candidates, required(av[2]))
        else:
            close()  # a class, an anchor, a lookaround: nothing literal to require
    close()
    if not candidates:
        return None
    # The most selective: the longest shortest literal, then the fewest literals.
    return max(candidates, key=lambda c: (min(map(len, c)), -len(c)))


_REPEATS = (
    sre_constants.MAX_REPEAT,
    sre_constants.MIN_REPEAT,
    getattr(sre_constants, "POSSESSIVE_REPEAT", sre_constants.MAX_REPEAT),
)


def _add(candidates: list[frozenset[str]], found: frozenset[str] | None) -> None:
    if found:
        candidates.append(found)


def _scoped_ignorecase(tree: Any) -> bool:
    """Whether a group anywhere turns on case-insensitive matching (``(?i:...)``)."""
    stack = [list(tree)]
    while stack:
        for op, av in stack.pop():
            if op is sre_constants.SUBPATTERN:
                if av[1] & re.IGNORECASE:
                    return True
                stack.append(list(av[-1]))
            elif op is sre_constants.BRANCH:
                stack.extend(list(b) for b in av[1])
            elif op in _REPEATS:
                stack.append(list(av[2]))
            elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
                stack.append(list(av[1]))
            elif op is sre_constants.ATOMIC_GROUP:
                stack.append(list(av))
    return False
