"""``facts`` reading its seeds from the gates' scan, next to ``facts`` reading whole texts,
in one run.

The turns of ``bench/rules.py`` (same seeds, same texts; rich and clean) and its
``facts-supported`` check, compiled twice on Hyperscan: as the check compiles there (the
seeds of ``gates.facts.FACT_SEEDS`` in the answer's and the sources' gate scans) and with
the seeds left out (the whole-text scans of before). Timed alone with ``perf_counter_ns``,
the two interleaved turn by turn in a shuffled order so machine noise falls on both:

* the check, whole, per turn (a fresh budget, so each call reads its turn anew);
* its parts the seeds touch: the answer's extraction (the gate scan and every extractor)
  and the sources' dates (their gate scan and ``find_dates``).

Outcomes and facts must be identical (a difference is printed and fails the run).

Needs the ``hyperscan`` package. Run: python bench/facts_seeds.py [--turns 2000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import rules  # noqa: E402
from candidates import interleaved  # noqa: E402

import turncheck.worker.checks.facts as facts_check  # noqa: E402
from turncheck.worker.checks import gates, parse_check_file  # noqa: E402
from turncheck.worker.checks.budget import Budget  # noqa: E402
from turncheck.worker.checks.facts.extract import extract_facts  # noqa: E402
from turncheck.worker.checks.facts.index import SourceIndex, source_gates  # noqa: E402
from turncheck.worker.checks.facts.sources import join_sources, source_texts  # noqa: E402
from turncheck.worker.checks.gates import Gates  # noqa: E402
from turncheck.worker.checks.gates.facts import FACT_GATES, FACT_SEEDS  # noqa: E402
from turncheck.worker.checks.textmap import normalize  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402
from turncheck.worker.turns.structs import Turn  # noqa: E402

TODAY = date(2026, 11, 29)


def checks() -> tuple[Callable[[Turn, Budget], Any], Callable[[Turn, Budget], Any]]:
    """``facts-supported`` compiled on Hyperscan with its seeds, and without them (the
    check seeds where the engine is Hyperscan: told here it is another)."""
    definition = next(c for c in parse_check_file(rules.CHECKS).checks if c.kind == "facts")
    with gates.use("hyperscan"):
        seeded = facts_check.compile_check(definition)  # type: ignore[arg-type]
        with mock.patch.object(facts_check, "engine_name", lambda: "whole"):
            whole = facts_check.compile_check(definition)  # type: ignore[arg-type]
    return seeded, whole


def row(label: str, got: dict[str, list[int]]) -> None:
    a, b = (statistics.mean(got[k]) / 1e3 for k in ("whole", "seeded"))
    print(f"  {label:30}{a:9.1f}{b:9.1f}{a / b:8.2f}x")


def calls(
    turns: list[Turn], check: Callable[[Turn, Budget], Any], answer: Gates, sources: Gates
) -> dict[str, Callable[[int], Any]]:
    """Per part timed, its call on the ``i``-th turn."""
    unlimited = Budget.unlimited()
    texts = [normalize(t.output.text, unlimited).text for t in turns]
    blobs = [join_sources(source_texts(t, (), unlimited), unlimited) for t in turns]
    return {
        # A fresh budget: the check reads its turn anew, as the next turn's check would.
        "facts-supported, per turn": lambda i: check(turns[i], Budget.unlimited()),
        "answer: gate scan + extract": lambda i: extract_facts(
            texts[i], unlimited, *answer.read(texts[i])
        ),
        "sources: gate scan + dates": lambda i: (
            SourceIndex(blobs[i], TODAY, 3, unlimited, sources).date_matches
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    args = parser.parse_args()
    if "hyperscan" not in gates.available():
        sys.exit("needs the hyperscan package")
    seeded_check, whole_check = checks()
    with gates.use("hyperscan"):
        source_plain, source_seeded = source_gates(), source_gates(seeded=True)
    plain = (whole_check, Gates(FACT_GATES, "hyperscan"), source_plain)
    seeded = (seeded_check, Gates(FACT_GATES, "hyperscan", seeds=FACT_SEEDS), source_seeded)
    failed = False
    for label, clean, seed in (("rich", False, 20261129), ("clean", True, 20261130)):
        rng = random.Random(seed)
        turns = [decode_turn(rules.make_turn(rng, i, clean=clean)) for i in range(args.turns)]
        whole, seeds = calls(turns, *plain), calls(turns, *seeded)
        print(f"{label} turns: {len(turns)}, µs per turn (mean)")
        print(f"  {'':30}{'whole':>9}{'seeded':>9}{'ratio':>9}")
        for name in whole:
            if not all(_same(whole[name](i), seeds[name](i)) for i in range(len(turns))):
                print(f"  {name}: findings differ")
                failed = True
            row(name, interleaved({"whole": whole[name], "seeded": seeds[name]}, len(turns)))
        print()
    if failed:
        sys.exit(1)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list) and a and hasattr(a[0], "groupdict"):
        return [(m.span(), m.groupdict()) for m in a] == [(m.span(), m.groupdict()) for m in b]
    return bool(a == b)


if __name__ == "__main__":
    main()
