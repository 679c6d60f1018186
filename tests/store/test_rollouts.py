"""Shadow checks in the store, on SQLite and PostgreSQL: their results are stored and
counted like any other, with no event; the rollouts the worker records at start."""

from __future__ import annotations

import json
from datetime import timedelta

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.store import Store

RETENTION = timedelta(days=30)
AGENT = "support-bot"
SHADOW = frozenset({(AGENT, "new-rule")})


def failed(check: str, kind: str = "does_not_contain", mode: str = "block") -> CheckResult:
    return CheckResult(CheckId(check, "v1", kind, "output", mode), Verdict.FAILED, reason="No.")


async def events_of(store: Store) -> list[str]:
    """The checks named by the events waiting in the outbox."""
    return sorted(
        json.loads(e.payload)["data"]["check"] for e in await store.outbox.pending_events(100)
    )


async def test_a_shadow_checks_failure_is_stored_and_counted_with_no_event(
    store: Store,
) -> None:
    """The live check's failure gets its event; the shadow one is stored and in the pass
    rate all the same, and puts nothing in the outbox."""
    turn = TurnRef.of(make_turn("t-1"))
    writer = store.writer.with_shadow(SHADOW)
    batch = [TurnResults(turn, [failed("new-rule"), failed("old-rule")], RETENTION)]
    assert (await writer.save(batch, FIXED_NOW)).new_results == 2
    stored = await store.queries.results_for_turn("t-1")
    assert sorted((r.check, r.verdict) for r in stored) == [
        ("new-rule", "failed"),
        ("old-rule", "failed"),
    ]
    rates = await store.queries.pass_rates(since=FIXED_NOW - timedelta(days=1))
    assert sorted((r.check, r.failed, r.total) for r in rates) == [
        ("new-rule", 1, 1),
        ("old-rule", 1, 1),
    ]
    assert await events_of(store) == ["old-rule"]


async def test_a_shadow_checks_judged_result_puts_no_event(store: Store) -> None:
    """A judged result stored later, in place of its pending judgement, is shadow too."""
    turn = TurnRef.of(make_turn("t-1"))
    writer = store.writer.with_shadow(frozenset({(AGENT, "polite")}))
    judged = failed("polite", kind="judge", mode="background")
    pending = PendingJudgement(turn, judged.check, FIXED_NOW + timedelta(minutes=5))
    await writer.save([TurnResults(turn, [], RETENTION, [pending])], FIXED_NOW)
    expires = turn.created_at + RETENTION
    assert await writer.save_judged(turn, judged, expires, FIXED_NOW)
    assert [r.check for r in await store.queries.results_for_turn("t-1")] == ["polite"]
    assert await events_of(store) == []


async def test_the_same_check_of_another_agent_is_not_shadow(store: Store) -> None:
    """Rollout is per agent: another agent's check of the same name keeps its events."""
    writer = store.writer.with_shadow(SHADOW)
    other = TurnRef.of(make_turn("t-2", agent={"id": "sales-bot", "version": 1}))
    await writer.save([TurnResults(other, [failed("new-rule")], RETENTION)], FIXED_NOW)
    assert await events_of(store) == ["new-rule"]


async def test_rollouts_are_recorded_idempotently_and_promotion_is_dated(store: Store) -> None:
    """Recording the same rollouts again changes nothing; promoting a check moves its date,
    and a check no longer recorded keeps its row."""
    rollouts = store.rollouts
    await rollouts.record({(AGENT, "new-rule"): "shadow", (AGENT, "old-rule"): "live"}, FIXED_NOW)
    later = FIXED_NOW + timedelta(hours=1)
    await rollouts.record({(AGENT, "new-rule"): "shadow", (AGENT, "old-rule"): "live"}, later)
    known = await rollouts.read()
    assert known.shadow == SHADOW
    assert (known.of(AGENT, "new-rule"), known.of(AGENT, "old-rule")) == ("shadow", "live")
    assert known.of(AGENT, "never-recorded") == "live"
    assert await rollouts.dates() == {
        (AGENT, "new-rule"): ("shadow", FIXED_NOW),
        (AGENT, "old-rule"): ("live", FIXED_NOW),
    }
    promoted = FIXED_NOW + timedelta(days=2)
    await rollouts.record({(AGENT, "new-rule"): "live"}, promoted)
    assert (await rollouts.read()).shadow == frozenset()
    assert await rollouts.dates() == {
        (AGENT, "new-rule"): ("live", promoted),
        (AGENT, "old-rule"): ("live", FIXED_NOW),
    }
