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
from typing import Any, Literal, Protocol


def _hyperscan() -> ModuleType | None:
    try:
        return importlib.import_module("hyperscan")
    except ImportError:  # no wheel for this platform: the pure-Python engine stands in
        return None


hyperscan = _hyperscan()


@dataclass(frozen=True, slots=True)
class Atom:
    """A pattern over a gate text: literals, ASCII classes, repeats and ``|`` only
    (no anchors, lookarounds, backreferences, ``.`` or shorthands), never empty.

    The other fields say the same in terms the pure-Python engine runs faster
    (``re`` tries an alternation or a class that opens a pattern at every
    position): a literal (``text``, lower-cased when ``caseless``), a digit run
    (``digits``, see ``digit_run``), or an equivalent ``re`` pattern (``python``)
    searched in a view of the text: as it is, ``lowered``, or ``stripped`` of
    every character but letters and digits. ``tests/checks/gates`` holds each
    equivalent to ``pattern`` on Hyperscan.
    """

    pattern: str
    caseless: bool = False
    text: str | None = None
    digits: int | None = None
    python: str | None = None
    view: Literal["text", "lowered", "stripped"] = "text"

    @classmethod
    def literal(cls, text: str, caseless: bool = False) -> Atom:
        """``text`` (ASCII) as it is: every other character than a letter or digit is
        written ``\\xHH``, which both engines read alike (a NUL too)."""
        if not text or not text.isascii():
            raise ValueError("a literal atom is ASCII and not empty")
        escaped = "".join(ch if ch.isalnum() else f"\\x{ord(ch):02x}" for ch in text)
        return cls(escaped, caseless, text=text.lower() if caseless else text)

    @classmethod
    def digit_run(cls, count: int) -> Atom:
        """``count`` digits, any run of characters but letters and digits between each two."""
        return cls(f"[0-9](?:[^0-9A-Za-z]*[0-9]){{{count - 1}}}", digits=count)


class Engine(Protocol):
    def scan(self, text: str) -> frozenset[int]:
        """Indices of the atoms that match somewhere in ``text``."""
        ...


# Every byte but ASCII letters and digits: ``bytes.translate`` deletes them in C.
_NOT_ALNUM = bytes(b for b in range(256) if not (chr(b).isascii() and chr(b).isalnum()))
_DIGITS = re.compile("[0-9]+")


def _stripped(text: str) -> str:
    """``text`` (ASCII) without the characters that are not letters or digits."""
    return text.encode("ascii").translate(None, _NOT_ALNUM).decode("ascii")


class PythonEngine:
    """The reference, and the engine where Hyperscan is missing: a substring test per
    literal, one pass for every digit run, one ``re`` search per other atom."""

    __slots__ = ("_caseless", "_digit_runs", "_exact", "_patterns")

    def __init__(self, atoms: Sequence[Atom]) -> None:
        self._exact = [(i, a.text) for i, a in enumerate(atoms) if a.text and not a.caseless]
        self._caseless = [(i, a.text) for i, a in enumerate(atoms) if a.text and a.caseless]
        self._digit_runs = [(i, a.digits) for i, a in enumerate(atoms) if a.digits]
        self._patterns = [
            (i, a.view, _compiled(a)) for i, a in enumerate(atoms) if not (a.text or a.digits)
        ]

    def scan(self, text: str) -> frozenset[int]:
        found = [i for i, literal in self._exact if literal in text]
        views = {"text": text}
        if self._caseless:
            views["lowered"] = lowered = text.lower()  # ASCII: exactly Hyperscan's folding
            found += (i for i, literal in self._caseless if literal in lowered)
        if self._digit_runs:
            # Digits with nothing but other characters between them are consecutive once
            # those characters are gone: the longest such run answers every count.
            views["stripped"] = stripped = _stripped(text)
            longest = max(map(len, _DIGITS.findall(stripped)), default=0)
            found += (i for i, count in self._digit_runs if longest >= count)
        for i, view, pattern in self._patterns:
            if view not in views:
                views[view] = text.lower() if view == "lowered" else _stripped(text)
            if pattern.search(views[view]) is not None:
                found.append(i)
        return frozenset(found)


def _compiled(atom: Atom) -> re.Pattern[str]:
    if atom.python is not None:
        return re.compile(atom.python, re.ASCII)
    return re.compile(atom.pattern, re.ASCII | (re.IGNORECASE if atom.caseless else 0))


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
    """An engine of ``name`` (``hyperscan`` or ``python``) over ``atoms``; the Python one
    when Hyperscan refuses the atoms (a literal of a user's pattern too long for it)."""
    if name == "hyperscan" and atoms and hyperscan is not None:
        try:
            return HyperscanEngine(atoms)
        except hyperscan.error:
            return PythonEngine(atoms)
    if name == "hyperscan":
        return PythonEngine(atoms)
    if name == "python":
        return PythonEngine(atoms)
    raise ValueError(f"unknown gate engine {name!r}")
