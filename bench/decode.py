"""Decoding a turn: the worker's msgspec decoder next to pydantic's, on the same messages.

For each message (a minimal turn, a turn with every field, 8 KB turns of long texts and of
many small parts) prints the microseconds per decode of `decode_turn` (msgspec, as the
worker runs it, guards included), of `Turn.model_validate_json` (the contract's pydantic
model: the worker's decoder before) and of a bare `json.loads`, and the ratio pydantic /
msgspec. All in one run, interleaved, the best of several rounds (the figure least
disturbed by a shared machine), with the garbage collector on, as in the worker.

Run: python bench/decode.py [--rounds 7] [--number 2000]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.factories import turn_bytes  # noqa: E402
from tests.turns.decode_cases import padded_turn, rich_turn, structured_turn  # noqa: E402
from turncheck.schemas.turn import Turn as TurnContract  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402

MESSAGES = {
    "minimal": turn_bytes(),
    "every field": json.dumps(rich_turn()).encode(),
    "8 KB, long texts": padded_turn(8_000),
    "8 KB, many parts": structured_turn(8_000),
    "8 KB, not ASCII": json.dumps(
        json.loads(padded_turn(8_000).replace(b"warehouse", b"entrep\\u00f4t \\u2014")),
        ensure_ascii=False,
    ).encode(),
}

GLOBALS = {"gc": gc}
DECODERS: dict[str, Callable[[bytes], object]] = {
    "msgspec": decode_turn,
    "pydantic": TurnContract.model_validate_json,
    "json.loads": json.loads,
}


def best_us(decoder: Callable[[bytes], object], raw: bytes, rounds: int, number: int) -> float:
    times = timeit.repeat(
        lambda: decoder(raw), setup="gc.enable()", number=number, repeat=rounds, globals=GLOBALS
    )
    return min(times) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    args = parser.parse_args()
    for raw in MESSAGES.values():  # the same data from both, before any is timed
        assert decode_turn(raw).turn_id == TurnContract.model_validate_json(raw).turn_id
    print(f"{'message':<18} {'bytes':>6} " + " ".join(f"{n + ' us':>13}" for n in DECODERS))
    for name, raw in MESSAGES.items():
        best = {n: float("inf") for n in DECODERS}
        for _ in range(args.rounds):  # interleaved, so load spikes hit every decoder alike
            for n, decoder in DECODERS.items():
                best[n] = min(best[n], best_us(decoder, raw, 1, args.number))
        ratio = best["pydantic"] / best["msgspec"]
        cells = " ".join(f"{best[n]:>13.2f}" for n in DECODERS)
        print(f"{name:<18} {len(raw):>6} {cells}   pydantic/msgspec {ratio:.1f}x")


if __name__ == "__main__":
    main()
