"""The store's contract, on SQLite and on PostgreSQL alike."""

import json
from datetime import timedelta

from tests.factories import FIXED_NOW, make_turn
from worker.checks import CheckResult, Span, Verdict
from worker.store import SqlStore, TurnResults

RETENTION = timedelta(days=30)


def result(check: str, verdict: Verdict, version: str = "v1") -> CheckResult:
    spans = (Span("output.text", 3, 9, "phrase"),) if verdict is Verdict.FAILED else ()
    return CheckResult(
        check, version, "does_not_contain", "output", "block", verdict, None, None, spans
    )


def batch(*turn_ids: str) -> list[TurnResults]:
    return [
        TurnResults(
            make_turn(turn_id, output="secret answer text"),
            [
                result("a", Verdict.PASSED),
                result("b", Verdict.FAILED),
                result("c", Verdict.ERRORED),
            ],
            RETENTION,
        )
        for turn_id in turn_ids
    ]


async def test_results_are_stored_with_ids_times_and_expiry(store: SqlStore) -> None:
    assert await store.save(batch("t-1"), FIXED_NOW) == 3
    rows = await store.results_for_turn("t-1")
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


async def test_a_redelivered_batch_writes_nothing_twice(store: SqlStore) -> None:
    """Results, rollup counts and events stay single when a batch comes again."""
    await store.save(batch("t-1", "t-2"), FIXED_NOW)
    assert await store.save(batch("t-2", "t-1", "t-3"), FIXED_NOW + timedelta(minutes=1)) == 3
    [rate_a] = await store.pass_rates(check="a")
    assert (rate_a.passed, rate_a.failed, rate_a.errored) == (3, 0, 0)
    events = await store.pending_events(100)
    assert len(events) == 6  # b and c, three turns each


async def test_a_new_check_version_is_a_new_result(store: SqlStore) -> None:
    await store.save(batch("t-1"), FIXED_NOW)
    again = [TurnResults(make_turn("t-1"), [result("a", Verdict.FAILED, version="v2")], RETENTION)]
    assert await store.save(again, FIXED_NOW) == 1
    assert len(await store.results_for_turn("t-1")) == 4


async def test_pass_rates_count_errored_against_the_rate_and_filter(store: SqlStore) -> None:
    await store.save(batch("t-1", "t-2"), FIXED_NOW)
    other = make_turn("t-9", agent={"id": "sales-bot", "version": 1})
    await store.save([TurnResults(other, [result("a", Verdict.FAILED)], RETENTION)], FIXED_NOW)
    rates = {(r.check, r.agent_id): r for r in await store.pass_rates()}
    assert rates[("a", "support-bot")].pass_rate == 1.0
    assert rates[("a", "sales-bot")].pass_rate == 0.0
    assert rates[("c", "support-bot")].pass_rate == 0.0
    assert [r.agent_id for r in await store.pass_rates(agent="sales-bot")] == ["sales-bot"]
    assert await store.pass_rates(since=FIXED_NOW + timedelta(days=1)) == []


async def test_events_carry_no_text_and_are_sent_once(store: SqlStore) -> None:
    await store.save(batch("t-1"), FIXED_NOW)
    pending = await store.pending_events(100)
    assert {e.key for e in pending} == {"t-1"}
    for event in pending:
        payload = json.loads(event.payload)
        assert payload["type"] == "response.check_failed"
        assert payload["data"]["turn_id"] == "t-1"
        assert "secret" not in event.payload and "answer" not in event.payload
    await store.mark_sent([e.id for e in pending], FIXED_NOW)
    assert await store.pending_events(100) == []
