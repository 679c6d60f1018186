"""Several ``facts`` checks on one turn: the turn read once and shared, or once per check.

On ``rules.py``'s rich turns, in one run, item by item in a shuffled order: one ``facts``
check of every kind; three checks splitting the kinds (amounts and dates; contacts and
links; IDs and quotes) sharing the turn's budget as ``evaluate`` runs them, so the second
and third read the first one's reading (``facts.reading``); and the same three each under
a budget of its own, which reads the turn again for every check, as each did before.
Prints mean and p50 microseconds per turn and the ratios.

Run: python bench/facts_shared.py [--turns 1000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from rules import make_turn

from turncheck.schemas.checkfile import FactsCheck
from turncheck.worker.checks import gates
from turncheck.worker.checks.budget import Budget
from turncheck.worker.checks.facts import compile_check
from turncheck.worker.turns.decode import decode_turn

WARMUP = 200
SPLIT = (["amount", "date"], ["email", "phone", "link"], ["id", "quote"])


def _check(**definition: Any) -> FactsCheck:
    return FactsCheck.model_validate({"name": "facts", "kind": "facts", **definition})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1_000)
    args = parser.parse_args()
    with gates.use("auto"):
        whole = compile_check(_check())
        split = [compile_check(_check(kinds=kinds)) for kinds in SPLIT]
    rng = random.Random(20261129)
    turns = [decode_turn(make_turn(rng, i)) for i in range(WARMUP + args.turns)]

    def shared(i: int) -> None:
        budget = Budget.unlimited()
        for run in split:
            run(turns[i], budget)

    def apart(i: int) -> None:
        for run in split:
            run(turns[i], Budget.unlimited())

    calls: dict[str, Callable[[int], Any]] = {
        "one check, every kind": lambda i: whole(turns[i], Budget.unlimited()),
        "three checks, shared": shared,
        "three checks, apart": apart,
    }
    ns: dict[str, list[int]] = {name: [] for name in calls}
    order, shuffle = list(calls), random.Random(7).shuffle
    for i in range(len(turns)):
        shuffle(order)
        for name in order:
            start = time.perf_counter_ns()
            calls[name](i)
            if i >= WARMUP:
                ns[name].append(time.perf_counter_ns() - start)
    print(f"{args.turns} rich turns after {WARMUP} warm-up, gates: {gates.engine_name()}")
    for name, times in ns.items():
        mean, p50 = statistics.mean(times) / 1e3, statistics.median(times) / 1e3
        print(f"{name:24}{mean:9.1f} µs mean{p50:9.1f} µs p50")
    one, together, alone = (statistics.mean(ns[name]) for name in calls)
    print(f"apart / shared: {alone / together:.2f}x; shared / one check: {together / one:.2f}x")


if __name__ == "__main__":
    main()
