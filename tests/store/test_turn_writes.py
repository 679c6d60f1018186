"""Writers of one turn's next parts at the same moment, on SQLite and PostgreSQL: judged
results answered together and redeliveries with new check versions are each stored,
counted and evented exactly once."""

import asyncio
import json
from collections import Counter
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.errors import TurnContended
from turncheck.worker.pipeline.records import PendingJudgement, TurnRef, TurnResults
from turncheck.worker.store import Store, turn_writes
from turncheck.worker.store.tables import judge_pending

RETENTION = timedelta(days=30)
TURNS = [TurnRef.of(make_turn(f"t-{n}")) for n in range(5)]
JUDGED = [CheckId(f"judged-{n}", "j1", "judge", "output", "background") for n in range(4)]
RULE = CheckId("rule", "v1", "does_not_contain", "output", "block")


def answer(check: CheckId) -> CheckResult:
    """A passed result with nothing to say (kept in the part), and three full rows."""
    return [
        CheckResult(check, Verdict.PASSED),
        CheckResult(check, Verdict.FAILED, "Curt.", 0.2, usage={"input_tokens": 10}),
        CheckResult(check, Verdict.ERRORED, "The judge did not answer."),
        CheckResult(check, Verdict.PASSED, "Kind.", 0.9),
    ][JUDGED.index(check)]


async def pending_rows(store: Store) -> int:
    async with store.database.transaction() as conn:
        return int((await conn.execute(select(func.count()).select_from(judge_pending))).scalar())


async def assert_each_stored_once(store: Store, checks: list[CheckId], rules: int) -> None:
    """Every turn holds each of ``checks`` once, beside its ``rules`` rule results; rollups
    count each once and each one that did not pass has one event."""
    names = [c.name for c in checks]
    for turn in TURNS:
        stored = [r.check for r in await store.queries.results_for_turn(turn.turn_id)]
        assert sorted(stored) == sorted(names + ["rule"] * rules), turn.turn_id
    rates = {r.check: r for r in await store.queries.pass_rates() if r.check in names}
    assert sum(r.total for r in rates.values()) == len(checks) * len(TURNS)
    events = [json.loads(e.payload)["data"] for e in await store.outbox.pending_events(1000)]
    per_result = Counter((e["turn_id"], e["check"]) for e in events if e["check"] in names)
    assert set(per_result.values()) == {1}
    assert len(per_result) == len(TURNS) * 2  # judged-1 failed, judged-2 errored


@pytest.mark.parametrize("rules_first", [True, False], ids=["rule-results-first", "judged-only"])
async def test_judged_results_of_one_turn_answered_together_are_each_stored_once(
    store: Store, rules_first: bool
) -> None:
    """Four judgements of each of five turns answered at the same moment: all twenty are
    stored, counted and evented once, and none is left pending, whether the turn's rule
    results were stored first or it has none."""
    rules = [CheckResult(RULE, Verdict.PASSED)] if rules_first else []
    await store.writer.save(
        [
            TurnResults(
                turn, rules, RETENTION, [PendingJudgement(turn, c, FIXED_NOW) for c in JUDGED]
            )
            for turn in TURNS
        ],
        FIXED_NOW,
    )
    assert await pending_rows(store) == 20

    async def judge_all() -> list[bool]:
        return await asyncio.gather(
            *(
                store.writer.save_judged(turn, answer(c), turn.created_at + RETENTION, FIXED_NOW)
                for turn in TURNS
                for c in JUDGED
            )
        )

    stored = await judge_all()
    assert sum(stored) == 20
    assert await pending_rows(store) == 0
    await assert_each_stored_once(store, JUDGED, rules=len(rules))

    assert sum(await judge_all()) == 0  # answered again: nothing is stored twice
    await assert_each_stored_once(store, JUDGED, rules=len(rules))


async def test_redeliveries_with_new_check_versions_at_the_same_moment_each_store_theirs(
    store: Store,
) -> None:
    """Four replicas redeliver five stored turns at once, each with a check edited to a
    version of its own: every new version is stored and counted once."""
    await store.writer.save(
        [TurnResults(t, [CheckResult(RULE, Verdict.PASSED)], RETENTION) for t in TURNS], FIXED_NOW
    )
    versions = [CheckId("edited", f"v{n}", "judge", "output", "background") for n in range(4)]

    def redelivery(version: CheckId) -> list[TurnResults]:
        results = [CheckResult(RULE, Verdict.PASSED), CheckResult(version, Verdict.FAILED, "No.")]
        return [TurnResults(t, results, RETENTION) for t in TURNS]

    reports = await asyncio.gather(*(store.writer.save(redelivery(v), FIXED_NOW) for v in versions))
    assert sum(r.new_results for r in reports) == 20
    for turn in TURNS:
        stored = [
            (r.check, r.check_version) for r in await store.queries.results_for_turn(turn.turn_id)
        ]
        assert sorted(stored) == [("edited", f"v{n}") for n in range(4)] + [("rule", "v1")]
    [edited] = await store.queries.pass_rates(check="edited")
    assert edited.failed == 20
    events = [json.loads(e.payload)["data"] for e in await store.outbox.pending_events(1000)]
    assert len(events) == 20


async def test_a_part_taken_with_nothing_to_wait_on_is_read_again_never_dropped(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no part 0 to wait on (as for a turn purged meanwhile), a writer whose next part
    was taken reads again and takes the next; one that keeps losing is rolled back and
    raised to be tried again, its judgement still pending: none is dropped."""

    async def nothing_to_wait_on(conn: object, turn_ids: object) -> None:
        return None

    monkeypatch.setattr(turn_writes, "lock_claims", nothing_to_wait_on, raising=False)
    await store.writer.save(
        [
            TurnResults(turn, [], RETENTION, [PendingJudgement(turn, c, FIXED_NOW) for c in JUDGED])
            for turn in TURNS
        ],
        FIXED_NOW,
    )
    answers = [(turn, c) for turn in TURNS for c in JUDGED]
    outcomes = await asyncio.gather(
        *(
            store.writer.save_judged(turn, answer(c), turn.created_at + RETENTION, FIXED_NOW)
            for turn, c in answers
        ),
        return_exceptions=True,
    )
    contended = [a for a, o in zip(answers, outcomes, strict=True) if isinstance(o, TurnContended)]
    assert outcomes.count(True) + len(contended) == 20
    assert await pending_rows(store) == len(contended)
    for turn, c in contended:  # as the runner does: wait, then store it again
        assert await store.writer.save_judged(
            turn, answer(c), turn.created_at + RETENTION, FIXED_NOW
        )
    await assert_each_stored_once(store, JUDGED, rules=0)
