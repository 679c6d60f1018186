"""The retention purge, on SQLite and PostgreSQL: expired rows go in bounded chunks,
rollups stay, and a purge runs beside a worker writing."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import func, select, update

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.retention.erasure import Eraser
from turncheck.worker.retention.purge import Purger, outbox_purge
from turncheck.worker.store import Store
from turncheck.worker.store.tables import check_results, judge_pending, outbox

CHECK = CheckId("no-competitors", "v1", "does_not_contain", "output", "block")
JUDGED = CheckId("tone", "v1", "judge", "output", "background")
DAY = timedelta(days=1)


def batch(
    prefix: str, count: int, *, created_days_ago: int, person: str = "p-1"
) -> list[TurnResults]:
    created = (FIXED_NOW - timedelta(days=created_days_ago)).isoformat().replace("+00:00", "Z")
    items = []
    for n in range(count):
        turn = TurnRef.of(make_turn(f"{prefix}-{n}", created_at=created, person_id=person))
        pending = [PendingJudgement(turn, JUDGED, FIXED_NOW)] if n % 2 else []
        items.append(
            TurnResults(turn, [CheckResult(CHECK, Verdict.FAILED)], timedelta(days=30), pending)
        )
    return items


async def rows(store: Store, table: object) -> int:
    async with store.database.transaction() as conn:
        query = select(func.count()).select_from(table)  # type: ignore[arg-type]
        return int((await conn.execute(query)).scalar_one())


async def test_expired_rows_go_in_chunks_and_the_rest_stays(store: Store) -> None:
    await store.writer.save(batch("old", 30, created_days_ago=31), FIXED_NOW - 31 * DAY)
    await store.writer.save(batch("new", 5, created_days_ago=1), FIXED_NOW)
    rates_before = await store.queries.pass_rates()
    report = await Purger(store.database, chunk_rows=7).purge(FIXED_NOW)
    assert (report.results, report.pending_judgements) == (30, 15)
    # 30 full rows and 30 writes (none passed): 7+7+7+7+2 each; 15 pending rows: 7+7+1;
    # no labels: one chunk that finds none
    assert report.chunks == 5 + 5 + 3 + 1
    assert await rows(store, check_results) == 5
    assert await rows(store, judge_pending) == 2
    assert await store.queries.pass_rates() == rates_before  # anonymous counts stay


async def test_sent_events_past_their_keep_go_and_unsent_ones_stay(store: Store) -> None:
    await store.writer.save(batch("t", 6, created_days_ago=1), FIXED_NOW)
    async with store.database.transaction() as conn:
        first_four = select(outbox.c.id).order_by(outbox.c.id).limit(4).scalar_subquery()
        await conn.execute(
            update(outbox).where(outbox.c.id.in_(first_four)).values(sent_at=FIXED_NOW - 2 * DAY)
        )
    events = outbox_purge(store.outbox, keep_sent_s=86_400, chunk_rows=3)
    report = await Purger(store.database, purge_events=events).purge(FIXED_NOW)
    assert report.events == 4 and await rows(store, outbox) == 2


async def test_a_result_stored_just_after_its_person_was_erased_is_swept(store: Store) -> None:
    """A batch in flight during an erasure may land after it; the next purge removes it."""
    eraser = Eraser(store.database, b"key")
    await eraser.erase("alice", requested_at=FIXED_NOW, now=FIXED_NOW)
    await store.writer.save(batch("late", 3, created_days_ago=0, person="alice"), FIXED_NOW)
    await store.writer.save(batch("other", 2, created_days_ago=0, person="bob"), FIXED_NOW)
    assert (await Purger(store.database).purge(FIXED_NOW)).swept == 0  # no eraser, no sweep
    report = await Purger(store.database, eraser=eraser).purge(FIXED_NOW + timedelta(minutes=1))
    assert report.swept == 3
    assert await rows(store, check_results) == 2
    later = await Purger(store.database, eraser=eraser).purge(FIXED_NOW + 2 * DAY)
    assert later.swept == 0  # past the sweep window the ledger alone keeps them out


async def test_a_purge_beside_a_worker_writing_loses_nothing_new(store: Store) -> None:
    """Batches keep being stored while the purge deletes: every new turn is there."""
    await store.writer.save(batch("old", 400, created_days_ago=40), FIXED_NOW - 40 * DAY)
    purger = Purger(store.database, chunk_rows=50)

    async def write() -> None:
        for n in range(20):
            await store.writer.save(batch(f"w{n}", 10, created_days_ago=0), FIXED_NOW)

    purged, _ = await asyncio.gather(purger.purge(FIXED_NOW), write())
    assert purged.results == 400
    assert await rows(store, check_results) == 200
