"""The outbox publisher over a real store (SQLite and PostgreSQL): claims, concurrent
sends, marking as acknowledged, backoff, release on stop, purge."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

import pytest

from tests.factories import FIXED_NOW
from tests.store.outbox_rows import add_events, event_id_of, rows_by_event, set_sent
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.outbox.publisher import OutboxPolicy, Publisher, drain, run_outbox
from turncheck.worker.store import OutboxTable, PendingEvent, Store


class Clock:
    """A clock that moves only when told."""

    def __init__(self, at: datetime = FIXED_NOW) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


class Broker:
    """Records each send by event id; ``hold`` decides which sends wait on ``opened``."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.sent: Counter[str] = Counter()
        self.in_flight = 0
        self.most_in_flight = 0
        self.opened = asyncio.Event()
        self.hold: Callable[[str], bool] = lambda event_id: False
        self.fail: Callable[[str], bool] = lambda event_id: False

    async def send(self, topic: str, key: str, payload: bytes) -> None:
        event_id = event_id_of(payload)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            if self.hold(event_id):
                await self.opened.wait()
            if self.fail(event_id):
                raise ConnectionError("broker said no")
            self.sent[event_id] += 1
        finally:
            self.in_flight -= 1


async def until(probe: Callable[[], Awaitable[bool]], timeout_s: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not await probe():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.01)


async def unsent(store: Store) -> int:
    return len(await store.outbox.pending_events(10_000))


def test_the_retry_delay_doubles_up_to_its_cap_and_jitter_keeps_at_least_half() -> None:
    policy = OutboxPolicy(retry_first_s=1, retry_max_s=60)
    assert [policy.retry_delay_s(n, jitter=0.999999) for n in range(8)] == pytest.approx(
        [1, 2, 4, 8, 16, 32, 60, 60], rel=1e-5
    )
    assert policy.retry_delay_s(3, jitter=0.0) == 4
    assert policy.retry_delay_s(10_000, jitter=0.0) == 30, "no overflow after many failures"


async def test_two_publishers_over_one_store_send_every_event_exactly_once(
    store: Store, database_url: str
) -> None:
    """Two loops claim and send at once, with a slow broker: no event twice, none lost."""
    ids = await add_events(store, 300)
    other = Store.open(database_url, events_topic="events")
    broker = Broker(delay_s=0.005)
    policy = OutboxPolicy(round_max_events=20, max_in_flight=5)
    stop = asyncio.Event()
    counts: list[Counter[str]] = [Counter(), Counter()]

    def counting(n: int) -> Callable[[str, str, bytes], Awaitable[None]]:
        async def send(topic: str, key: str, payload: bytes) -> None:
            await broker.send(topic, key, payload)
            counts[n][event_id_of(payload)] += 1

        return send

    loops = [
        asyncio.create_task(run_outbox(s.outbox, counting(n), Clock(), 0.01, stop, policy))
        for n, s in enumerate([store, other])
    ]
    try:
        await until(lambda: _none_unsent(store))
    finally:
        stop.set()
        await asyncio.gather(*loops)
        await other.close()
    assert sorted(broker.sent) == ids
    assert set(broker.sent.values()) == {1}
    assert all(counts), "both publishers took part"
    assert broker.most_in_flight > 1, "a round's sends overlap"


async def _none_unsent(store: Store) -> bool:
    return await unsent(store) == 0


async def test_a_publisher_killed_mid_round_keeps_what_was_acknowledged(
    store: Store, database_url: str
) -> None:
    """Acknowledged sends are marked at once; the rest go out after the lease, once."""
    ids = await add_events(store, 40)
    fast = set(ids[:15])
    broker = Broker()
    broker.hold = lambda event_id: event_id not in fast
    policy = OutboxPolicy(max_in_flight=40, lease_s=60)
    clock = Clock()
    first = asyncio.create_task(Publisher(store.outbox, broker.send, clock, policy).drain())
    await until(lambda: _unsent_is(store, 25))
    assert not first.done(), "25 sends are still in flight"
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first

    rows = await rows_by_event(store)
    assert {i for i, row in rows.items() if row.sent_at is not None} == fast

    fresh = Store.open(database_url, events_topic="events")
    after = Broker()
    try:
        assert await drain(fresh.outbox, after.send, clock, policy) == 0, "still leased"
        clock.at += timedelta(seconds=60)
        assert await drain(fresh.outbox, after.send, clock, policy) == 25
    finally:
        await fresh.close()
    assert set(after.sent) == set(ids) - fast
    assert set(after.sent.values()) == {1}


