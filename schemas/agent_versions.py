"""Which agent versions a check applies to: ``agent_versions`` in a check file.

Two forms. A list names versions one by one (``[7, 8]``, ``["2026-11-a"]``): a turn
matches when its version, as text, is one of them, so ``7`` and ``"7"`` are the same
version, as they are in the store. A range is a string of bounds joined by commas, every
bound an operator and an integer (``">=7"``, ``"<9"``, ``">=7,<9"``, ``"==8"``)::

    range := bound ("," bound)*
    bound := (">=" | ">" | "<=" | "<" | "==") integer     spaces allowed around each part

A range holds the integers that meet every bound, compared as integers (9 < 10). A
version that is not an integer (``"7.1"``, ``"beta"``, ``"07"``) is in no range: name it
in a list. Left out, a check applies to every version.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

VersionsField = list[int | str] | str | None
"""``agent_versions`` as a file writes it."""

_BOUND = re.compile(r"\s*(>=|<=|==|>|<)\s*(-?[0-9]+)\s*\Z")
_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)\Z")
MAX_VERSION_CHARS = 64
"""As the turn contract's ``agent.version`` (``schemas/turn.py``)."""


def integer_of(version: int | str) -> int | None:
    """The version as an integer when its text is one (``7``, ``"7"``); else None."""
    if isinstance(version, int):
        return version
    return int(version) if _INTEGER.match(version) else None


@dataclass(frozen=True, slots=True)
class VersionScope:
    """A set of agent versions: named ones (as text), or integers in [low, high]."""

    named: frozenset[str] | None = None
    """The versions of a list; None for a range or every version."""
    low: int | None = None
    high: int | None = None
    ranged: bool = False

    @property
    def every(self) -> bool:
        return self.named is None and not self.ranged

    def covers(self, version: int | str) -> bool:
        if self.named is not None:
            return str(version) in self.named
        if not self.ranged:
            return True
        number = integer_of(version)
        return number is not None and self._in_range(number)

    def _in_range(self, number: int) -> bool:
        return (self.low is None or number >= self.low) and (
            self.high is None or number <= self.high
        )

    def shared(self, other: VersionScope) -> str | None:
        """A version both scopes hold (as a person would write it), or None when they are
        disjoint."""
        if self.every or other.every:
            return "every version"
        if self.named is not None and other.named is not None:
            both = sorted(self.named & other.named)
            return both[0] if both else None
        if self.named is not None or other.named is not None:
            named, ranged = (self, other) if self.named is not None else (other, self)
            inside = sorted(v for v in named.named or () if ranged.covers(v))
            return inside[0] if inside else None
        low = max((b for b in (self.low, other.low) if b is not None), default=None)
        high = min((b for b in (self.high, other.high) if b is not None), default=None)
        if low is not None and high is not None and low > high:
            return None
        return str(low if low is not None else high if high is not None else 0)


EVERY_VERSION = VersionScope()


def scope_of(value: VersionsField) -> VersionScope:
    """Parse ``agent_versions``; raises ``ValueError`` saying what is wrong."""
    if value is None:
        return EVERY_VERSION
    if isinstance(value, str):
        return _range(value)
    if not value:
        raise ValueError("name at least one version, or leave agent_versions out")
    named: set[str] = set()
    for version in value:
        text = str(version)
        if isinstance(version, str) and not version.strip():
            raise ValueError("a version is empty")
        if len(text) > MAX_VERSION_CHARS:
            raise ValueError(f"a version is longer than {MAX_VERSION_CHARS} characters")
        if text in named:
            raise ValueError(f"version {text} is named twice")
        named.add(text)
    return VersionScope(named=frozenset(named))


def _range(text: str) -> VersionScope:
    low: int | None = None
    high: int | None = None
    for part in text.split(","):
        found = _BOUND.match(part)
        if found is None:
            raise ValueError(
                f"{part.strip()!r} is not a bound: write an operator (>=, >, <=, <, ==) and "
                'an integer, bounds joined by commas (">=7,<9"), or a list of versions'
            )
        op, number = found.group(1), int(found.group(2))
        if op in (">=", ">", "=="):
            bound = number + 1 if op == ">" else number
            low = bound if low is None else max(low, bound)
        if op in ("<=", "<", "=="):
            bound = number - 1 if op == "<" else number
            high = bound if high is None else min(high, bound)
    if low is not None and high is not None and low > high:
        raise ValueError(f"{text.strip()!r} holds no version")
    return VersionScope(low=low, high=high, ranged=True)


def checked(value: object) -> object:
    """A pydantic ``before`` validator: refuse what YAML reads as another kind of value
    (``true``, ``7.5``, a mapping) and any value ``scope_of`` refuses."""
    if value is None or isinstance(value, str):
        scope_of(value)
        return value
    if not isinstance(value, list):
        raise ValueError('write a list of versions ([7, 8]) or a range (">=7,<9")')
    for version in value:
        if isinstance(version, bool) or not isinstance(version, int | str):
            raise ValueError(
                f"{version!r} is not a version: write an integer or a string "
                "(a version such as 7.1 is written '7.1')"
            )
    scope_of(value)
    return value
