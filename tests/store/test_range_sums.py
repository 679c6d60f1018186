"""Counts over several ranges of hours in one query, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.api.conftest import save, turn
from turncheck.worker.checks import Verdict
from turncheck.worker.store import Store
from turncheck.worker.store.range_sums import RangeCount, range_sums


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 11, 29, hour, minute, tzinfo=UTC)


async def seed(
    store: Store, turn_id: str, created: datetime, verdict: Verdict, **agent: str
) -> None:
    agent_ = {"id": "bot-a", "version": 3, "model": "m", **agent}
    ref = turn(turn_id, created_at=created.isoformat(), agent=agent_)
    await save(store, [ref], [("tone", verdict)])


async def test_each_range_counts_the_hours_starting_in_it_by_check_and_agent(store: Store) -> None:
    """An hour counts whole toward the range its start is in; ranges may overlap."""
    await seed(store, "t1", at(9, 59), Verdict.PASSED)
    await seed(store, "t2", at(10, 0), Verdict.FAILED)
    await seed(store, "t3", at(10, 30), Verdict.PASSED)
    await seed(store, "t4", at(11, 0), Verdict.ERRORED)
    await seed(store, "t5", at(10, 0), Verdict.PASSED, id="bot-b")
    found = await range_sums(
        store.database, [(at(9), at(10)), (at(10), at(11)), (at(9), at(12)), (at(12), at(13))]
    )
    assert found == {
        ("tone", "bot-a"): (RangeCount(1, 1), RangeCount(1, 2), RangeCount(2, 4), RangeCount()),
        ("tone", "bot-b"): (RangeCount(), RangeCount(1, 1), RangeCount(1, 1), RangeCount()),
    }


async def test_only_the_agent_and_agent_version_asked_are_counted(store: Store) -> None:
    """A version's results only; a pair without hours in any range is absent."""
    await seed(store, "t1", at(10), Verdict.PASSED, version="3")
    await seed(store, "t2", at(10), Verdict.FAILED, version="4")
    await seed(store, "t3", at(10), Verdict.PASSED, id="bot-b")
    await seed(store, "t4", at(5), Verdict.PASSED, id="bot-c")
    one = await range_sums(store.database, [(at(10), at(11))], agent_version="4")
    assert one == {("tone", "bot-a"): (RangeCount(0, 1),)}
    agent = await range_sums(store.database, [(at(10), at(11))], agent="bot-b")
    assert agent == {("tone", "bot-b"): (RangeCount(1, 1),)}
    assert await range_sums(store.database, []) == {}
