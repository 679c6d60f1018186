"""Two engines that answer the same question: which of a set of atoms match a gate text.

``HyperscanEngine`` compiles every atom into one Vectorscan/Hyperscan
database and scans the text once (each atom reports at most one match).
``PythonEngine`` searches the text with each atom's ``re`` pattern, in ASCII
mode. On a gate text (``text.gate_text``: ASCII only) and with atoms written
in the syntax both accept (``Atom``), the two find the same set; the
differential tests in ``tests/checks/gates`` hold them to it.

The same pass may also report where candidates start (``Seed``: a
fixed-length pattern, each of whose match starts ``read`` returns): the
detectors then try their own patterns only there, not at every position.
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


@dataclass(frozen=True, slots=True)
class Seed:
    """A fixed-length pattern over a gate text, in ``Atom``'s syntax without ``Atom``'s
    shortcuts, whose every match start an engine's ``read`` reports. Fixed length, so
    Hyperscan's match ends (all it reports cheaply) are the starts, ``length`` before.

    Written with literals and positive ASCII classes only: a match in the detectors'
    text is all ASCII, and so the same characters at the same offsets of the gate text
    (``gates.Gates.read``), which then holds every start and maybe more.
    """

    pattern: str
    length: int

    @classmethod
    def of(cls, pattern: str) -> Seed:
        """``pattern`` with its length; ValueError when its matches vary in length."""
        if _parser is None:  # pragma: no cover - a Python without ``re._parser``
            raise ValueError("seeds need re's parser to check their length")
        if "[^" in pattern:
            raise ValueError(f"a seed has no negated class: {pattern!r}")
        low, high = _parser.parse(pattern, re.ASCII).getwidth()
        if low != high or low == 0:
            raise ValueError(f"a seed has one length, not {low} to {high}: {pattern!r}")
        return cls(pattern, low)


_parser = importlib.import_module("re._parser") if hasattr(re, "_parser") else None

Starts = tuple[tuple[int, ...], ...]
"""Per seed, in the order given, the offsets of the gate text where it matches, ascending."""


class Engine(Protocol):
    def scan(self, text: str) -> frozenset[int]:
        """Indices of the atoms that match somewhere in ``text``."""
        ...

    def read(self, text: str) -> tuple[frozenset[int], Starts]:
        """``scan(text)``, and where each seed the engine was built with matches."""
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

    __slots__ = ("_caseless", "_digit_runs", "_exact", "_patterns", "_seeds")

    def __init__(self, atoms: Sequence[Atom], seeds: Sequence[Seed] = ()) -> None:
        # A lookahead finds every start, overlapping ones too, as Hyperscan reports them.
        self._seeds = [re.compile(f"(?=(?:{s.pattern}))", re.ASCII) for s in seeds]
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

    def read(self, text: str) -> tuple[frozenset[int], Starts]:
        starts = tuple(tuple(m.start() for m in seed.finditer(text)) for seed in self._seeds)
        return self.scan(text), starts


def _compiled(atom: Atom) -> re.Pattern[str]:
    if atom.python is not None:
        return re.compile(atom.python, re.ASCII)
    return re.compile(atom.pattern, re.ASCII | (re.IGNORECASE if atom.caseless else 0))


class HyperscanEngine:
    """All atoms in one database, one pass over the text. Scratch space is per thread:
    the pipeline runs checks in worker threads, and a scratch serves one scan at a time."""

    __slots__ = ("_atoms", "_database", "_hs", "_lengths", "_local")

    def __init__(self, atoms: Sequence[Atom], seeds: Sequence[Seed] = ()) -> None:
        if hyperscan is None:
            raise RuntimeError("the hyperscan package is not installed")
        self._hs = hyperscan
        self._database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
        self._local = threading.local()
        if not atoms and not seeds:
            raise ValueError("a Hyperscan database needs at least one atom")
        single = hyperscan.HS_FLAG_SINGLEMATCH
        # Seeds follow the atoms, their ids from ``len(atoms)``; each reports every match.
        self._atoms = len(atoms)
        self._lengths = tuple(s.length for s in seeds)
        patterns = [a.pattern for a in atoms] + [s.pattern for s in seeds]
        self._database.compile(
            expressions=[p.encode("ascii") for p in patterns],
            ids=list(range(len(atoms) + len(seeds))),
            elements=len(atoms) + len(seeds),
            flags=[single | (hyperscan.HS_FLAG_CASELESS if a.caseless else 0) for a in atoms]
            + [0] * len(seeds),
        )

    def scan(self, text: str) -> frozenset[int]:
        found: set[int] = set()
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._database)
        self._database.scan(
            text.encode("ascii"), match_event_handler=_on_match, context=found, scratch=scratch
        )
        if self._lengths:  # a seed's id is past the atoms': not an atom found
            found.difference_update(range(self._atoms, self._atoms + len(self._lengths)))
        return frozenset(found)

    def read(self, text: str) -> tuple[frozenset[int], Starts]:
        found: set[int] = set()
        starts: list[list[int]] = [[] for _ in self._lengths]
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = self._hs.Scratch(self._database)
        self._database.scan(
            text.encode("ascii"),
            match_event_handler=_on_read,
            context=(found, starts, self._atoms, self._lengths),
            scratch=scratch,
        )
        # Hyperscan reports a pattern's matches by ascending end, each end once; sorted
        # all the same (cheap on a sorted list), so nothing rests on that.
        return frozenset(found), tuple(tuple(sorted(s)) if s else () for s in starts)


def _on_match(atom: int, start: int, end: int, flags: int, found: Any) -> None:
    found.add(atom)


def _on_read(pattern: int, start: int, end: int, flags: int, context: Any) -> None:
    found, starts, atoms, lengths = context
    if pattern < atoms:
        found.add(pattern)
    else:
        seed = pattern - atoms
        starts[seed].append(end - lengths[seed])


ENGINES = ("hyperscan", "python")


def available() -> tuple[str, ...]:
    """The engines this installation can run, fastest first."""
    return ENGINES if hyperscan is not None else ("python",)


def build(atoms: Sequence[Atom], name: str, seeds: Sequence[Seed] = ()) -> Engine:
    """An engine of ``name`` (``hyperscan`` or ``python``) over ``atoms`` and ``seeds``; the
    Python one when Hyperscan refuses them (a literal of a user's pattern too long for it)."""
    if name == "hyperscan" and (atoms or seeds) and hyperscan is not None:
        try:
            return HyperscanEngine(atoms, seeds)
        except hyperscan.error:
            return PythonEngine(atoms, seeds)
    if name == "hyperscan":
        return PythonEngine(atoms, seeds)
    if name == "python":
        return PythonEngine(atoms, seeds)
    raise ValueError(f"unknown gate engine {name!r}")
