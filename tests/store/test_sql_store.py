"""The store's contract, on SQLite and on PostgreSQL alike."""

import asyncio
import json
from datetime import timedelta

import pytest

from tests.conftest import fresh_store
from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Span, Verdict
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.store import Store

RETENTION = timedelta(days=30)


def result(check: str, verdict: Verdict, version: str = "v1") -> CheckResult:
    spans = (Span("output.text", 3, 9, "phrase"),) if verdict is Verdict.FAILED else ()
    return CheckResult(
        CheckId(check, version, "does_not_contain", "output", "block"), verdict, spans=spans
    )


def batch(*turn_ids: str) -> list[TurnResults]:
    return [
        TurnResults(
            TurnRef.of(make_turn(turn_id, output="secret answer text")),
            [
                result("a", Verdict.PASSED),
                result("b", Verdict.FAILED),
                result("c", Verdict.ERRORED),
            ],
            RETENTION,
        )
        for turn_id in turn_ids
    ]


async def test_results_are_stored_with_ids_times_and_expiry(store: Store) -> None:
    assert (await store.writer.save(batch("t-1"), FIXED_NOW)).new_results == 3
    rows = await store.queries.results_for_turn("t-1")
    assert [(r.check, r.verdict) for r in rows] == [
        ("a", "passed"),
        ("b", "failed"),
        ("c", "errored"),
    ]
    failed = rows[1]
    assert failed.spans == [{"field": "output.text", "start": 3, "end": 9, "label": "phrase"}]
    assert failed.agent_id == "support-bot" and failed.agent_version == "7"
    assert failed.person_id == "p-1"
    assert failed.expires_at == failed.turn_created_at + RETENTION
    assert failed.checked_at == FIXED_NOW


async def test_a_redelivered_batch_writes_nothing_twice(store: Store) -> None:
    """Results, rollup counts and events stay single when a batch comes again."""
    await store.writer.save(batch("t-1", "t-2"), FIXED_NOW)
    again = await store.writer.save(batch("t-2", "t-1", "t-3"), FIXED_NOW + timedelta(minutes=1))
    assert again.new_results == 3
    [rate_a] = await store.queries.pass_rates(check="a")
    assert (rate_a.passed, rate_a.failed, rate_a.errored) == (3, 0, 0)
    events = await store.outbox.pending_events(100)
    assert len(events) == 6  # b and c, three turns each


async def test_a_new_check_version_is_a_new_result(store: Store) -> None:
    await store.writer.save(batch("t-1"), FIXED_NOW)
    again = [
        TurnResults(
            TurnRef.of(make_turn("t-1")), [result("a", Verdict.FAILED, version="v2")], RETENTION
        )
    ]
    assert (await store.writer.save(again, FIXED_NOW)).new_results == 1
    assert len(await store.queries.results_for_turn("t-1")) == 4


async def test_pass_rates_count_errored_against_the_rate_and_filter(store: Store) -> None:
    await store.writer.save(batch("t-1", "t-2"), FIXED_NOW)
    other = make_turn("t-9", agent={"id": "sales-bot", "version": 1})
    await store.writer.save(
        [TurnResults(TurnRef.of(other), [result("a", Verdict.FAILED)], RETENTION)], FIXED_NOW
    )
    rates = {(r.check, r.agent_id): r for r in await store.queries.pass_rates()}
    assert rates[("a", "support-bot")].pass_rate == 1.0
    assert rates[("a", "sales-bot")].pass_rate == 0.0
    assert rates[("c", "support-bot")].pass_rate == 0.0
    assert [r.agent_id for r in await store.queries.pass_rates(agent="sales-bot")] == ["sales-bot"]
    assert await store.queries.pass_rates(since=FIXED_NOW + timedelta(days=1)) == []


async def test_events_carry_no_text_and_are_sent_once(store: Store) -> None:
    await store.writer.save(batch("t-1"), FIXED_NOW)
    pending = await store.outbox.pending_events(100)
    assert {e.key for e in pending} == {"t-1"}
    for event in pending:
        payload = json.loads(event.payload)
        assert payload["type"] == "response.check_failed"
        assert payload["data"]["turn_id"] == "t-1"
        assert "secret" not in event.payload and "answer" not in event.payload
    await store.outbox.mark_sent([e.id for e in pending], FIXED_NOW)
    assert await store.outbox.pending_events(100) == []


POLITE = CheckId("polite", "j1", "judge", "output", "background")


