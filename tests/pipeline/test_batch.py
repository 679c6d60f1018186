"""The pipeline's order of steps, with fakes we own."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, turn_bytes
from tests.loop_lag import baseline_lag_s, lag_while
from turncheck.worker.checks import CheckResult, CheckSet
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.pipeline import batch as pipeline_module
from turncheck.worker.pipeline.batch import Pipeline, RawMessage, Rejected
from turncheck.worker.pipeline.evaluate import OUT_OF_TIME
from turncheck.worker.pipeline.records import SaveReport, TurnResults
from turncheck.worker.pipeline.save import StoreRetry
from turncheck.worker.runtime.heap import freeze_heap
from turncheck.worker.turns.structs import Turn


class FlakyStore:
    """Unavailable for the first ``outages`` calls, then stores in memory."""

    def __init__(self, outages: int = 0) -> None:
        self.outages = outages
        self.saved: list[TurnResults] = []
        self.calls = 0

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        self.calls += 1
        if self.calls <= self.outages:
            raise StoreUnavailable("down")
        self.saved.extend(batch)
        return SaveReport(sum(len(item.results) for item in batch), frozenset())


def pipeline(tmp_path: Path, store: FlakyStore, log: list[str]) -> Pipeline:
    async def dead_letter(rejected: Sequence[Rejected]) -> None:
        log.extend(f"dlq:{r.message.offset}:{r.reason}" for r in rejected)

    return Pipeline(
        checks=check_set(tmp_path, BANNED_WORDS_CHECKS),
        store=store,
        dead_letter=dead_letter,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
        retry=StoreRetry(first_s=0.001, max_s=0.002),
    )


async def test_a_malformed_message_is_dead_lettered_and_the_rest_is_stored(tmp_path: Path) -> None:
    store, log = FlakyStore(), []
    messages = [
        RawMessage(turn_bytes("t-1", "Ask HelpCo."), offset=0),
        RawMessage(b"{oops", offset=1),
        RawMessage(turn_bytes("t-2"), offset=2),
    ]

    async def commit() -> None:
        log.append("commit")

    report = await pipeline(tmp_path, store, log).handle_batch(messages, commit)
    assert log == ["dlq:1:not valid JSON", "commit"]
    assert [item.turn.turn_id for item in store.saved] == ["t-1", "t-2"]
    assert (report.turns, report.rejected, report.results, report.not_passed) == (2, 1, 4, 1)


async def test_commit_waits_until_the_store_is_back(tmp_path: Path) -> None:
    """A database outage holds the batch: no commit before it is stored, nothing lost."""
    store, log = FlakyStore(outages=3), []

    async def commit() -> None:
        log.append(f"commit after {len(store.saved)} stored")

    await pipeline(tmp_path, store, log).handle_batch([RawMessage(turn_bytes("t-1"))], commit)
    assert store.calls == 4
    assert log == ["commit after 1 stored"]


class RefusingStore(FlakyStore):
    """Refuses every batch holding one of ``bad`` turns, as a database refuses a value."""

    def __init__(self, *bad: str) -> None:
        super().__init__()
        self.bad = set(bad)

    async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
        self.calls += 1
        if any(item.turn.turn_id in self.bad for item in batch):
            raise ValueError("value refused")
        self.saved.extend(batch)
        return SaveReport(sum(len(item.results) for item in batch), frozenset())


async def test_a_turn_the_store_keeps_refusing_is_dead_lettered_and_the_rest_committed(
    tmp_path: Path,
) -> None:
    """One bad turn never stalls its partition: after the tries, turn by turn."""
    store, log = RefusingStore("t-2"), []

    async def commit() -> None:
        log.append(f"commit after {len(store.saved)} stored")

    messages = [RawMessage(turn_bytes(f"t-{i}"), offset=i) for i in (1, 2, 3)]
    report = await pipeline(tmp_path, store, log).handle_batch(messages, commit)
    assert log == ["dlq:2:could not be stored: ValueError", "commit after 2 stored"]
    assert [item.turn.turn_id for item in store.saved] == ["t-1", "t-3"]
    assert store.calls == 3 + 3  # three tries of the batch, then one per turn
    assert (report.turns, report.rejected) == (2, 1)


async def test_a_store_error_that_clears_on_a_retry_stores_the_batch_whole(
    tmp_path: Path,
) -> None:
    class OnceBroken(FlakyStore):
        async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
            if not self.calls:
                self.calls += 1
                raise RuntimeError("deadlock detected")
            return await super().save(batch, now)

    store, log = OnceBroken(), []

    async def commit() -> None:
        log.append("commit")

    await pipeline(tmp_path, store, log).handle_batch(
        [RawMessage(turn_bytes("t-1")), RawMessage(turn_bytes("t-2"))], commit
    )
    assert log == ["commit"]
    assert [item.turn.turn_id for item in store.saved] == ["t-1", "t-2"]


async def test_a_turn_that_cannot_be_checked_is_dead_lettered_and_the_rest_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_evaluate = pipeline_module.evaluate

    def evaluate(turn: Turn, checks: CheckSet) -> list[CheckResult]:
        if turn.turn_id == "t-2":
            raise KeyError("a bug outside any one check")
        return real_evaluate(turn, checks)

    monkeypatch.setattr(pipeline_module, "evaluate", evaluate)
    store, log = FlakyStore(), []

    async def commit() -> None:
        log.append("commit")

    messages = [RawMessage(turn_bytes(f"t-{i}"), offset=i) for i in (1, 2, 3)]
    await pipeline(tmp_path, store, log).handle_batch(messages, commit)
    assert log == ["dlq:2:could not be checked: KeyError", "commit"]
    assert [item.turn.turn_id for item in store.saved] == ["t-1", "t-3"]


async def test_a_tombstone_is_dead_lettered_as_such(tmp_path: Path) -> None:
    store, log = FlakyStore(), []

    async def commit() -> None:
        log.append("commit")

    await pipeline(tmp_path, store, log).handle_batch([RawMessage(None, offset=7)], commit)
    assert log == ["dlq:7:a tombstone: the message has no value", "commit"]


async def test_a_turn_past_its_retention_window_on_arrival_is_skipped_and_committed(
    tmp_path: Path,
) -> None:
    """A turn whose expiry (created_at + retention) is at or before the clock is neither
    stored nor counted; it is reported as expired and its offset committed."""
    store, log = FlakyStore(), []

    async def commit() -> None:
        log.append("commit")

    def created(before_now: timedelta) -> str:
        return (FIXED_NOW - before_now).isoformat()

    messages = [
        RawMessage(turn_bytes("t-old", created_at=created(timedelta(days=40))), offset=0),
        RawMessage(turn_bytes("t-edge", created_at=created(timedelta(days=30))), offset=1),
        RawMessage(
            turn_bytes("t-in", created_at=created(timedelta(days=30, seconds=-1))), offset=2
        ),
    ]
    report = await pipeline(tmp_path, store, log).handle_batch(messages, commit)
    assert [item.turn.turn_id for item in store.saved] == ["t-in"]
    assert (report.turns, report.expired, report.rejected, report.results) == (1, 2, 0, 2)
    assert log == ["commit"]


async def test_checking_a_heavy_batch_leaves_the_event_loop_responsive(tmp_path: Path) -> None:
    """Checks run off the loop: heartbeats, the outbox and the judge keep their pace."""
    checks = check_set(tmp_path, EVERY_DETECTOR_AND_FACTS)
    freeze_heap()  # as the worker does once its checks are loaded
    heavy = " ".join(
        f"Order A-{i:05d} of ${i}.50 ships 2026-03-{i % 28 + 1:02d}; mail a{i}@example.com."
        for i in range(120)
    )
    messages = [RawMessage(turn_bytes(f"t-{i}", heavy), offset=i) for i in range(500)]
    messages.append(RawMessage(turn_bytes("t-big", "word " * 1_000_000), offset=500))
    p = Pipeline(
        checks=checks,
        store=FlakyStore(),
        dead_letter=_none,
        clock=lambda: FIXED_NOW,
        retention=timedelta(days=30),
    )
    store = p.store
    assert isinstance(store, FlakyStore)
    baseline_s = await baseline_lag_s()
    lag = await lag_while(p.handle_batch(messages, _none_commit), baseline_s)
    assert lag.ticks > 10, "the batch was too light to measure anything"
    assert lag.worst_s < lag.allowed_s, str(lag)
    [big] = [item for item in store.saved if item.turn.turn_id == "t-big"]
    verdicts = {r.check.name: (r.verdict.value, r.reason) for r in big.results}
    assert verdicts["sensitive"] == ("errored", OUT_OF_TIME.reason)
    assert verdicts["grounded"] == ("errored", OUT_OF_TIME.reason)


async def _none(rejected: object) -> None:
    """No dead letters expected."""


async def _none_commit() -> None:
    """Nothing to commit."""


EVERY_DETECTOR_AND_FACTS = """
agent: support-bot
checks:
  - {name: sensitive, kind: sensitive_data}
  - {name: grounded, kind: facts}
  - {name: competitors, kind: does_not_contain, phrases: [HelpCo, Acme Support]}
"""
