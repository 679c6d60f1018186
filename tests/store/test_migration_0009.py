"""Migration 0009 keys the rollups by check version and keeps every count, on SQLite and
PostgreSQL, up and down."""

from datetime import timedelta
from typing import Any

from sqlalchemy import insert, select

from tests.factories import FIXED_NOW
from tests.store.test_migration_0007 import empty_url, rollups_0008, to
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store

__all__ = ["empty_url"]

HOUR = FIXED_NOW.replace(minute=0, second=0, microsecond=0) - timedelta(hours=2)


def rollup(check: str, version: str, hour: Any, passed: int, failed: int) -> dict[str, Any]:
    return {
        "check_name": check,
        "agent_id": "support-bot",
        "agent_version": version,
        "bucket_start": hour,
        "passed": passed,
        "failed": failed,
        "errored": 1,
        "judge_input_tokens": 10,
        "judge_output_tokens": 2,
    }


OLD = [
    rollup("a", "7", HOUR, 40, 2),
    rollup("a", "8", HOUR, 5, 0),
    rollup("b", "7", HOUR + timedelta(hours=1), 9, 9),
]


async def test_upgrade_keeps_the_counts_under_an_unknown_version_and_downgrade_sums_them(
    empty_url: str,
) -> None:
    """Counts of before 0009 read the same after it (check version ``unknown``), new ones
    beside them by their version, and a downgrade adds the versions back together."""
    await to(empty_url, "0008")
    old = rollups_0008()
    store = Store.open(empty_url, events_topic="e")
    try:
        async with store.database.transaction() as conn:
            await conn.execute(insert(old), OLD)
        await store.close()
        await to(empty_url, "0009")
        store = Store.open(empty_url, events_topic="e")
        rates = await store.queries.pass_rates(since=HOUR - timedelta(days=1))
        assert [(r.check, r.passed, r.failed, r.errored, r.judge_input_tokens) for r in rates] == [
            ("a", 45, 2, 2, 20),
            ("b", 9, 9, 1, 10),
        ]
        assert [r.check_versions for r in rates] == [("unknown",), ("unknown",)]
        # A result stored after the migration is counted beside them, under its version.
        turn = TurnRef("t-9", None, None, "support-bot", 7, HOUR + timedelta(minutes=5))
        check = CheckId("a", "abc123", "pattern", "output", "block")
        item = TurnResults(turn, [CheckResult(check, Verdict.FAILED)], timedelta(days=30))
        assert (await store.writer.save([item], FIXED_NOW)).new_results == 1
        [a, _] = await store.queries.pass_rates(since=HOUR - timedelta(days=1))
        assert (a.passed, a.failed, a.check_versions, a.mixed_versions) == (
            45,
            3,
            ("unknown", "abc123"),
            True,
        )
        await store.close()

        await to(empty_url, "0008", down=True)
        store = Store.open(empty_url, events_topic="e")
        async with store.database.transaction() as conn:
            back = (await conn.execute(select(old))).mappings().all()
        seen = sorted(
            (r["check_name"], r["agent_version"], r["passed"], r["failed"], r["errored"])
            for r in back
        )
        assert seen == [("a", "7", 40, 3, 1), ("a", "8", 5, 0, 1), ("b", "7", 9, 9, 1)]
    finally:
        await store.close()
