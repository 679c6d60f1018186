"""The store step alone on PostgreSQL: a batch's rows sent by statements (multi-row VALUES,
and one array per column for passed results) against COPY through staging tables, in one run.

Checks TURNS generated turns (those of ``throughput.py``) with the example checks once,
then stores them in batches of BATCH (the worker's ``batch_max_records``, 2000), one
batch per transaction as the worker does, with ``ResultWriter`` both ways, each into a
database of its own at head on the server of ``TURNCHECK_TEST_DATABASE_URL``. Rounds
alternate the two (fresh turn ids every round) and each is timed best of ROUNDS, by
wall time and by the bench process's CPU time: the worker's store step runs on its event
loop beside the checks, so its CPU is what it takes from them. The ratios are the
figures that survive a noisy machine. Six last rounds store the same batches again (a
redelivery: nothing new) both ways, best of six. "copy" is the writer as the worker has
it: COPY for a table's rows only from ``CopyFrom``'s counts. Then a sweep of batch sizes
(50 to 2000 turns) times statements, that writer and COPY for every table however few
its rows, alternated: where COPY starts to pay.

Needs `eval "$(bash scripts/services.sh env)"`.
Run: python bench/store.py [TURNS] [ROUNDS] [BATCH]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from bench.throughput import make_turns  # noqa: E402
from tests.conftest import fresh_store, scratch_database  # noqa: E402
from turncheck.worker.checks import load_checks  # noqa: E402
from turncheck.worker.clock import utc_now  # noqa: E402
from turncheck.worker.pipeline.evaluate import evaluate  # noqa: E402
from turncheck.worker.pipeline.records import TurnRef, TurnResults  # noqa: E402
from turncheck.worker.runtime.heap import freeze_heap  # noqa: E402
from turncheck.worker.store import Database, ResultWriter, Store  # noqa: E402
from turncheck.worker.store.tables import check_results, outbox, passed_results  # noqa: E402
from turncheck.worker.store.turn_writes import COPY_ALWAYS  # noqa: E402
from turncheck.worker.turns.decode import decode_turn  # noqa: E402

WAYS = ("statements", "copy")
REDELIVERIES = 6
SIZES = (50, 200, 500, 1000, 2000)
"""Batch sizes of the sweep: where COPY starts to pay (``CopyFrom``)."""


def checked_turns(count: int) -> list[TurnResults]:
    checks = load_checks([ROOT / "examples" / "checks.yaml"])
    items = []
    for raw in make_turns(count):
        turn = decode_turn(raw)
        items.append(TurnResults(TurnRef.of(turn), evaluate(turn, checks), timedelta(days=30)))
    return items


def renamed(items: list[TurnResults], round_no: int) -> list[TurnResults]:
    """The same results under fresh turn ids: every round writes new rows."""
    return [
        replace(item, turn=replace(item.turn, turn_id=f"r{round_no}-{item.turn.turn_id}"))
        for item in items
    ]


async def timed(writer: ResultWriter, items: list[TurnResults], batch: int) -> tuple[float, float]:
    """Wall and CPU seconds to store ``items`` in batches."""
    started, cpu_started = time.perf_counter(), time.process_time()
    for start in range(0, len(items), batch):
        await writer.save(items[start : start + batch], utc_now())
    return time.perf_counter() - started, time.process_time() - cpu_started


async def count_rows(database: Database, *tables: Any) -> int:
    total = 0
    async with database.transaction() as conn:
        for table in tables:
            total += int((await conn.execute(select(func.count()).select_from(table))).scalar_one())
    return total


async def main(count: int, rounds: int, batch: int) -> None:
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    items = checked_turns(count)
    # As the worker does once it has started: what is loaded stays out of the collector's way.
    freeze_heap()
    results = sum(len(item.results) for item in items)
    wall = dict.fromkeys(WAYS, float("inf"))
    cpu = dict.fromkeys(WAYS, float("inf"))
    again = dict.fromkeys(WAYS, float("inf"))
    rows = {}
    async with (
        scratch_database(server, "bench_store_statements") as statements_url,
        scratch_database(server, "bench_store_copy") as copy_url,
    ):
        stores = {
            "statements": await fresh_store(statements_url, "events"),
            "copy": await fresh_store(copy_url, "events"),
        }
        writers = {
            way: ResultWriter(stores[way].database, events_topic="events", copy=way == "copy")
            for way in WAYS
        }
        try:
            for round_no in range(rounds):
                renamed_items = renamed(items, round_no)
                # Alternate which goes first: the machine's load drifts within a round.
                for way in WAYS if round_no % 2 == 0 else WAYS[::-1]:
                    seconds, cpu_seconds = await timed(writers[way], renamed_items, batch)
                    wall[way] = min(wall[way], seconds)
                    cpu[way] = min(cpu[way], cpu_seconds)
            for round_no in range(REDELIVERIES):
                for way in WAYS if round_no % 2 == 0 else WAYS[::-1]:
                    seconds, _ = await timed(writers[way], renamed(items, 0), batch)
                    again[way] = min(again[way], seconds)
            for way in WAYS:
                tables = (passed_results, check_results, outbox)
                rows[way] = await count_rows(stores[way].database, *tables) / rounds
            sweep = await sizes_swept(items, stores)
        finally:
            for store in stores.values():
                await store.close()
    print(
        f"turns: {count} in batches of {batch}, {results} results ({results / count:.1f} a turn),"
        f" {rows['copy'] / count:.2f} rows a turn (passed results, full results, outbox)"
    )
    print(f"{'':12} {'turns/s':>9} {'rows/s':>9} {'CPU us/turn':>12} {'redelivered turns/s':>20}")
    for way in WAYS:
        print(
            f"{way:12} {count / wall[way]:9.0f} {rows[way] / wall[way]:9.0f} "
            f"{cpu[way] / count * 1e6:12.1f} {count / again[way]:20.0f}"
        )
    print(
        f"copy / statements: turns/s {wall['statements'] / wall['copy']:.2f}x, "
        f"CPU a turn {cpu['copy'] / cpu['statements']:.2f}x, "
        f"redelivered {again['statements'] / again['copy']:.2f}x"
    )
    print("batch size sweep, us a turn (best of several, alternated); speed against statements")
    for size, best in sweep.items():
        print(
            f"{size:6} turns: "
            + "  ".join(f"{way} {seconds / size * 1e6:6.1f}" for way, seconds in best.items())
            + "  "
            + "  ".join(
                f"{way} {best['statements'] / seconds:.2f}x"
                for way, seconds in best.items()
                if way != "statements"
            )
        )


async def sizes_swept(
    items: list[TurnResults], stores: dict[str, Store]
) -> dict[int, dict[str, float]]:
    """Seconds per batch of each size, best of several: by statements, by COPY where the
    writer's thresholds say, and by COPY for every table however few its rows."""
    writers = {
        "statements": ResultWriter(stores["statements"].database, events_topic="e", copy=False),
        "copy": ResultWriter(stores["copy"].database, events_topic="e"),
        "copy always": ResultWriter(
            stores["copy"].database, events_topic="e", copy_from=COPY_ALWAYS
        ),
    }
    swept = {}
    batches = iter(range(1000, 10**6))
    for size in SIZES:
        best = dict.fromkeys(writers, float("inf"))
        for repeat in range(max(4, 8000 // size)):
            for way in list(writers) if repeat % 2 == 0 else list(writers)[::-1]:
                seconds, _ = await timed(writers[way], renamed(items[:size], next(batches)), size)
                best[way] = min(best[way], seconds)
        swept[size] = best
    return swept


if __name__ == "__main__":
    given = [int(argument) for argument in sys.argv[1:4]]
    turns, rounds, batch = [*given, *(10_000, 5, 2000)[len(given) :]]
    asyncio.run(main(turns, rounds, batch))
