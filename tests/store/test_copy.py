"""On PostgreSQL a batch's rows go in by COPY through staging tables: what they store is
what the statements store, row for row, and everything the statements promise holds
(redelivery stores nothing twice, events with their results, refusals and outages told
apart as for any statement)."""

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.conftest import fresh_store
from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Span, Verdict
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.store import ResultWriter, Store
from turncheck.worker.store.rows import event_row
from turncheck.worker.store.staging import copy_in, recorder
from turncheck.worker.store.turn_writes import COPY_ALWAYS, COPY_FROM, CopyFrom

pytestmark = pytest.mark.postgres

RETENTION = timedelta(days=30)
JUDGED = CheckId("polite", "j1", "judge", "output", "background")
TABLES = {
    "passed_results": "id",
    "check_results": "id",
    # xid is the writing transaction's: the one column two writes can never share.
    "outbox": "id",
    "pass_rate_rollups": "check_name, agent_id, agent_version, check_version, bucket_start",
    "judge_pending": "turn_id, check_name, check_version",
}


def check(name: str, version: str = "v1") -> CheckId:
    return CheckId(name, version, "pattern", "output", "block")


def ref(turn_id: str, person: str | None = "p-1", hours: int = 0) -> TurnRef:
    created_at = (FIXED_NOW - timedelta(hours=hours)).isoformat()
    return TurnRef.of(make_turn(turn_id, person_id=person, created_at=created_at))


def batch(count: int = 60) -> list[TurnResults]:
    """Turns of every shape a batch holds: passed, failed, errored and passed with more to
    say; spans, usage and answers; non-ASCII text and ids; no person; a turn twice; a
    shadow check's failure; judgements still to make; turns an hour apart; ids out of order."""
    turns = []
    for n in range(count):
        # Ids whose order differs by collation ("T" < "a" < "t" by code point): rows take
        # their ids in the batch's order, whatever the database's collation.
        turn = ref(
            f"{'tTa'[n % 3]}-{n:03d}-ü", person=None if n % 7 == 0 else f"p-{n % 5}", hours=n % 2
        )
        results = [
            CheckResult(check("clean"), Verdict.PASSED),
            CheckResult(check("shadowed"), Verdict.FAILED if n % 3 == 0 else Verdict.PASSED),
        ]
        if n % 4 == 0:
            span = Span("output.text", 3, 9, "ticket")
            results.append(
                CheckResult(
                    check("tickets"), Verdict.FAILED, "Quoted a ticket — 🎫.", spans=(span,)
                )
            )
        if n % 5 == 0:
            results.append(CheckResult(check("script"), Verdict.ERRORED, "Ran out of time."))
        if n % 6 == 0:
            results.append(
                CheckResult(
                    JUDGED,
                    Verdict.PASSED,
                    "Polite, «merci».",
                    0.75,
                    usage={"input_tokens": 120, "output_tokens": 9},
                    answers={"verdict": "pass", "why": ["é", None, 2.5]},
                )
            )
        pending = [PendingJudgement(turn, check("later", "j2"), FIXED_NOW)] if n % 8 == 0 else []
        turns.append(TurnResults(turn, results, RETENTION, pending))
    return [*turns, turns[4]]  # a producer's retry: one turn twice in the batch


def again_with_new_versions(items: list[TurnResults]) -> list[TurnResults]:
    """The batch redelivered after an edit of two checks: their new versions are new."""
    return [
        TurnResults(
            item.turn,
            [*item.results, CheckResult(check("clean", "v2"), Verdict.PASSED)]
            + ([CheckResult(check("tickets", "v2"), Verdict.FAILED, "Again.")] if i % 9 else []),
            RETENTION,
        )
        for i, item in reversed(list(enumerate(items)))
    ]


async def dump(store: Store) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the written tables as PostgreSQL's text of each column."""
    rows = {}
    async with store.database.transaction() as conn:
        for table, order in TABLES.items():
            listed = (
                "id, event_id, topic, key, payload, created_at, sent_at, attempts, claimed_by"
                if table == "outbox"
                else "*"
            )
            query = f"SELECT t::text FROM (SELECT {listed} FROM {table} ORDER BY {order}) t"
            rows[table] = [tuple(r) for r in await conn.execute(text(query))]
    return rows


