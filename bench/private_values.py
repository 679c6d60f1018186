"""``private_values`` with the native extension next to the pure-Python reference, in one run.

The same texts through ``find_private_values`` twice, once on the ``turncheck_native``
extension (Rust) and once on the pure-Python reference, each call timed alone with
``perf_counter_ns`` and the two interleaved item by item, so machine noise falls on both.
Findings must be identical (any difference is printed and fails the run).

Cases: the answers of ``bench/rules.py``'s turns (same seed, same text) with the turn's
one private value; the same answers with four salts, each with a case-folded digest;
pasted documents of about 100 KB (several windows).

Needs the extension: install turncheck with cargo >= 1.85 on the path.
Run: python bench/private_values.py [--turns 2000]
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from rules import WARMUP, make_turn  # noqa: E402

from turncheck.worker.checks.budget import Budget  # noqa: E402
from turncheck.worker.checks.sensitive import private_values  # noqa: E402
from turncheck.worker.checks.sensitive.context import DetectorContext  # noqa: E402
from turncheck.worker.checks.sensitive.native import NATIVE, Native  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402
from turncheck.worker.turns.structs import PrivateValue  # noqa: E402

BUDGET_MS = 1000.0

Case = tuple[str, tuple[PrivateValue, ...]]


def value(salt: str, text: str, folded: bool = False) -> PrivateValue:
    exact = hashlib.sha256((salt + text).encode()).hexdigest()
    fold = hashlib.sha256((salt + text.casefold()).encode()).hexdigest() if folded else None
    return PrivateValue(salt=salt, sha256=exact, sha256_casefold=fold)


def cases(turns: int) -> dict[str, list[Case]]:
    rng = random.Random(20261129)  # bench/rules.py's seed: the same turns
    parsed = [decode_turn(make_turn(rng, i)) for i in range(WARMUP + turns)]
    answers = [(t.output.text, tuple(t.private_values)) for t in parsed]
    salted = [
        (text, (*values, *(value(f"{i:016x}", f"gate code {i}", True) for i in range(4))))
        for text, values in answers
    ]
    documents = []
    for i in range(WARMUP // 10 + max(turns // 100, 10)):
        text = " ".join(t.output.text for t in rng.sample(parsed, 64))  # about 100 KB
        documents.append((f"{text} Your gate code {i} works.", (value("pepper", f"code {i}"),)))
    return {"answers, 1 salt": answers, "answers, 4 salts + folded": salted, "~100 KB": documents}


def find(native: Native | None) -> Callable[[Case], list[tuple[int, int]]]:
    def run(case: Case) -> list[tuple[int, int]]:
        private_values.native = native
        ctx = DetectorContext(private_values=case[1], budget=Budget.of_ms(BUDGET_MS))
        return list(private_values.find_private_values(case[0], ctx))

    return run


def interleaved(
    runs: Sequence[Callable[[Case], list[tuple[int, int]]]], items: Sequence[Case], warmup: int
) -> tuple[list[list[int]], int, int]:
    """Nanoseconds of each run per item after ``warmup`` items; items whose findings differ;
    items timed with findings."""
    ns: list[list[int]] = [[] for _ in runs]
    differ = found = 0
    for n, item in enumerate(items):
        results = []
        for times, run in zip(ns, runs, strict=True):
            start = time.perf_counter_ns()
            results.append(run(item))
            if n >= warmup:
                times.append(time.perf_counter_ns() - start)
        differ += any(r != results[0] for r in results)
        found += n >= warmup and bool(results[0])
    return ns, differ, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2_000)
    args = parser.parse_args()
    if NATIVE is None:
        sys.exit("turncheck_native is not built: pip install -e . with cargo >= 1.85 on the path")
    print(
        f"{'case':28}{'items':>6}{'found':>6}{'pure µs':>10}{'native µs':>11}"
        f"{'pure p99':>10}{'native p99':>11}{'ratio':>7}"
    )
    failed = False
    for label, items in cases(args.turns).items():
        warmup = WARMUP if len(items) > WARMUP else len(items) // 5
        (pure, native), differ, found = interleaved([find(None), find(NATIVE)], items, warmup)
        p99 = [
            statistics.quantiles(ns, n=100, method="inclusive")[98] / 1e3 for ns in (pure, native)
        ]
        mean = [statistics.mean(ns) / 1e3 for ns in (pure, native)]
        print(
            f"{label:28}{len(pure):6}{found:6}{mean[0]:10.1f}{mean[1]:11.1f}"
            f"{p99[0]:10.1f}{p99[1]:11.1f}{mean[0] / mean[1]:6.1f}x"
        )
        if differ:
            print(f"  {differ} items with different findings")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
