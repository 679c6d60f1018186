"""The store step alone on PostgreSQL: one row per result (before migration 0007) against
passed results kept as one row per turn (now), in one run.

Checks TURNS generated turns (those of ``throughput.py``) with the example checks once,
then stores them in batches of 500 (the worker's are up to ``batch_max_records``, 2000),
one batch per transaction as the worker does, into two databases of their own on the server of
``TURNCHECK_TEST_DATABASE_URL``: one migrated to 0006 and written by the former writer
(kept here only), one at head written by ``ResultWriter``. Each is timed best of ROUNDS
(fresh turn ids every round); the ratio is the figure that survives a noisy machine.

Needs `eval "$(bash scripts/services.sh start)"`. Run: python bench/store.py [TURNS] [ROUNDS]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import func, select

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from bench.throughput import make_turns  # noqa: E402
from tests.conftest import scratch_database  # noqa: E402
from tests.store.test_migration_0007 import sa_table_0006  # noqa: E402
from turncheck.worker.checks import Verdict, load_checks  # noqa: E402
from turncheck.worker.clock import utc_now  # noqa: E402
from turncheck.worker.pipeline.evaluate import evaluate  # noqa: E402
from turncheck.worker.pipeline.records import TurnRef, TurnResults  # noqa: E402
from turncheck.worker.store import Database, ResultWriter, create_engine  # noqa: E402
from turncheck.worker.store.migrate import alembic_config  # noqa: E402
from turncheck.worker.store.rows import (  # noqa: E402
    ROLLUP_COUNTS,
    ROLLUP_KEY,
    check_columns,
    event_row,
    rollup_values,
    turn_columns,
)
from turncheck.worker.store.tables import (  # noqa: E402
    check_results,
    outbox,
    pass_rate_rollups,
    passed_results,
)
from turncheck.worker.turns.decode import decode_turn  # noqa: E402

BATCH = 500
CHUNK_ROWS = 250
KEY = ("turn_id", "check_name", "check_version")

# check_results as migration 0006 left it: what the former writer wrote, a row per result.
OLD_RESULTS = sa_table_0006()


class RowPerResultWriter:
    """The writer before 0007, reduced to its batch path: every result a row, inserted
    ON CONFLICT DO NOTHING RETURNING its key, then rollups and events of the new ones."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def save(self, batch: Sequence[TurnResults], now: Any) -> int:
        insert = self.database.insert
        statement = (
            insert(OLD_RESULTS)
            .on_conflict_do_nothing(index_elements=list(KEY))
            .returning(*(OLD_RESULTS.c[name] for name in KEY))
        )
        scheduled = [(item.turn, r, item.expires_at) for item in batch for r in item.results]
        new = []
        async with self.database.transaction() as conn:
            for start in range(0, len(scheduled), CHUNK_ROWS):
                chunk = scheduled[start : start + CHUNK_ROWS]
                rows = [
                    {
                        **turn_columns(turn),
                        **check_columns(r.check),
                        "verdict": r.verdict.value,
                        "score": r.score,
                        "reason": r.reason,
                        "spans": [span.as_dict() for span in r.spans],
                        "usage": r.usage,
                        "answers": r.answers,
                        "checked_at": now,
                        "expires_at": expires,
                    }
                    for turn, r, expires in chunk
                ]
                inserted = {tuple(row) for row in await conn.execute(statement, rows)}
                new += [(t, r) for t, r, _ in chunk if t.key(r.check) in inserted]
            values = rollup_values((t, [r]) for t, r in new)
            if not values:
                return 0
            rollups = insert(pass_rate_rollups)
            rollups = rollups.on_conflict_do_update(
                index_elements=list(ROLLUP_KEY),
                set_={n: pass_rate_rollups.c[n] + rollups.excluded[n] for n in ROLLUP_COUNTS},
            )
            await conn.execute(rollups, values)
            failed = [(t, r) for t, r in new if r.verdict is not Verdict.PASSED]
            for start in range(0, len(failed), CHUNK_ROWS):
                events = [
                    event_row(t, r, "events", now) for t, r in failed[start : start + CHUNK_ROWS]
                ]
                await conn.execute(
                    insert(outbox).on_conflict_do_nothing(index_elements=["event_id"]), events
                )
        return len(new)


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


async def timed(writer: Any, items: list[TurnResults]) -> float:
    started = time.perf_counter()
    for start in range(0, len(items), BATCH):
        await writer.save(items[start : start + BATCH], utc_now())
    return time.perf_counter() - started


async def count_rows(database: Database, *tables: Any) -> int:
    total = 0
    async with database.transaction() as conn:
        for table in tables:
            total += int((await conn.execute(select(func.count()).select_from(table))).scalar_one())
    return total


async def main(count: int, rounds: int) -> None:
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    items = checked_turns(count)
    results = sum(len(item.results) for item in items)
    async with (
        scratch_database(server, "bench_store_old") as old_url,
        scratch_database(server, "bench_store_new") as new_url,
    ):
        await asyncio.to_thread(command.upgrade, alembic_config(old_url), "0006")
        await asyncio.to_thread(command.upgrade, alembic_config(new_url), "head")
        old_db, new_db = Database(create_engine(old_url)), Database(create_engine(new_url))
        old, new = RowPerResultWriter(old_db), ResultWriter(new_db, events_topic="events")
        best = {"old": float("inf"), "new": float("inf")}
        try:
            for round_no in range(rounds):
                batch = renamed(items, round_no)
                best["old"] = min(best["old"], await timed(old, batch))
                best["new"] = min(best["new"], await timed(new, batch))
            old_rows = await count_rows(old_db, OLD_RESULTS) / rounds
            new_rows = await count_rows(new_db, passed_results, check_results) / rounds
        finally:
            await old_db.close()
            await new_db.close()
    print(f"turns: {count} in batches of {BATCH}, {results} results ({results / count:.1f} a turn)")
    for name, rows in (("row per result", old_rows), ("passed per turn", new_rows)):
        seconds = best["old" if name == "row per result" else "new"]
        print(
            f"{name:16} {rows / count:5.2f} rows a turn  {count / seconds:8.0f} turns/s  "
            f"{results / seconds:9.0f} results/s  {rows / seconds:8.0f} rows/s"
        )
    print(f"store turns/s, passed per turn / row per result: {best['old'] / best['new']:.2f}")


if __name__ == "__main__":
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    asyncio.run(main(turns, int(sys.argv[2]) if len(sys.argv) > 2 else 3))
