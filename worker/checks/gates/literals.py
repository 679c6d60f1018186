"""Gates of the checks a user writes: banned phrases and patterns.

A phrase matches only where each of its words stands literally (folded, as
``does_not_contain`` reads the text), so a phrase's gate is all of its
words. A pattern's gate is a set of literals one of which every match holds
(``required``): read from the pattern's syntax tree, never guessed. A
pattern that matches only digits and ASCII punctuation or spaces
(``[0-9]{3}-[0-9]{4}``) also needs its digits with nothing but such
characters between them (``digit_run``). A pattern with neither, or written
in syntax only the ``regex`` module knows, has no gate: it always runs.
"""

from __future__ import annotations

import importlib
import re
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from turncheck.worker.checks.gates import Atom, Gate


def _module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover
        return None


# The syntax tree of ``re``: private, so a Python that moves it loses the pattern gates only.
sre_parse = _module("re._parser")
sre_constants = _module("re._constants")


def phrase_gates(folded_phrases: Iterable[str]) -> dict[str, Gate]:
    """One gate per phrase: each of its words, in any case. A phrase with a word that is
    not ASCII gets an always-open gate."""
    gates: dict[str, Gate] = {}
    for phrase in folded_phrases:
        words = sorted(set(phrase.split()), key=len, reverse=True)
        if all(w.isascii() for w in words):
            gates[phrase] = tuple((Atom.literal(w, caseless=True),) for w in words)
        else:
            gates[phrase] = ()
    return gates


# Syntax that ``re`` parses but the ``regex`` module reads otherwise: version 1 set
# operations and POSIX classes.
_REGEX_ONLY = re.compile(r"\(\?[a-zA-Z]*V1|\[\[?:")


def pattern_gate(pattern: str, ignorecase: bool, verbose: bool) -> Gate:
    """A gate for a ``pattern`` check: one of its required literals must be in the text,
    and its digits in a run when it matches nothing but digits and punctuation."""
    if sre_parse is None or sre_constants is None or _REGEX_ONLY.search(pattern):
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
    gate: list[tuple[Atom, ...]] = []
    if found:
        gate.append(tuple(Atom.literal(f, caseless) for f in sorted(found)))
    digits = digit_run(list(tree))
    if digits:
        gate.append((Atom.digit_run(digits),))
    return tuple(gate)


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
    ()
    if sre_constants is None
    else (
        sre_constants.MAX_REPEAT,
        sre_constants.MIN_REPEAT,
        getattr(sre_constants, "POSSESSIVE_REPEAT", sre_constants.MAX_REPEAT),
    )
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


def digit_run(items: Sequence[Any]) -> int | None:
    """The digits every match of ``items`` holds, when a match can hold nothing else but
    characters that are neither letters nor digits (so its digits are a ``digit_run``
    atom's run in the gate text); None when it can hold another character."""
    total = 0
    for op, av in items:
        if op is sre_constants.LITERAL:
            kind = _kind(av)
            if kind is None:
                return None
            total += kind
        elif op is sre_constants.IN:
            kinds = [_member_kind(op2, av2) for op2, av2 in av]
            if not kinds or None in kinds:
                return None
            total += min(k for k in kinds if k is not None)
        elif op in _REPEATS:
            inner = digit_run(av[2])
            if inner is None:
                return None
            total += av[0] * inner
        elif op is sre_constants.SUBPATTERN or op is sre_constants.ATOMIC_GROUP:
            inner = digit_run(av[-1] if op is sre_constants.SUBPATTERN else av)
            if inner is None:
                return None
            total += inner
        elif op is sre_constants.BRANCH:
            branches = [digit_run(branch) for branch in av[1]]
            if any(b is None for b in branches):
                return None
            total += min(b for b in branches if b is not None)
        elif op not in (sre_constants.ASSERT, sre_constants.ASSERT_NOT, sre_constants.AT):
            return None  # any character, a negated class, a backreference...
    return total


def _kind(code: int) -> int | None:
    """1 for an ASCII digit, 0 for an ASCII character that is neither letter nor digit
    (``{`` and ``}`` excepted: a ``regex`` fuzzy constraint), None for anything else."""
    ch = chr(code)
    if not ch.isascii() or ch in "{}":
        return None
    if ch.isdigit():
        return 1
    return None if ch.isalpha() else 0


def _member_kind(op: Any, av: Any) -> int | None:
    """``_kind`` of a class member: every character it stands for is of that kind."""
    if op is sre_constants.LITERAL:
        return _kind(av)
    if op is sre_constants.RANGE:
        if av[1] > 127:
            return None
        kinds = {_kind(code) for code in range(av[0], av[1] + 1)}
        return kinds.pop() if len(kinds) == 1 else None
    if op is sre_constants.CATEGORY:
        # The gate text makes every script's digits ASCII and no space a letter.
        if av is sre_constants.CATEGORY_DIGIT:
            return 1
        if av is sre_constants.CATEGORY_SPACE:
            return 0
    return None
