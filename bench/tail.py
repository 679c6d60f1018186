"""The slow 1% of rich turns: which turns, slow every time or only once, and where they go.

On ``rules.py``'s rich turns (same seeds), with ``rules_checks.yaml``: every turn is timed
``--passes`` times (``evaluate``, as ``rules.py`` calls it), each pass in a fresh shuffled
order. A turn's *cost* is its fastest pass (what the turn needs on a quiet CPU); a pass
much slower than that was the machine, not the turn. So:
  1. p50 / p99 of all passes (what ``rules.py`` reports) beside p50 / p99 of the turns'
     costs: if the two p99 agree, the tail is in the turns themselves;
  2. the median cost of the turns holding each of ``rules.SPRINKLES`` (the sentences that
     carry a card, an IBAN, a private value...) against the turns holding none;
  3. the slowest 1% of turns by cost, each rerun ``--reruns`` times (median), with what
     their answers hold;
  4. each check and detector alone, mean µs, on the slow turns and on as many median ones;
  5. with ``--profile``: cProfile's top functions over the slow turns and the median ones.

``--summary`` prints 1 only: run it alternately on two checkouts to compare them.
Run: python bench/tail.py [--turns 2000] [--passes 5] [--profile | --summary]
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from rules import BUDGET_MS, CHECKS, SPRINKLES, WARMUP, make_turn  # noqa: E402

from turncheck.worker.checks import CheckSet, load_checks, parse_check_file  # noqa: E402
from turncheck.worker.checks.budget import Budget  # noqa: E402
from turncheck.worker.checks.definitions import COMPILERS  # noqa: E402
from turncheck.worker.pipeline.evaluate import evaluate  # noqa: E402
from turncheck.worker.runtime.heap import freeze_heap  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402
from turncheck.worker.turns.structs import Turn  # noqa: E402


def cut(ns: Sequence[float], q: int) -> float:
    return statistics.quantiles(ns, n=100, method="inclusive")[q - 1] / 1e6


def time_passes(
    call: Callable[[int], object], indices: Sequence[int], passes: int
) -> dict[int, list[int]]:
    """Nanoseconds of each pass of ``call`` on each index, the passes in shuffled orders."""
    out: dict[int, list[int]] = {i: [] for i in indices}
    order = list(indices)
    shuffle = random.Random(11).shuffle
    for _ in range(passes):
        shuffle(order)
        for i in order:
            start = time.perf_counter_ns()
            call(i)
            out[i].append(time.perf_counter_ns() - start)
    return out


def alone_checks() -> list[tuple[str, Callable[[Turn, Budget], object]]]:
    """Each check of the rule set compiled alone, and each sensitive-data detector alone."""
    out = []
    for definition in parse_check_file(CHECKS).checks:
        out.append((definition.name, COMPILERS[definition.kind](definition)))
        if definition.kind == "sensitive_data":
            for d in definition.detectors:
                one = definition.model_copy(update={"detectors": [d]})
                out.append((f"  [{d}]", COMPILERS[definition.kind](one)))
    return out


def sprinkles(turn: Turn) -> list[str]:
    """The ``rules.SPRINKLES`` sentences in a turn's answer, by their opening words."""
    text = turn.output.text
    return [s.split("{")[0][:24] for _, s in SPRINKLES if s.split("{")[0][:24] in text]


def by_sprinkle(turns: Sequence[Turn], cost: dict[int, int]) -> None:
    """The median cost of the turns holding each sprinkle, against those holding none."""
    plain = [c for i, c in cost.items() if not sprinkles(turns[i])]
    base = statistics.median(plain)
    print(f"\nmedian cost by what the answer holds ({len(plain)} turns hold no sprinkle:")
    print(f"{base / 1e6:.3f} ms); 'alone': turns holding only that one")
    print(f"  {'sprinkle':26}{'turns':>6}{'x plain':>9}{'alone':>6}{'x plain':>9}")
    for _, sentence in SPRINKLES:
        label = sentence.split("{")[0][:24]
        held = [i for i in cost if label in sprinkles(turns[i])]
        alone = [i for i in held if len(sprinkles(turns[i])) == 1]
        ratio = statistics.median(cost[i] for i in held) / base if held else 0
        ratio_alone = statistics.median(cost[i] for i in alone) / base if alone else 0
        print(f"  {label:26}{len(held):6}{ratio:9.2f}{len(alone):6}{ratio_alone:9.2f}")
    slowest = sorted(cost, key=cost.__getitem__)[-len(cost) // 100 :]
    held = sum(bool(sprinkles(turns[i])) for i in slowest)
    print(f"  the slowest 1%: {held} of {len(slowest)} hold a sprinkle")


def traits(turn: Turn) -> str:
    """What a turn's answer holds, in counts a reader can compare between turns."""
    text = turn.output.text
    digits = sum(c.isdigit() for c in text)
    return f"{len(text):5} chars {digits:4} digits {text.count('$'):2} '$'"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument("--reruns", type=int, default=50)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--summary", action="store_true", help="only the p50 and p99 lines")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    checks: CheckSet = load_checks([CHECKS])
    rng = random.Random(20261129)
    turns = [decode_turn(make_turn(rng, i)) for i in range(WARMUP + args.turns)]
    for i in range(WARMUP):
        evaluate(turns[i], checks, budget_ms=BUDGET_MS)
    freeze_heap()
    indices = range(WARMUP, len(turns))

    def run(i: int) -> object:
        return evaluate(turns[i], checks, budget_ms=BUDGET_MS)

    got = time_passes(run, indices, args.passes)
    every = [ns for times in got.values() for ns in times]
    cost = {i: min(times) for i, times in got.items()}
    print(f"{len(indices)} rich turns x {args.passes} passes")
    print(f"all passes:   p50 {cut(every, 50):.3f}  p99 {cut(every, 99):.3f} ms")
    print(f"turns' costs: p50 {cut(list(cost.values()), 50):.3f}  p99 ", end="")
    print(f"{cut(list(cost.values()), 99):.3f} ms (a turn's cost: its fastest pass)")
    first = [times[0] for times in got.values()]
    print(f"first pass:   p50 {cut(first, 50):.3f}  p99 {cut(first, 99):.3f} ms")

    if args.summary:
        return
    by_sprinkle(turns, cost)
    ranked = sorted(indices, key=cost.__getitem__)
    slow = ranked[-max(1, len(ranked) // 100) :]
    middle = len(ranked) // 2
    typical = ranked[middle - len(slow) // 2 : middle - len(slow) // 2 + len(slow)]
    rerun = time_passes(run, slow + typical, args.reruns)
    print(f"\nslowest 1% by cost, rerun {args.reruns}x alone (median ms), then median turns:")
    for i in slow + typical:
        print(f"  turn {i:5}  {statistics.median(rerun[i]) / 1e6:.3f}  {traits(turns[i])}")

    print("\neach check and detector alone, mean µs: slow turns / median turns")
    for label, check in alone_checks():
        means = []
        for group in (slow, typical):
            ns = time_passes(lambda i, c=check: c(turns[i], Budget.of_ms(BUDGET_MS)), group, 20)
            means.append(statistics.mean(t for ts in ns.values() for t in ts) / 1e3)
        print(f"  {label:40} {means[0]:8.1f} {means[1]:8.1f}")

    if args.profile:
        for label, group in (("slow", slow), ("median", typical)):
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(50):
                for i in group:
                    run(i)
            profile.disable()
            print(f"\n== cProfile, {label} turns ==")
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
