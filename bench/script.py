"""Script checks per turn: a trivial program and the competitor example, next to a bare
JSON round trip of the same turns.

Measures, in one run, over the turns of ``examples/turns.jsonl`` (cycled to ``--turns``):
  1. ``trivial``: a script check whose program only reports a pass
     (``response.setResponse({pass: true})``): what a script check costs at the least (the
     call into V8 and back, the turn's variables, the history's JSON);
  2. ``competitors``: ``examples/scripts/competitors.js``, the seed's example;
  3. ``json``: ``json.dumps(json.loads(raw))`` of each turn: what any Python worker pays.
Each call is timed alone with ``perf_counter_ns`` after a warm-up, the three in a shuffled
order per turn, so a busy moment of a shared machine falls on all of them. Also: the time to
compile a check (its context built once per process) and a run on a 1 MB reply.

Read the ratios on a noisy machine. The goal (issue 20): a trivial script well under 1 ms
per turn. Run: python bench/script.py [--turns 5000]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from turncheck.schemas.checkfile import ScriptCheck  # noqa: E402
from turncheck.worker.checks import script  # noqa: E402
from turncheck.worker.checks.budget import Budget  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402
from turncheck.worker.turns.structs import Turn  # noqa: E402

WARMUP = 200
TRIVIAL = "response.setResponse({pass: true});"
COMPETITORS = (ROOT / "examples" / "scripts" / "competitors.js").read_text()


def compiled(program: str) -> tuple[Callable[[Turn, Budget], object], float]:
    definition = ScriptCheck.model_validate({"name": "bench", "kind": "script", "script": program})
    started = time.perf_counter_ns()
    run = script.compile_check(definition)
    return run, (time.perf_counter_ns() - started) / 1e6


def figures(name: str, times_ns: list[int], floor_ns: float | None) -> str:
    ordered = sorted(times_ns)
    mean = statistics.fmean(ordered)
    p50 = ordered[len(ordered) // 2]
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    ratio = f"{mean / floor_ns:6.1f}x" if floor_ns else "     -"
    return f"| {name:<12} | {mean / 1e3:8.1f} | {p50 / 1e3:8.1f} | {p99 / 1e3:8.1f} | {ratio} |"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=5000)
    args = parser.parse_args()
    lines = (ROOT / "examples" / "turns.jsonl").read_bytes().splitlines()
    raws = [lines[i % len(lines)] for i in range(args.turns)]
    turns = [decode_turn(raw) for raw in raws]
    trivial, trivial_ms = compiled(TRIVIAL)
    competitors, competitors_ms = compiled(COMPETITORS)
    budget = Budget.unlimited()

    def round_trip(raw: bytes) -> object:
        return json.dumps(json.loads(raw))

    for turn, raw in zip(turns[:WARMUP], raws[:WARMUP], strict=True):
        trivial(turn, budget), competitors(turn, budget), round_trip(raw)
    timed: dict[str, list[int]] = {"trivial": [], "competitors": [], "json": []}
    calls: dict[str, Callable[[Turn, bytes], object]] = {
        "trivial": lambda turn, _raw: trivial(turn, budget),
        "competitors": lambda turn, _raw: competitors(turn, budget),
        "json": lambda _turn, raw: round_trip(raw),
    }
    order = list(calls)
    rng = random.Random(20)
    for turn, raw in zip(turns, raws, strict=True):
        rng.shuffle(order)
        for name in order:
            started = time.perf_counter_ns()
            calls[name](turn, raw)
            timed[name].append(time.perf_counter_ns() - started)

    big = decode_turn(
        json.dumps(
            {**json.loads(raws[1]), "output": {"text": "x" * 1_000_000 + " HelpCo"}}
        ).encode()
    )
    started = time.perf_counter_ns()
    outcome = competitors(big, budget)
    big_ms = (time.perf_counter_ns() - started) / 1e6

    floor = statistics.fmean(timed["json"])
    print(f"{args.turns} turns from examples/turns.jsonl, microseconds per turn")
    print("| run          |     mean |      p50 |      p99 | / json |")
    print("|---|---|---|---|---|")
    for name in ("trivial", "competitors"):
        print(figures(name, timed[name], floor))
    print(figures("json", timed["json"], None))
    print(f"compile (context built): trivial {trivial_ms:.1f} ms, others {competitors_ms:.1f} ms")
    print(f"competitors on a 1 MB reply: {big_ms:.1f} ms ({getattr(outcome, 'verdict', '?')})")


if __name__ == "__main__":
    main()
