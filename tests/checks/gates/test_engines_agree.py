"""Differential test (a): Hyperscan and the pure-Python engine open the same gates.

Every atom of every gate the checks compile (each detector's, the bench's
and the examples' phrases and patterns) goes into one database per engine;
both must report the same atoms on every corpus text, a disguised copy of
each, the bench's answers, random Unicode and long texts; and, with the
detectors' seeds in the same database, the same atoms and every seed's starts.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from tests.checks.gates.checksets import rule_checks
from tests.checks.gates.texts import bench_module, corpus_texts, disguise, random_text
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.gates import Atom, gate_text
from turncheck.worker.checks.gates.detectors import detector_gates, detector_seeds
from turncheck.worker.checks.gates.engine import HyperscanEngine, PythonEngine, Seed
from turncheck.worker.checks.gates.literals import pattern_gate, phrase_gates
from turncheck.worker.checks.textmap import fold

DETECTOR_NAMES = ("phone", "iban", "bank_account")


def _every_atom() -> list[Atom]:
    atoms: dict[Atom, None] = {}
    gates = list(detector_gates(("corp.shopwell.example", "acme.internal")).values())
    for definition in rule_checks().checks:
        if definition.kind == "pattern":
            gates.append(
                pattern_gate(
                    definition.pattern,
                    "ignorecase" in definition.flags,
                    "verbose" in definition.flags,
                )
            )
        elif definition.kind == "does_not_contain":
            folded = (fold(p, Budget.unlimited()).text.strip() for p in definition.phrases)
            gates.extend(phrase_gates(folded).values())
    for gate in gates:
        for clause in gate:
            atoms.update(dict.fromkeys(clause))
    return list(atoms)


ATOMS = _every_atom()
# Compared where Hyperscan is installed (the dev extra installs it); under CI it must be.
compares = pytest.mark.usefixtures("hyperscan_installed")


@cache
def _engines() -> tuple[HyperscanEngine, PythonEngine]:
    return HyperscanEngine(ATOMS), PythonEngine(ATOMS)


SEEDS: list[Seed] = list(
    dict.fromkeys(s for seeds in detector_seeds(DETECTOR_NAMES).values() for s in seeds)
)


@cache
def _seeded_engines() -> tuple[HyperscanEngine, PythonEngine]:
    return HyperscanEngine(ATOMS, SEEDS), PythonEngine(ATOMS, SEEDS)


def _disagreements(texts: list[str]) -> list[tuple[int, list[str]]]:
    hyperscan, python = _engines()
    seeded_hyperscan, seeded_python = _seeded_engines()
    out = []
    for i, text in enumerate(texts):
        framed = gate_text(text)
        fast, slow = hyperscan.scan(framed), python.scan(framed)
        if fast != slow:
            out.append((i, [ATOMS[a].pattern for a in sorted(fast ^ slow)]))
        # The same atoms, and every start of every seed, when the seeds share the scan.
        (fast, fast_starts), (slow, slow_starts) = (
            seeded_hyperscan.read(framed),
            seeded_python.read(framed),
        )
        if fast != slow:
            out.append((i, [ATOMS[a].pattern for a in sorted(fast ^ slow)]))
        for seed, got, want in zip(SEEDS, fast_starts, slow_starts, strict=True):
            if got != want:
                out.append((i, [seed.pattern]))
    return out


def test_there_are_atoms_of_every_kind_to_compare() -> None:
    """The comparison covers literal, caseless and regex atoms, and the detectors' seeds."""
    assert len(ATOMS) > 40
    assert any(a.caseless for a in ATOMS) and any("[" in a.pattern for a in ATOMS)
    assert len(SEEDS) >= 8


@compares
def test_engines_agree_on_every_corpus_text_plain_and_disguised() -> None:
    """The same atoms match in each corpus text, and in a disguised copy of it."""
    rng = random.Random(1)
    texts = list(corpus_texts())
    texts += [disguise(t, rng) for t in texts for _ in range(2)]
    assert len(texts) > 3000
    assert _disagreements(texts) == []


@compares
def test_engines_agree_on_the_bench_answers() -> None:
    """The bench's answers, rich and clean, open the same atoms on both engines."""
    rules = bench_module()
    rng = random.Random(5)
    texts = [rules.make_turn(rng, i, clean=i % 2 == 1).decode() for i in range(300)]
    assert _disagreements(texts) == []


@compares
def test_engines_agree_on_random_unicode() -> None:
    """Random characters of every kind, short and long, open the same atoms."""
    rng = random.Random(2)
    texts = [random_text(rng, rng.randrange(1, 400)) for _ in range(3000)]
    texts += [random_text(rng, 100_000) for _ in range(3)]
    assert _disagreements(texts) == []


@compares
def test_engines_agree_on_long_texts() -> None:
    """A pasted document (corpus texts end to end, over half a megabyte) opens the same atoms."""
    rng = random.Random(3)
    texts = list(corpus_texts())
    document = "\n".join(rng.choice(texts) for _ in range(12_000))
    assert len(document) > 500_000
    assert _disagreements([document, disguise(document, rng), "7" * 200_000 + "@"]) == []


def test_the_gate_text_is_ascii_and_keeps_what_a_gate_reads() -> None:
    """Digits of any script, case-folding letters and accents come out as ASCII; the rest
    is a separator, invisible characters go."""
    framed = gate_text("\u0664\u0661\u0661\u0661 \u0130D caf\u00e9 \u2014\u200b\u6f22")
    assert framed.isascii()
    assert framed == " 4111 iD cafe ?? "
