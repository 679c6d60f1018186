"""The detectors that read their candidates from the gates' scan, next to their whole-text
scans, in one run.

The answers of ``bench/rules.py``'s turns (same seeds, same texts; rich and clean),
normalised as the check reads them. For each seeded detector (``gates.detectors``), on
the answers its gate opens for, as the check runs it: ``find(text)`` reading the whole
text, and ``find(text)`` with the candidates of the gates' Hyperscan pass; each call
timed alone with ``perf_counter_ns``, the two interleaved item by item so machine noise
falls on both. Findings must be identical (a difference is printed and fails the run).
Then the shared pass itself: every detector's gates without seeds (``Gates.open``) and
with the seeds of all three (``Gates.read``), the price the candidates add to it.

Needs the ``hyperscan`` package. Run: python bench/candidates.py [--turns 2000]
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

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import rules  # noqa: E402

from turncheck.worker.checks.budget import Budget  # noqa: E402
from turncheck.worker.checks.gates import Gates, available  # noqa: E402
from turncheck.worker.checks.gates.detectors import detector_gates, detector_seeds  # noqa: E402
from turncheck.worker.checks.sensitive import DETECTORS, DetectorContext  # noqa: E402
from turncheck.worker.checks.textmap import normalize  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402

SEEDED = ("phone", "iban", "bank_account")
DOMAINS = ("corp.shopwell.example",)


def interleaved(calls: dict[str, Callable[[int], Any]], count: int) -> dict[str, list[int]]:
    """Nanoseconds of each call on each item, the calls in a shuffled order per item."""
    order, shuffle = list(calls), random.Random(7).shuffle
    out: dict[str, list[int]] = {name: [] for name in order}
    for i in range(count):
        shuffle(order)
        for name in order:
            start = time.perf_counter_ns()
            calls[name](i)
            out[name].append(time.perf_counter_ns() - start)
    return out


def answers(count: int, *, clean: bool) -> list[str]:
    rng = random.Random(20261130 if clean else 20261129)
    turns = [decode_turn(rules.make_turn(rng, i, clean=clean)) for i in range(count)]
    return [normalize(t.output.text, Budget.unlimited()).text for t in turns]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    args = parser.parse_args()
    if "hyperscan" not in available():
        sys.exit("needs the hyperscan package")
    every_gate = detector_gates(DOMAINS)
    plain = Gates(every_gate, "hyperscan")
    seeded = Gates(every_gate, "hyperscan", seeds=detector_seeds(SEEDED))
    whole = DetectorContext()
    failed = False
    for label, texts in (
        ("rich", answers(args.turns, clean=False)),
        ("clean", answers(args.turns, clean=True)),
    ):
        reads = [seeded.read(t) for t in texts]
        print(f"{label} answers: {len(texts)}, µs per answer (mean over all answers)")
        print(f"{'':28}{'opened':>8}{'whole':>9}{'seeded':>9}{'ratio':>8}")
        for name in SEEDED:
            find = DETECTORS[name]
            items = [
                (t, DetectorContext(candidates=c))
                for t, (o, c) in zip(texts, reads, strict=True)
                if name in o
            ]
            if any(list(find(t, whole)) != list(find(t, ctx)) for t, ctx in items):
                print(f"  {name}: findings differ")
                failed = True
            got = interleaved(
                {
                    "whole": lambda i, find=find, items=items: list(find(items[i][0], whole)),
                    "seeded": lambda i, find=find, items=items: list(find(*items[i])),
                },
                len(items),
            )
            a, b = (sum(got[k]) / len(texts) / 1e3 for k in ("whole", "seeded"))
            print(f"  {name:26}{len(items):8}{a:9.1f}{b:9.1f}{a / b if b else 0:7.1f}x")
        got = interleaved(
            {
                "open": lambda i, texts=texts: plain.open(texts[i]),
                "read": lambda i, texts=texts: seeded.read(texts[i]),
            },
            len(texts),
        )
        a, b = (statistics.mean(got[k]) / 1e3 for k in ("open", "read"))
        print(f"  {'the pass: open / read':26}{'':8}{a:9.1f}{b:9.1f}{a / b:7.2f}x\n")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
