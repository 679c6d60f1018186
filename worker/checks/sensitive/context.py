"""What a sensitive-data detector gets besides the text it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from turncheck.worker.checks.budget import Budget
from turncheck.worker.turns.structs import PrivateValue


@dataclass(frozen=True, slots=True)
class DetectorContext:
    instructions: str = ""
    """The agent's instructions, normalised like the text (``textmap.normalize``)."""
    private_values: tuple[PrivateValue, ...] = ()
    """Salted SHA-256 digests of values the customer entered privately; never the values."""
    instructions_leak_words: int = 12
    knowledge: tuple[str, ...] = ()
    """The knowledge passages given to the agent, as stored: public text it may quote."""
    internal_domains: tuple[str, ...] = ()
    """Extra internal-only domains, lower-case, e.g. ``corp.example.com``."""
    budget: Budget = field(default_factory=Budget.unlimited)
    gated: bool = False
    """Whether a detector may skip a text through its own gate (``gates.use``): off when
    a check's results are compared with and without gates."""
    candidates: Mapping[str, tuple[int, ...]] | None = None
    """Of the text being read, where each named seed of ``gates.detectors.SEEDS`` matches
    (``gates.Gates.read``); None: read the whole text."""


Detector = Callable[[str, DetectorContext], Iterable[tuple[int, int]]]
"""``find(text, ctx)``: ``(start, end)`` of each finding in ``text``.

``text`` is already normalised (``textmap.normalize``: NFKC, every dash a
hyphen, every script's digits ASCII, zero-width and bidi controls removed), so
a detector matches ASCII digits ``[0-9]`` and ``-`` and never ``\\d``. Pure and
deterministic; call ``ctx.budget.check()`` inside any loop that can grow.
"""
