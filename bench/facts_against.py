"""``facts`` of this checkout against another checkout's, in one process, turn by turn.

``rules.py``'s rich and clean turns and its ``facts-supported`` check, compiled on
Hyperscan by each copy of turncheck: this one (installed, editable) and the one at
``--other`` (a checkout of the same repository, imported from there as a second copy of
the package). Each turn is decoded by each copy and checked by both, in a shuffled
order, each call timed alone with ``perf_counter_ns`` and a fresh budget, after 200
warm-up turns and with the heap frozen: a busy moment of a shared machine falls on both
alike, so the ratio holds where absolute times do not. Outcomes (verdict, reason, spans)
must be identical: a difference fails the run.

Run: python bench/facts_against.py --other /path/to/main [--turns 2000]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import rules  # noqa: E402

WARMUP = 200
Side = tuple[Callable[[Any, Any], Any], Callable[[], Any], Callable[[bytes], Any]]


def _side() -> Side:
    """The ``facts-supported`` check, a fresh budget, and the decoder of the turncheck
    that ``import turncheck`` finds now."""
    from turncheck.worker.checks import facts as facts_check
    from turncheck.worker.checks import gates, parse_check_file
    from turncheck.worker.checks.budget import Budget
    from turncheck.worker.turns.decode import decode_turn

    definition = next(c for c in parse_check_file(rules.CHECKS).checks if c.kind == "facts")
    with gates.use("hyperscan"):
        check = facts_check.compile_check(definition)  # type: ignore[arg-type]
    return check, Budget.unlimited, decode_turn


def _other_side(checkout: Path) -> Side:
    """The same from ``checkout``: this copy's modules set aside, the editable install's
    finder left out, and the checkout imported as ``turncheck`` from a link to it."""
    for name in [n for n in sys.modules if n == "turncheck" or n.startswith("turncheck.")]:
        del sys.modules[name]
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path_hooks[:] = [h for h in sys.path_hooks if "editable" not in repr(h).lower()]
    link = Path(tempfile.mkdtemp()) / "turncheck"
    link.symlink_to(checkout.resolve())
    sys.path.insert(0, str(link.parent))
    importlib.invalidate_caches()
    side = _side()
    loaded = importlib.import_module("turncheck")
    if Path(next(iter(loaded.__path__))).resolve() != checkout.resolve():
        sys.exit(f"imported turncheck from {list(loaded.__path__)}, not {checkout}")
    return side


def _outcome(result: Any) -> tuple[Any, ...]:
    spans = tuple((s.field, s.start, s.end, s.label) for s in result.spans)
    return (str(result.verdict), result.reason, spans)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", type=Path, required=True, help="another checkout")
    parser.add_argument("--turns", type=int, default=2000)
    args = parser.parse_args()
    sides = {"this": _side(), "other": _other_side(args.other)}
    failed = False
    print(f"µs per turn, {args.turns - WARMUP} turns after {WARMUP} warm-up")
    print(f"{'':8}{'other':>9}{'this':>9}{'ratio':>8}   {'median':>7}{'':>9}{'ratio':>8}")
    for label, clean, seed in (("rich", False, 20261129), ("clean", True, 20261130)):
        rng = random.Random(seed)
        raw = [rules.make_turn(rng, i, clean=clean) for i in range(args.turns)]
        turns = {name: [side[2](r) for r in raw] for name, side in sides.items()}
        gc.collect()
        gc.freeze()
        ns: dict[str, list[int]] = {name: [] for name in sides}
        outcomes: dict[str, list[Any]] = {name: [] for name in sides}
        order = list(sides)
        shuffle = random.Random(7).shuffle
        for i in range(args.turns):
            shuffle(order)
            for name in order:
                check, budget, _ = sides[name]
                start = time.perf_counter_ns()
                result = check(turns[name][i], budget())
                elapsed = time.perf_counter_ns() - start
                if i >= WARMUP:
                    ns[name].append(elapsed)
                    outcomes[name].append(_outcome(result))
        if outcomes["this"] != outcomes["other"]:
            print(f"{label}: outcomes differ")
            failed = True
        mean = {name: statistics.mean(v) / 1e3 for name, v in ns.items()}
        median = {name: statistics.median(v) / 1e3 for name, v in ns.items()}
        print(
            f"{label:8}{mean['other']:9.1f}{mean['this']:9.1f}{mean['other'] / mean['this']:7.2f}x"
            f"   {median['other']:7.1f}{median['this']:9.1f}"
            f"{median['other'] / median['this']:7.2f}x"
        )
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