def judged(verdict: Verdict, tokens: int = 0) -> CheckResult:
    usage = {"input_tokens": tokens, "output_tokens": tokens // 10} if tokens else None
    return CheckResult(POLITE, verdict, "Rude.", 0.2, usage=usage)


async def test_a_pending_judgement_is_recorded_once_then_replaced_by_its_result(
    store: Store,
) -> None:
    """Redelivery neither re-queues a pending judgement nor one already judged."""
    ref = TurnRef.of(make_turn("t-1"))
    pending = PendingJudgement(ref, POLITE, FIXED_NOW)
    first = await store.writer.save([TurnResults(ref, [], RETENTION, [pending])], FIXED_NOW)
    assert first.pending == {("t-1", "polite", "j1")}
    again = await store.writer.save([TurnResults(ref, [], RETENTION, [pending])], FIXED_NOW)
    assert again.pending == frozenset()

    expires = ref.created_at + RETENTION
    assert await store.writer.save_judged(ref, judged(Verdict.FAILED, 1200), expires, FIXED_NOW)
    assert not await store.writer.save_judged(ref, judged(Verdict.FAILED, 1200), expires, FIXED_NOW)
    after = await store.writer.save([TurnResults(ref, [], RETENTION, [pending])], FIXED_NOW)
    assert after.pending == frozenset()

    [stored] = await store.queries.results_for_turn("t-1")
    assert (stored.verdict, stored.usage) == (
        "failed",
        {"input_tokens": 1200, "output_tokens": 120},
    )
    [rate] = await store.queries.pass_rates(check="polite")
    assert (rate.failed, rate.judge_input_tokens, rate.judge_output_tokens) == (1, 1200, 120)
    assert len(await store.outbox.pending_events(10)) == 1


async def test_overdue_judgements_are_found_by_their_deadline(store: Store) -> None:
    ref = TurnRef.of(make_turn("t-7", agent={"id": "support-bot", "version": 7}))
    late = PendingJudgement(ref, POLITE, FIXED_NOW)
    await store.writer.save([TurnResults(ref, [], RETENTION, [late])], FIXED_NOW)
    assert await store.writer.overdue_judgements(FIXED_NOW - timedelta(seconds=1)) == []
    [(item, expires)] = await store.writer.overdue_judgements(FIXED_NOW + timedelta(seconds=1))
    assert item == late
    assert expires == ref.created_at + RETENTION


async def test_a_turn_twice_in_one_batch_is_stored_and_counted_once(store: Store) -> None:
    """A retrying producer can put one turn in a batch twice: one result, one count, one event."""
    report = await store.writer.save(batch("t-1", "t-1", "t-2"), FIXED_NOW)
    assert report.new_results == 6
    [rate_b] = await store.queries.pass_rates(check="b")
    assert (rate_b.failed, rate_b.total) == (2, 2)
    assert len(await store.outbox.pending_events(100)) == 4


async def test_a_refused_statement_names_no_value_of_the_turn(store: Store) -> None:
    """Engines hide parameters: an error that reaches a log carries no text of the turn."""
    if store.database.dialect == "sqlite":
        pytest.skip("SQLite does not enforce column lengths")
    version_too_long = "SECRET-VALUE-" + "x" * 300
    refused = TurnResults(
        TurnRef("t-1", None, None, "support-bot", version_too_long, FIXED_NOW),
        [result("a", Verdict.PASSED)],
        RETENTION,
    )
    with pytest.raises(Exception) as caught:
        await store.writer.save([refused], FIXED_NOW)
    assert "SECRET-VALUE" not in str(caught.value)


@pytest.mark.postgres
async def test_a_pool_timeout_counts_as_the_database_being_unavailable(postgres_url: str) -> None:
    """Every connection busy past the pool's wait: the batch waits and retries, never
    goes to the dead-letter topic as if the turn were at fault."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from turncheck.worker.errors import StoreUnavailable
    from turncheck.worker.store import Database

    engine = create_async_engine(postgres_url, pool_size=1, max_overflow=0, pool_timeout=0.1)
    database = Database(engine)
    async with engine.connect():
        with pytest.raises(StoreUnavailable):
            async with database.transaction():
                pass
    await database.close()


@pytest.mark.postgres
async def test_the_loser_of_a_deadlock_is_tried_again_like_an_outage(postgres_url: str) -> None:
    """Two writers taking the same rows in opposite orders: PostgreSQL rolls one back, and
    that one is a ``WriteConflict`` (waited out and done again), not a refused statement
    that would dead-letter its turns or error its judged result."""
    from sqlalchemy import text

    from turncheck.worker.errors import StoreUnavailable, WriteConflict

    store = await fresh_store(postgres_url)
    database = store.database
    async with database.transaction() as conn:
        await conn.execute(
            text(
                "INSERT INTO erasures (person_key, requested_at, erased_at) VALUES "
                "('a', now(), now()), ('b', now(), now())"
            )
        )
    both_hold_one = asyncio.Barrier(2)

    async def take(first: str, second: str) -> None:
        async with database.transaction() as conn:
            touch = "UPDATE erasures SET erased_at = now() WHERE person_key = :key"
            await conn.execute(text(touch), {"key": first})
            await both_hold_one.wait()
            await conn.execute(text(touch), {"key": second})

    outcomes = await asyncio.gather(take("a", "b"), take("b", "a"), return_exceptions=True)
    await store.close()
    losers = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(losers) == 1, outcomes
    assert isinstance(losers[0], WriteConflict) and isinstance(losers[0], StoreUnavailable)
    assert str(losers[0]) == "deadlock detected"
