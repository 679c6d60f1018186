"""How long an alert evaluation round takes over a large results table, PostgreSQL.

Seeds RESULTS results spread over 30 checks and 14 days as the store keeps them (a
``passed_results`` row per turn, full rows for the ~7% that did not pass, hourly
rollups), and the same results a row each in a bare table, then times, best of five:
  1. floor: the 30 bare "latest 200 verdicts" queries on the bare table, a row per
     result with its index (what a round could not do with less);
  2. round: ``Alerter.evaluate`` for the 30 checks (verdicts of both shapes, trend,
     earlier alert, the day's alert row for those that cross);
  3. the round again without the ``ix_check_results_latest`` and
     ``ix_passed_results_latest`` indexes;
and the ratios round/floor and no-index/round, the figures that survive a noisy machine.

Works in a database of its own on the server of ``TURNCHECK_TEST_DATABASE_URL``,
dropped at the end. Needs `eval "$(bash scripts/services.sh start)"`.
Run: python bench/alerts.py [RESULTS]
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import column, select, table, text

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from tests.conftest import scratch_database  # noqa: E402
from turncheck.alerts.alerter import Alerter, Watched  # noqa: E402
from turncheck.alerts.notice import Links  # noqa: E402
from turncheck.alerts.policy import AlertPolicy  # noqa: E402
from turncheck.worker.clock import utc_now  # noqa: E402
from turncheck.worker.store import Database, create_engine  # noqa: E402
from turncheck.worker.store.alerts import AlertStore  # noqa: E402
from turncheck.worker.store.migrate import migrate  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from seeding import AGENT, CHECKS, seed  # noqa: E402

row_each = table(
    "row_each",
    column("check_name"),
    column("agent_id"),
    column("verdict"),
    column("turn_created_at"),
)

DROP_INDEXES = "DROP INDEX ix_check_results_latest; DROP INDEX ix_passed_results_latest"


async def best_of(runs: int, work: Callable[[], Awaitable[object]]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await work()
        times.append(time.perf_counter() - started)
    return min(times)


async def main(total: int) -> None:
    server = os.environ["TURNCHECK_TEST_DATABASE_URL"]
    async with scratch_database(server, "bench_alerts") as url:
        await asyncio.to_thread(migrate, url)
        database = Database(create_engine(url))
        try:
            await seed(database, total, row_each=True)
            watched = [
                Watched(f"check-{n}", AGENT, AlertPolicy(200, 0.95, 50, ("slack",)))
                for n in range(CHECKS)
            ]
            alerter = Alerter(
                AlertStore(database),
                watched,
                {},
                clock=utc_now,
                zone=ZoneInfo("UTC"),
                links=lambda check, agent, since: Links(command="turncheck failures"),
                owner="bench",
            )

            async def floor() -> None:
                r = row_each.c
                for w in watched:
                    query = (
                        select(r.verdict)
                        .where(r.check_name == w.check, r.agent_id == AGENT)
                        .order_by(r.turn_created_at.desc())
                        .limit(200)
                    )
                    async with database.transaction() as conn:
                        (await conn.execute(query)).all()

            bare = await best_of(5, floor)
            rounds = await best_of(5, alerter.evaluate)
            async with database.transaction() as conn:
                for statement in DROP_INDEXES.split(";"):
                    await conn.execute(text(statement))
            unindexed = await best_of(3, alerter.evaluate)
        finally:
            await database.close()
    print(f"results: {total:,} over {CHECKS} checks and 14 days")
    print(f"floor (30 latest-200 queries): {bare * 1000:8.1f} ms")
    print(f"evaluation round:              {rounds * 1000:8.1f} ms")
    print(f"round without the index:       {unindexed * 1000:8.1f} ms")
    print(f"round / floor: {rounds / bare:.1f}   no index / round: {unindexed / rounds:.1f}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000))
