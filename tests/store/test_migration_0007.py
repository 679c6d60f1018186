"""Migration 0007 moves stored passed results into their compact shape and back, on
SQLite and PostgreSQL, and readers see the same results after it."""

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    insert,
    select,
)

from tests.conftest import scratch_database
from tests.factories import FIXED_NOW
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.migrate import alembic_config
from turncheck.worker.store.pages import ResultFilter, ResultPages
from turncheck.worker.store.tables import UTCDateTime, check_results

LATER = FIXED_NOW + timedelta(minutes=3)
CREATED = FIXED_NOW - timedelta(minutes=1)


def old_row(
    turn_id: str, check: str, verdict: str, checked_at: Any, **extra: Any
) -> dict[str, Any]:
    return {
        "turn_id": turn_id,
        "check_name": check,
        "check_version": "v1",
        "check_kind": "pattern",
        "stage": "output",
        "mode": "block",
        "verdict": verdict,
        "score": None,
        "reason": None,
        "spans": [],
        "usage": None,
        "answers": None,
        "thread_id": "th-1",
        "person_id": "p-1",
        "agent_id": "support-bot",
        "agent_version": "7",
        "turn_created_at": CREATED,
        "checked_at": checked_at,
        "expires_at": CREATED + timedelta(days=30),
        **extra,
    }


OLD_ROWS = [
    old_row("t-1", "a", "passed", FIXED_NOW),
    old_row(
        "t-1",
        "b",
        "failed",
        FIXED_NOW,
        reason="Banned.",
        spans=[{"field": "output.text", "start": 1, "end": 2, "label": "x"}],
    ),
    old_row("t-1", "c", "passed", FIXED_NOW),
    old_row("t-2", "a", "passed", FIXED_NOW),
    old_row("t-2", "b", "passed", FIXED_NOW),
    old_row("t-2", "c", "passed", FIXED_NOW),
    old_row("t-1", "polite", "passed", LATER, check_kind="judge", reason="Kind.", score=0.9),
    old_row("t-3", "a", "errored", LATER, reason="Out of time."),
]

ROLLUP = {
    "check_name": "a",
    "agent_id": "support-bot",
    "agent_version": "7",
    "bucket_start": CREATED.replace(minute=0, second=0, microsecond=0),
    "passed": 2,
    "failed": 0,
    "errored": 1,
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path}/old.db"
        return
    server: str = request.getfixturevalue("run_database_url")
    async with scratch_database(server, "turncheck_migration") as url:
        yield url


async def to(url: str, revision: str, down: bool = False) -> None:
    step = command.downgrade if down else command.upgrade
    await asyncio.to_thread(step, alembic_config(url), revision)


def seen(results: list[Any]) -> list[tuple[Any, ...]]:
    return [
        (r.turn_id, r.check, r.verdict, r.reason, r.score, r.spans, r.checked_at) for r in results
    ]


async def test_upgrade_keeps_every_result_and_downgrade_brings_the_rows_back(
    empty_url: str,
) -> None:
    await to(empty_url, "0006")
    old = sa_table_0006()
    store = Store.open(empty_url, events_topic="e")
    try:
        async with store.database.transaction() as conn:
            await conn.execute(insert(old), OLD_ROWS)
            # As the writer kept them beside the rows: pages find a check's agents there.
            await conn.execute(insert(rollups_0008()), [ROLLUP])
        await store.close()
        await to(empty_url, "head")
        store = Store.open(empty_url, events_topic="e")
        async with store.database.transaction() as conn:
            full = (await conn.execute(select(check_results.c.check_name))).all()
        assert sorted(name for (name,) in full) == ["a", "b", "polite"]  # t-1 b, judged, t-3 a
        t1 = await store.queries.results_for_turn("t-1")
        assert [(r.check, r.verdict) for r in t1] == [
            ("a", "passed"),
            ("b", "failed"),
            ("c", "passed"),
            ("polite", "passed"),
        ]
        assert t1[1].spans == [{"field": "output.text", "start": 1, "end": 2, "label": "x"}]
        assert t1[3].reason == "Kind." and t1[3].score == 0.9
        page, _ = await ResultPages(store.database).page(
            "a", ResultFilter(["passed", "errored"]), limit=10
        )
        assert [(r.turn_id, r.verdict) for r in page] == [
            ("t-3", "errored"),
            ("t-2", "passed"),
            ("t-1", "passed"),
        ]
        # A write after the migration sorts after every migrated one, at the same time too.
        fresh = TurnRef("t-9", None, None, "support-bot", 7, CREATED)
        item = TurnResults(
            fresh,
            [CheckResult(CheckId("a", "v1", "pattern", "output", "block"), Verdict.PASSED)],
            timedelta(days=30),
        )
        assert (await store.writer.save([item], LATER)).new_results == 1
        page, _ = await ResultPages(store.database).page("a", ResultFilter(["passed"]), limit=1)
        assert [r.turn_id for r in page] == ["t-9"]
        await store.close()

        await to(empty_url, "0006", down=True)
        store = Store.open(empty_url, events_topic="e")
        async with store.database.transaction() as conn:
            back = (await conn.execute(select(old))).mappings().all()
        fields = ("turn_id", "check_name", "verdict", "reason", "score", "spans", "person_id")
        expected = [*OLD_ROWS, {**OLD_ROWS[0], "turn_id": "t-9", "person_id": None}]
        assert sorted(tuple(r[f] for f in fields) for r in back) == sorted(
            tuple(r[f] for f in fields) for r in expected
        )
        assert {r["checked_at"] for r in back} == {FIXED_NOW, LATER}
    finally:
        await store.close()


def sa_table_0006() -> Any:
    """check_results as migration 0006 left it."""
    return Table(
        "check_results",
        MetaData(),
        Column("id", Integer, primary_key=True),
        *(
            Column(name, String)
            for name in (
                "turn_id",
                "check_name",
                "check_version",
                "check_kind",
                "stage",
                "mode",
                "verdict",
                "thread_id",
                "person_id",
                "agent_id",
                "agent_version",
            )
        ),
        Column("score", Float),
        Column("reason", Text),
        Column("spans", JSON),
        Column("usage", JSON),
        Column("answers", JSON),
        *(Column(name, UTCDateTime) for name in ("turn_created_at", "checked_at", "expires_at")),
    )


def rollups_0008() -> Table:
    """pass_rate_rollups as migration 0008 left it."""
    return Table(
        "pass_rate_rollups",
        MetaData(),
        Column("check_name", String, primary_key=True),
        Column("agent_id", String, primary_key=True),
        Column("agent_version", String, primary_key=True),
        Column("bucket_start", UTCDateTime, primary_key=True),
        Column("passed", Integer),
        Column("failed", Integer),
        Column("errored", Integer),
        Column("judge_input_tokens", BigInteger),
        Column("judge_output_tokens", BigInteger),
    )
