"""``instructions_leak``'s gate: whether a text can hold a copy of the instructions at all.

Every copy ``copies.find`` reports grows from an anchor: ``a`` consecutive words
of the text (``source.anchor_words``) equal to ``a`` consecutive words of the
instructions. Words are maximal runs of letters and digits, case-folded, so
when a text holds an anchor ``w1 w2 w3`` of ASCII words, the text case-folded
with every character but ASCII letters and digits deleted (two C-speed
passes) holds ``w1w2w3``: what stands between two words goes, they stay.
One Hyperscan scan for every anchor's concatenation then answers most texts
at once: a text without any cannot hold a copy. An anchor with a word of
other letters than ASCII ones has no such view: while the instructions have
one, only a text of ASCII characters (whose words can never be that word) is
gated.

Loose, as a gate is: the concatenation also matches across word boundaries
other than the anchor's. The database costs about a millisecond to build, so
it is built for instructions seen ``_SIGHTINGS`` times (the same prompt turn
after turn), never for a prompt that changes every turn; without Hyperscan
there is no gate (a substring test per anchor costs what the detector does).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from turncheck.worker.checks.gates import GATED_CHARS
from turncheck.worker.checks.gates.engine import Atom, Engine, build, hyperscan
from turncheck.worker.checks.sensitive import copies

# Sightings of the same instructions before their database is built, and how many
# different instructions are counted (forgotten all at once when full).
_SIGHTINGS = 3
_COUNTED = 4_096
# Every byte but ASCII letters and digits: ``bytes.translate`` deletes them in C.
_NOT_ALNUM = bytes(b for b in range(256) if not (b < 128 and chr(b).isalnum()))


@dataclass(frozen=True, slots=True)
class _Gate:
    engine: Engine | None
    """The anchors' concatenations; None when the instructions have no ASCII anchor."""
    ascii_only: bool
    """Every anchor is ASCII words: a text with other characters is gated too."""


# Longer instructions are indexed anew for every text: no database is kept for them.
_INDEXED_CHARS = 32_768
# Databases kept, for as many instructions as ``instructions_leak`` keeps indexed.
_KEPT = 64

# Sightings by the instructions' hash: a collision only builds a database sooner.
_seen: dict[tuple[int, int], int] = {}
_gates: dict[tuple[str, int], _Gate] = {}
_lock = threading.Lock()


def may_copy(text: str, instructions: str, n: int, source: copies.IndexedText) -> bool:
    """False only when ``text`` (the plain text the detector reads) holds no anchor of
    ``source``, the instructions' index for copies of ``n`` words; True when unsure."""
    if hyperscan is None or len(text) > GATED_CHARS or len(instructions) > _INDEXED_CHARS:
        return True
    key = (instructions, n)
    gate = _gates.get(key)
    if gate is None:
        with _lock:
            if len(_seen) >= _COUNTED:
                _seen.clear()
            seen = (hash(instructions), n)
            sightings = _seen[seen] = _seen.get(seen, 0) + 1
        if sightings < _SIGHTINGS:
            return True
        gate = _built(source)
        with _lock:
            while len(_gates) >= _KEPT:
                del _gates[next(iter(_gates))]
            _gates[key] = gate
    is_ascii = text.isascii()
    if not (is_ascii or gate.ascii_only):
        return True
    if gate.engine is None:
        return False
    folded = (text.lower() if is_ascii else text.casefold()).encode("ascii", "ignore")
    return bool(gate.engine.scan(folded.translate(None, _NOT_ALNUM).decode("ascii")))


def _built(source: copies.IndexedText) -> _Gate:
    ascii_anchors = [key for key in source.anchors if all(_ascii_word(w) for w in key)]
    ascii_only = len(ascii_anchors) == len(source.anchors)
    if not ascii_anchors:
        return _Gate(None, ascii_only)
    atoms = [Atom.literal(text) for text in sorted({"".join(key) for key in ascii_anchors})]
    return _Gate(build(atoms, "hyperscan"), ascii_only)


def _ascii_word(word: str) -> bool:
    return word.isascii() and word.isalnum()
