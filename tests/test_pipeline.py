"""The pipeline's order of steps, with fakes we own."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.factories import BANNED_WORDS_CHECKS, FIXED_NOW, check_set, turn_bytes
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.pipeline import Pipeline, RawMessage, Rejected, RetryPolicy
from turncheck.worker.records import SaveReport, TurnResults


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
        retry=RetryPolicy(first_s=0.001, max_s=0.002),
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


async def test_a_store_error_that_is_not_an_outage_is_not_committed(tmp_path: Path) -> None:
    class BrokenStore(FlakyStore):
        async def save(self, batch: Sequence[TurnResults], now: datetime) -> SaveReport:
            raise RuntimeError("bug")

    log: list[str] = []

    async def commit() -> None:
        log.append("commit")

    with pytest.raises(RuntimeError):
        await pipeline(tmp_path, BrokenStore(), log).handle_batch(
            [RawMessage(turn_bytes())], commit
        )
    assert log == []
