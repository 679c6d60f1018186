"""Purge and erasure over 100,000 results on PostgreSQL: time, rows, and how long locks
are held, with a writer storing batches beside them.

Seeds RESULTS expired results (and a person's share of them), then:
  1. purges them with the default chunk (1,000 rows a transaction) while a writer
     stores batches of 100 turns, and reports rows/s, the longest delete transaction
     (its row locks' hold time) and the writer's slowest batch next to its slowest
     batch without a purge beside it (the ratio is the figure to read);
  2. erases one person who has RESULTS / 100 results, and reports the time and rows.

Works in a database of its own on the server of ``TURNCHECK_TEST_DATABASE_URL``,
dropped at the end. Needs `eval "$(bash scripts/services.sh start)"`.
Run: python bench/retention.py [RESULTS]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import text

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import scratch_database  # noqa: E402
from tests.factories import make_turn  # noqa: E402
from turncheck.worker.checks import CheckId, CheckResult, Verdict  # noqa: E402
from turncheck.worker.pipeline.records import TurnRef, TurnResults  # noqa: E402
from turncheck.worker.retention.erasure import Eraser  # noqa: E402
from turncheck.worker.retention.purge import Purger  # noqa: E402
from turncheck.worker.store import Store  # noqa: E402
from turncheck.worker.store.migrate import migrate  # noqa: E402

# Result n is the one result of turn 'old-n', stored as the writer stores it: its write
# (a passed_results row, holding it when it passed) and a full row when it failed.
SERIES = """
SELECT n, :base + n + 1 AS write_id, 'check-' || (n % 10) AS check_name,
    CASE WHEN n % 7 = 0 THEN 'failed' ELSE 'passed' END AS verdict
FROM generate_series(0, :total - 1) AS n
"""
SEED = [
    f"""
INSERT INTO passed_results (id, turn_id, part, person_id, agent_id, agent_version,
    turn_created_at, checked_at, expires_at, checks, passed)
SELECT write_id, 'old-' || n, 0, 'person-' || (n % 100), 'support-bot', '7', :created,
    :created, :expired,
    CASE WHEN verdict = 'passed'
        THEN '[["' || check_name || '","v1","pattern","output","block",0]]' ELSE '[]' END,
    CASE WHEN verdict = 'passed' THEN 1 ELSE 0 END
FROM ({SERIES}) AS rows
""",
    f"""
INSERT INTO check_results (turn_id, write_id, position, check_name, check_version,
    check_kind, stage, mode, verdict, reason, spans, person_id, agent_id, agent_version,
    turn_created_at, checked_at, expires_at)
SELECT 'old-' || n, write_id, 0, check_name, 'v1', 'pattern', 'output', 'block', verdict,
    NULL, '[]', 'person-' || (n % 100), 'support-bot', '7', :created, :created, :expired
FROM ({SERIES}) AS rows WHERE verdict = 'failed'
""",
    # The writer beside takes its write ids after both seeds' explicit ones.
    "SELECT setval(pg_get_serial_sequence('passed_results', 'id'), 3 * :total)",
]
CHECK = CheckId("check-new", "v1", "pattern", "output", "block")


def batch(n: int, now: datetime) -> list[TurnResults]:
    created = now.isoformat().replace("+00:00", "Z")
    return [
        TurnResults(
            TurnRef.of(make_turn(f"new-{n}-{i}", created_at=created, person_id=f"new-{i % 50}")),
            [CheckResult(CHECK, Verdict.PASSED)],
            timedelta(days=30),
        )
        for i in range(100)
    ]


async def writer(store: Store, now: datetime, batches: int, prefix: int) -> list[float]:
    times = []
    for n in range(batches):
        started = time.perf_counter()
        await store.writer.save(batch(prefix + n, now), now)
        times.append(time.perf_counter() - started)
    return times


async def main(total: int) -> None:
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    now = datetime.now(UTC)
    async with scratch_database(server, "bench_retention") as url:
        await asyncio.to_thread(migrate, url)
        store = Store.open(url, events_topic="events")
        try:
            created, expired = now - timedelta(days=40), now - timedelta(days=10)
            params = {"total": total, "created": created, "expired": expired, "base": 0}
            async with store.database.transaction() as conn:
                for statement in SEED:
                    await conn.execute(text(statement), params)
                await conn.execute(text("ANALYZE"))
            alone = await writer(store, now, 40, 0)

            purger = Purger(store.database, chunk_rows=1000)
            started = time.perf_counter()
            report, beside = await asyncio.gather(purger.purge(now), writer(store, now, 40, 1000))
            purge_s = time.perf_counter() - started

            async with store.database.transaction() as conn:
                for statement in SEED[:2]:
                    await conn.execute(
                        text(statement.replace("'old-'", "'again-'")),
                        {**params, "expired": now + timedelta(days=1), "base": total},
                    )
            eraser = Eraser(store.database, b"bench-key")
            started = time.perf_counter()
            receipt = await eraser.erase("person-7", requested_at=now, now=now)
            erase_s = time.perf_counter() - started
        finally:
            await store.close()
    print(
        f"purge: {report.results:,} results in {purge_s:.2f} s "
        f"({report.results / purge_s:,.0f} results/s), {report.chunks} transactions, "
        f"longest {report.longest_chunk_s * 1000:.1f} ms"
    )
    print(
        f"writer's slowest batch of 100 turns: {max(alone) * 1000:.1f} ms alone, "
        f"{max(beside) * 1000:.1f} ms beside the purge "
        f"(ratio {max(beside) / max(alone):.2f}; "
        f"median {sorted(beside)[20] / sorted(alone)[20]:.2f})"
    )
    print(
        f"erase one person: {receipt.results:,} results in {erase_s * 1000:.0f} ms "
        f"(one transaction) out of {total:,}"
    )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
