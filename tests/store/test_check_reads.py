"""The check page's reads of full rows, on both databases: the most frequent reasons of
what did not pass, and the results the worker errored itself."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.api.conftest import RETENTION, save, turn
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.judge.runner import ABANDONED, NOT_JUDGED
from turncheck.worker.pipeline.records import TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.check_reads import CheckReads, ReasonCount

CHECK = "no-competitors"
AGENT = "support-bot"
SINCE = datetime(2026, 11, 29, 0, tzinfo=UTC)
UNTIL = datetime(2026, 11, 30, 0, tzinfo=UTC)


async def store_errored(store: Store, turn_id: str, reason: str, created_at: str) -> None:
    errored = CheckResult(
        CheckId(CHECK, "v1", "does_not_contain", "output", "block"), Verdict.ERRORED, reason=reason
    )
    batch = [TurnResults(turn(turn_id, created_at=created_at), [errored], RETENTION)]
    await store.writer.save(batch, UNTIL)


async def test_reasons_are_counted_most_frequent_first_within_the_window(store: Store) -> None:
    """Two failures with one reason come before one errored result with another; a turn
    created before the window and passed results are not counted."""
    inside = "2026-11-29T10:00:00Z"
    await save(
        store, [turn(f"f-{i}", created_at=inside) for i in range(2)], [(CHECK, Verdict.FAILED)]
    )
    await save(store, [turn("f-old", created_at="2026-11-28T10:00:00Z")], [(CHECK, Verdict.FAILED)])
    await save(store, [turn("p-1", created_at=inside)], [(CHECK, Verdict.PASSED)])
    await store_errored(store, "e-1", "The pattern timed out.", inside)

    found = await CheckReads(store.database).top_reasons(CHECK, AGENT, since=SINCE, until=UNTIL)

    assert found.top == [
        ReasonCount("failed", "The text contains a banned phrase.", 2),
        ReasonCount("errored", "The pattern timed out.", 1),
    ]
    assert (found.read, found.capped) == (3, False)


async def test_reasons_are_counted_among_the_latest_results_only(store: Store) -> None:
    """With room for two, the two newest results decide: the oldest's reason is not counted,
    and the answer says it was capped."""
    await store_errored(store, "e-old", "The pattern timed out.", "2026-11-29T09:00:00Z")
    newer = [turn(f"f-{i}", created_at=f"2026-11-29T1{i}:00:00Z") for i in range(2)]
    await save(store, newer, [(CHECK, Verdict.FAILED)])

    reads = CheckReads(store.database)
    found = await reads.top_reasons(CHECK, AGENT, since=SINCE, until=UNTIL, among=2)

    assert found.top == [ReasonCount("failed", "The text contains a banned phrase.", 2)]
    assert (found.read, found.capped) == (2, True)


async def test_only_results_the_worker_errored_count_as_not_judged(store: Store) -> None:
    """An abandoned judgement counts; an error of the check's own does not."""
    inside = "2026-11-29T10:00:00Z"
    await store_errored(store, "e-worker", ABANDONED, inside)
    await store_errored(store, "e-check", "The pattern timed out.", inside)

    reads = CheckReads(store.database)
    found = await reads.errored_with(CHECK, AGENT, NOT_JUDGED, since=SINCE, until=UNTIL)

    assert found == 1