async def test_a_publisher_restarted_under_its_replica_name_resends_its_claims_at_once(
    store: Store, database_url: str
) -> None:
    """Killed while its 120 s lease runs, "replica-a" comes back and sends its rows at once;
    another replica would have waited for the lease."""
    ids = await add_events(store, 30)
    broker = Broker()
    broker.hold = lambda event_id: True
    policy = OutboxPolicy(lease_s=120)
    clock = Clock()
    first = asyncio.create_task(drain(store.outbox, broker.send, clock, policy, replica="a"))
    await until(lambda: _in_flight(broker, 30))
    first.cancel()  # as if the process died: nothing more is written
    with pytest.raises(asyncio.CancelledError):
        await first

    clock.at += timedelta(seconds=1)
    fresh = Store.open(database_url, events_topic="events")
    other, restarted = Broker(), Broker()
    try:
        assert await drain(fresh.outbox, other.send, clock, policy, replica="b") == 0
        assert await drain(fresh.outbox, restarted.send, clock, policy) == 0, "nor a new name"
        assert await drain(fresh.outbox, restarted.send, clock, policy, replica="a") == 30
    finally:
        await fresh.close()
    assert sorted(restarted.sent) == ids and set(restarted.sent.values()) == {1}
    assert not other.sent


async def _unsent_is(store: Store, count: int) -> bool:
    return await unsent(store) == count


async def test_stopping_mid_round_releases_the_rows_not_yet_sent(store: Store) -> None:
    """Sends in flight finish and are marked; the rest are free for a restart at once."""
    ids = await add_events(store, 10)
    broker = Broker()
    broker.hold = lambda event_id: True
    stop = asyncio.Event()
    clock = Clock()
    policy = OutboxPolicy(max_in_flight=2)
    loop = asyncio.create_task(run_outbox(store.outbox, broker.send, clock, 0.01, stop, policy))
    await until(lambda: _in_flight(broker, 2))
    stop.set()
    broker.opened.set()
    await asyncio.wait_for(loop, 30)
    assert sum(broker.sent.values()) == 2

    restarted = Broker()
    assert await drain(store.outbox, restarted.send, clock) == 8, "no lease to wait out"
    assert sorted(broker.sent + restarted.sent) == ids


async def _in_flight(broker: Broker, count: int) -> bool:
    return broker.in_flight == count


async def test_a_failing_row_backs_off_and_the_others_still_go_out(store: Store) -> None:
    ids = await add_events(store, 5)
    poison = ids[1]
    broker = Broker()
    broker.fail = lambda event_id: event_id == poison
    clock = Clock()
    policy = OutboxPolicy(retry_first_s=10, retry_max_s=100)
    publisher = Publisher(store.outbox, broker.send, clock, policy, jitter=lambda: 0.5)

    assert await publisher.drain() == 4
    row = (await rows_by_event(store))[poison]
    first_wait = timedelta(seconds=policy.retry_delay_s(0, 0.5))
    assert (row.attempts, row.next_attempt_at) == (1, FIXED_NOW + first_wait)
    assert row.last_error == "ConnectionError"

    more = await add_events(store, 2, "more")
    clock.at = FIXED_NOW + first_wait - timedelta(seconds=1)
    assert await publisher.drain() == 2, "new rows go, the poison row waits"
    assert broker.sent[poison] == 0 and set(more) <= set(broker.sent)

    clock.at = FIXED_NOW + first_wait
    assert (await publisher.publish_round()).failed == 1
    row = (await rows_by_event(store))[poison]
    second_wait = timedelta(seconds=policy.retry_delay_s(1, 0.5))
    assert second_wait == 2 * first_wait
    assert (row.attempts, row.next_attempt_at) == (2, clock.at + second_wait)

    broker.fail = lambda event_id: False
    clock.at += second_wait
    assert await publisher.drain() == 1
    assert set(broker.sent.values()) == {1} and len(broker.sent) == 7


async def test_the_loop_purges_sent_rows_older_than_the_keep_time(store: Store) -> None:
    old = await add_events(store, 5, "old")
    recent = await add_events(store, 3, "recent")
    unsent_ids = await add_events(store, 2, "unsent")
    await set_sent(store, old, FIXED_NOW - timedelta(days=1, seconds=1))
    await set_sent(store, recent, FIXED_NOW - timedelta(hours=23))
    policy = OutboxPolicy(keep_sent_s=86_400, purge_chunk=2)
    broker = Broker()
    stop = asyncio.Event()
    loop = asyncio.create_task(run_outbox(store.outbox, broker.send, Clock(), 0.01, stop, policy))
    await until(lambda: _row_count_is(store, 5))
    stop.set()
    await loop
    assert sorted(await rows_by_event(store)) == sorted(recent + unsent_ids)
    assert sorted(broker.sent) == sorted(unsent_ids)


async def _row_count_is(store: Store, count: int) -> bool:
    return len(await rows_by_event(store)) == count


class FlakyOutbox(OutboxTable):
    """The database is out of reach for the first claim."""

    claims = 0

    async def claim(
        self, claimant: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[PendingEvent]:
        self.claims += 1
        if self.claims == 1:
            raise StoreUnavailable("OperationalError")
        return await super().claim(claimant, now, lease_until, limit)


async def test_a_round_that_cannot_reach_the_store_does_not_end_the_loop(store: Store) -> None:
    await add_events(store, 3)
    outbox = FlakyOutbox(store.database)
    broker = Broker()
    stop = asyncio.Event()
    loop = asyncio.create_task(run_outbox(outbox, broker.send, Clock(), 0.01, stop))
    await until(lambda: _none_unsent(store))
    stop.set()
    await loop
    assert len(broker.sent) == 3 and outbox.claims > 1
