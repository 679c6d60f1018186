"""Two engines that answer the same question: which of a set of atoms match a gate text.

``HyperscanEngine`` compiles every atom into one Vectorscan/Hyperscan
database and scans the text once (each atom reports at most one match).
``PythonEngine`` searches the text with each atom's ``re`` pattern, in ASCII
mode. On a gate text (``text.gate_text``: ASCII only) and with atoms written
in the syntax both accept (``Atom``), the two find the same set; the
differential tests in ``tests/checks/gates`` hold them to it.
"""

from __future__ import annotations

import importlib
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol


def _hyperscan() -> ModuleType | None:
    try:
        return importlib.import_module("hyperscan")
    except ImportError:  # no wheel for this platform: the pure-Python engine stands in
        return None


hyperscan = _hyperscan()


@dataclass(frozen=True, slots=True)
class Atom:
    """A pattern over a gate text: literals, ASCII classes, repeats and ``|`` only
    (no anchors, lookarounds, backreferences, ``.`` or shorthands), never empty."""

    pattern: str
    caseless: bool = False

    @classmethod
    def literal(cls, text: str, caseless: bool = False) -> Atom:
        """``text`` (ASCII) as it is: every other character than a letter or digit is
        written ``\\xHH``, which both engines read alike (a NUL too)."""
        if not text or not text.isascii():
            raise ValueError("a literal atom is ASCII and not empty")
        return cls("".join(ch if ch.isalnum() else f"\\x{ord(ch):02x}" for ch in text), caseless)


class Engine(Protocol):
    def scan(self, text: str) -> frozenset[int]:
        """Indices of the atoms that match somewhere in ``text``."""
        ...


class PythonEngine:
    """One ``re`` search per atom: the reference, and the engine where Hyperscan is missing."""

    __slots__ = ("_patterns",)

    def __init__(self, atoms: Sequence[Atom]) -> None:
        self._patterns = [
            re.compile(a.pattern, re.ASCII | (re.IGNORECASE if a.caseless else 0)) for a in atoms
        ]

    def scan(self, text: str) -> frozenset[int]:
        return frozenset(i for i, p in enumerate(self._patterns) if p.search(text) is not None)


class HyperscanEngine:
    """All atoms in one database, one pass over the text. Scratch space is per thread:
    the pipeline runs checks in worker threads, and a scratch serves one scan at a time."""

    __slots__ = ("_database", "_hs", "_local")

    def __init__(self, atoms: Sequence[Atom]) -> None:
        if hyperscan is None:
            raise RuntimeError("the hyperscan package is not installed")
        self._hs = hyperscan
        self._database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._local = threading.local()
        if not atoms:
            raise ValueError("a Hyperscan database needs at least one atom")
        single = hyperscan.HS_FLAG_SINGLEMATCH
        self._database.compile(
            expressions=[a.pattern.encode("ascii") for a in atoms],
            ids=list(range(len(atoms))),
            elements=len(atoms),
            flags=[single | (hyperscan.HS_FLAG_CASELESS if a.caseless else 0) for a in atoms],
        )

    def scan(self, text: str) -> frozenset[int]:
        found: set[int] = set()
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._database)
        self._database.scan(
            text.encode("ascii"), match_event_handler=_on_match, context=found, scratch=scratch
        )
        return frozenset(found)


def _on_match(atom: int, start: int, end: int, flags: int, found: Any) -> None:
    found.add(atom)


ENGINES = ("hyperscan", "python")


def available() -> tuple[str, ...]:
    """The engines this installation can run, fastest first."""
    return ENGINES if hyperscan is not None else ("python",)


def build(atoms: Sequence[Atom], name: str) -> Engine:
    """An engine of ``name`` (``hyperscan`` or ``python``) over ``atoms``."""
    if name == "hyperscan":
        return HyperscanEngine(atoms) if atoms else PythonEngine(atoms)
    if name == "python":
        return PythonEngine(atoms)
    raise ValueError(f"unknown gate engine {name!r}")
