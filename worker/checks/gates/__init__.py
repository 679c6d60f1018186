"""Gates: one multi-pattern scan per text decides which scans must run at all.

A gate is a NECESSARY condition of what it guards finding anything: it may
open for a text that ends up clean, never stay shut for a text the guarded
detector, phrase list, pattern or extractor would flag. Most answers carry
nothing sensitive, and then a detector costs one scan shared with all the
others instead of its own regex passes.

A gate is written in conjunctive form: every clause must hold, a clause holds
when any of its atoms (``Atom``: a small regex) matches the gate text
(``gate_text``: the normalised text folded to ASCII). A check compiles its
gates once (``Gates``: every detector's, phrase's or extractor's gate of the
check) into one engine, Hyperscan where the package is installed, else
``re``, and scans each text it reads once. The two engines give the same
answers (``engine``), and a check's results are the same with gates on or
off (``tests/checks/gates``). Each check keeps its own database: one shared
by all checks of a turn would save a few scans per turn, but would have to
grow and shrink with every draft check a backtest compiles.

The same scan may report where candidates start (``Seed``, ``Gates.read``):
a detector then tries its pattern at those offsets only, with the result of
its scan over the whole text (``checks.candidates``).

``use("off")`` compiles checks with every gate open, to compare against.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from turncheck.worker.checks.gates.engine import Atom, Engine, Seed, available, build
from turncheck.worker.checks.gates.text import gate_text
from turncheck.worker.checks.textmap import INVISIBLE

Clause = tuple[Atom, ...]
"""Holds when any of its atoms matches."""
Gate = tuple[Clause, ...]
"""Open when every clause holds; ``()`` is always open."""

_choice: ContextVar[str] = ContextVar("gate_engine", default="auto")

# Longer texts (a pasted document) open every gate: the detectors' scans check the turn's
# budget as they go, which a gate's scan does not (folding a megabyte to ASCII takes
# ~30 ms; the ``re`` engine's worst text of this size ~15 ms). Answers are far shorter.
GATED_CHARS = 16_384


@contextmanager
def use(name: str) -> Iterator[None]:
    """Checks compiled inside use engine ``name``: ``hyperscan``, ``python``, ``auto``
    (the fastest available) or ``off`` (no gates)."""
    if name not in ("auto", "off", *available()):
        raise ValueError(f"gate engine {name!r} is not available here")
    token = _choice.set(name)
    try:
        yield
    finally:
        _choice.reset(token)


def engine_name() -> str:
    """The engine checks compiled now get."""
    name = _choice.get()
    return available()[0] if name == "auto" else name


Candidates = Mapping[str, tuple[int, ...]]
"""Per named seed, the offsets of a text where one of its patterns matches, ascending."""

# The only characters the gate text drops; others become one character or more.
_INVISIBLE = re.compile("[" + "".join(sorted(INVISIBLE)) + "]")


class Gates:
    """Named gates over one text, compiled once into one engine; immutable and thread-safe."""

    __slots__ = ("_always", "_engine", "_names", "_seeds", "_several", "_single", "engine")

    def __init__(
        self,
        gates: Mapping[str, Gate],
        engine: str | None = None,
        seeds: Mapping[str, Sequence[Seed]] | None = None,
    ) -> None:
        self.engine = engine or engine_name()
        self._names = frozenset(gates)
        atoms: dict[Atom, int] = {}
        self._always = frozenset(name for name, gate in gates.items() if not gate)
        # Each clause as a bit mask of its atoms: it holds when it shares a bit with the
        # atoms found. Most gates are one clause, tested in one list comprehension.
        self._single: list[tuple[str, int]] = []
        self._several: list[tuple[str, tuple[int, ...]]] = []
        for name, gate in gates.items():
            masks = tuple(sum(1 << atoms.setdefault(a, len(atoms)) for a in set(c)) for c in gate)
            if len(masks) == 1:
                self._single.append((name, masks[0]))
            elif masks:
                self._several.append((name, masks))
        if self.engine == "off":
            self._always = self._names
            self._single, self._several = [], []
            seeds = None
        # Each name's seeds by their index in the engine's list.
        every_seed: list[Seed] = []
        self._seeds: list[tuple[str, range]] = []
        for name, patterns in (seeds or {}).items():
            self._seeds.append((name, range(len(every_seed), len(every_seed) + len(patterns))))
            every_seed.extend(patterns)
        ready = bool(self._single or self._several or every_seed)
        self._engine: Engine | None = build(list(atoms), self.engine, every_seed) if ready else None

    def open(self, text: str) -> frozenset[str]:
        """The names whose gates open for ``text``, a normalised text (``textmap.normalize``)."""
        if self._engine is None:
            return self._always
        if len(text) > GATED_CHARS:
            return self._names
        return self._opened(self._engine.scan(gate_text(text)))

    def _opened(self, atoms: frozenset[int]) -> frozenset[str]:
        found = 0
        for atom in atoms:
            found |= 1 << atom
        opened = [name for name, mask in self._single if found & mask]
        opened += (n for n, masks in self._several if all(found & m for m in masks))
        return self._always.union(opened)

    def read(self, text: str) -> tuple[frozenset[str], Candidates | None]:
        """``open(text)``, and in the same scan where each named seed matches in ``text``:
        every offset where one of its patterns matches the text, maybe more. None where the
        gate text's offsets are not the text's (a character folded to several, or one
        dropped) or the text is too long to gate: a detector then reads the whole text."""
        if self._engine is None or not self._seeds:
            return self.open(text), None
        if len(text) > GATED_CHARS:
            return self._names, None
        framed = gate_text(text)
        atoms, starts = self._engine.read(framed)
        names = self._opened(atoms)
        if len(framed) != len(text) + 2 or (
            not text.isascii() and _INVISIBLE.search(text) is not None
        ):
            return names, None
        candidates: dict[str, tuple[int, ...]] = {}
        for name, indices in self._seeds:
            if len(indices) == 1:
                found_at: Sequence[int] = starts[indices[0]]
            else:
                found_at = sorted({at for i in indices for at in starts[i]})
            # The framing space before the text shifts every offset by one.
            candidates[name] = tuple(at - 1 for at in found_at if at) if found_at else ()
        return names, candidates


__all__ = [
    "Atom",
    "Candidates",
    "Clause",
    "Gate",
    "Gates",
    "Seed",
    "available",
    "engine_name",
    "gate_text",
    "use",
]