async def store_both_ways(
    url: str, batches: list[list[TurnResults]], copy_from: CopyFrom
) -> list[Any]:
    """Each way, on an empty database: the batches in turn, then every table's rows."""
    found = []
    for copy in (False, True):
        store = await fresh_store(url)
        writer = ResultWriter(store.database, events_topic="events", copy=copy, copy_from=copy_from)
        writer = writer.with_shadow(frozenset({("support-bot", "shadowed")}))
        try:
            reports = [
                await writer.save(items, FIXED_NOW + timedelta(minutes=i))
                for i, items in enumerate(batches)
            ]
            found.append((reports, await dump(store)))
        finally:
            await store.close()
    return found


async def test_copy_stores_what_the_statements_store_row_for_row(postgres_url: str) -> None:
    """A batch of every shape, then its redelivery with new check versions (the turns' next
    parts), every table's rows by COPY: the same reports and, in every table, the same rows."""
    first = batch()
    by_statements, by_copy = await store_both_ways(
        postgres_url, [first, again_with_new_versions(first)], copy_from=COPY_ALWAYS
    )
    assert by_copy == by_statements
    reports, rows = by_copy
    assert [r.new_results for r in reports] == [157, 113]
    assert len(rows["passed_results"]) == 120 and len(rows["check_results"]) == 110
    assert len(rows["judge_pending"]) == 8
    # An event for each new result that did not pass, but the shadow check's.
    assert len(rows["outbox"]) == 15 + 12 + 53


async def test_copy_for_large_tables_only_stores_what_the_statements_store(
    postgres_url: str,
) -> None:
    """With the default thresholds, 400 turns: their full results and events go by COPY,
    their passed results (fewer than ``COPY_FROM.passed_rows``) by statements, in one
    transaction, and the rows are still the statements' own."""
    assert COPY_FROM.passed_rows > 400 and COPY_FROM.event_rows < 180
    first = batch(400)
    by_statements, by_copy = await store_both_ways(
        postgres_url, [first, again_with_new_versions(first)], copy_from=COPY_FROM
    )
    assert by_copy == by_statements


async def test_a_redelivered_batch_stores_nothing_twice(postgres_url: str) -> None:
    store = await fresh_store(postgres_url)
    writer = ResultWriter(store.database, events_topic="events", copy_from=COPY_ALWAYS)
    try:
        assert writer.turns.copy
        first = await writer.save(batch(), FIXED_NOW)
        before = await dump(store)
        again = await writer.save(batch(), FIXED_NOW + timedelta(minutes=5))
        assert (first.new_results, again.new_results, again.pending) == (157, 0, frozenset())
        assert await dump(store) == before
    finally:
        await store.close()


async def test_a_nul_in_a_result_is_refused_as_the_statements_refuse_it(postgres_url: str) -> None:
    """PostgreSQL text holds no NUL: the batch is refused whole, with the error the statements
    raise (its name is the dead letter's reason), and none of its rows stay."""
    items = [
        *batch()[:3],
        TurnResults(
            ref("t-nul"), [CheckResult(check("tickets"), Verdict.FAILED, "a\x00b")], RETENTION
        ),
    ]
    refused = []
    for copy in (False, True):
        store = await fresh_store(postgres_url)
        writer = ResultWriter(
            store.database, events_topic="events", copy=copy, copy_from=COPY_ALWAYS
        )
        try:
            with pytest.raises(DBAPIError) as raised:
                await writer.save(items, FIXED_NOW)
            refused.append(type(raised.value))
            assert all(not rows for rows in (await dump(store)).values())
        finally:
            await store.close()
    assert refused[0] is refused[1]


async def test_a_copy_on_a_lost_connection_is_an_outage(postgres_url: str) -> None:
    """The connection ends under a COPY: the store is unavailable (waited out, never a
    refusal that dead-letters the batch), and the next transaction gets a live one."""
    store = await fresh_store(postgres_url)
    event = recorder("outbox")(
        event_row(ref("t-1"), CheckResult(check("a"), Verdict.FAILED), "events", FIXED_NOW)
    )
    try:
        with pytest.raises(StoreUnavailable):
            async with store.database.transaction() as conn:
                pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
                async with store.database.engine.connect() as other:
                    await other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
                await copy_in(conn, "outbox", [event], conflict="event_id")
        async with store.database.transaction() as conn:
            await copy_in(conn, "outbox", [event], conflict="event_id")
        assert len(await store.outbox.pending_events(10)) == 1
    finally:
        await store.close()
