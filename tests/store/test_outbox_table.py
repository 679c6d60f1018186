"""The outbox table's claims, backoff, release and purge, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

from tests.factories import FIXED_NOW
from tests.store.outbox_rows import add_events, rows_by_event, set_sent
from turncheck.worker.store import FailedSend, Store

LEASE = timedelta(seconds=60)


async def test_a_claim_reserves_the_oldest_rows_to_one_claimant_until_its_lease_ends(
    store: Store,
) -> None:
    ids = await add_events(store, 5)
    first = await store.outbox.claim("a", FIXED_NOW, FIXED_NOW + LEASE, 3)
    assert [e.id for e in first] == [1, 2, 3]
    rest = await store.outbox.claim("b", FIXED_NOW, FIXED_NOW + LEASE, 10)
    assert [e.id for e in rest] == [4, 5], "b gets only what a did not claim"
    assert await store.outbox.claim("c", FIXED_NOW + LEASE / 2, FIXED_NOW + LEASE, 10) == []

    rows = await rows_by_event(store)
    assert [rows[i].claimed_by for i in ids] == ["a", "a", "a", "b", "b"]
    assert rows[ids[0]].claimed_until == FIXED_NOW + LEASE

    later = FIXED_NOW + LEASE
    expired = await store.outbox.claim("c", later, later + LEASE, 10)
    assert [e.id for e in expired] == [1, 2, 3, 4, 5], "a dead claimant's rows come back"


async def test_a_claimant_takes_back_its_own_leased_rows_at_once_and_no_one_else_does(
    store: Store,
) -> None:
    """Rows leased to "replica-a" for 120 s are claimed again at once by "replica-a" (a
    replica restarted under its instance id), never by another claimant before the lease ends."""
    lease = timedelta(seconds=120)
    await add_events(store, 4)
    held = await store.outbox.claim("replica-a", FIXED_NOW, FIXED_NOW + lease, 3)
    soon = FIXED_NOW + timedelta(seconds=1)
    assert [e.id for e in await store.outbox.claim("replica-b", soon, soon + lease, 10)] == [4]
    again = await store.outbox.claim("replica-a", soon, soon + lease, 10)
    assert [e.id for e in again] == [e.id for e in held] == [1, 2, 3]
    rows = await rows_by_event(store)
    assert {(row.claimed_by, row.claimed_until) for row in rows.values() if row.id <= 3} == {
        ("replica-a", soon + lease)
    }, "a new lease from the second claim"


async def test_sent_rows_are_never_claimed_again(store: Store) -> None:
    await add_events(store, 2)
    claimed = await store.outbox.claim("a", FIXED_NOW, FIXED_NOW + LEASE, 10)
    await store.outbox.mark_sent([claimed[0].id], FIXED_NOW)
    later = FIXED_NOW + 2 * LEASE
    assert [e.id for e in await store.outbox.claim("b", later, later + LEASE, 10)] == [2]
    assert [e.id for e in await store.outbox.pending_events(10)] == [2]


async def test_a_failed_row_counts_the_attempt_and_waits_until_its_retry_time(
    store: Store,
) -> None:
    ids = await add_events(store, 2)
    [poison, _] = await store.outbox.claim("a", FIXED_NOW, FIXED_NOW + LEASE, 10)
    retry_at = FIXED_NOW + timedelta(seconds=8)
    await store.outbox.mark_failed("a", [FailedSend(poison.id, retry_at, "KafkaTimeoutError")])

    row = (await rows_by_event(store))[ids[0]]
    assert (row.attempts, row.next_attempt_at, row.last_error) == (1, retry_at, "KafkaTimeoutError")
    assert (row.claimed_by, row.claimed_until) == (None, None), "the lease is over"

    before = retry_at - timedelta(seconds=1)
    assert await store.outbox.claim("b", before, before + LEASE, 10) == []
    [again] = await store.outbox.claim("b", retry_at, retry_at + LEASE, 10)
    assert (again.id, again.attempts) == (poison.id, 1)


async def test_only_the_lease_holder_records_a_failure_or_a_release(store: Store) -> None:
    """A publisher whose lease ran out must not undo the new holder's claim."""
    ids = await add_events(store, 1)
    [row] = await store.outbox.claim("a", FIXED_NOW, FIXED_NOW + LEASE, 1)
    later = FIXED_NOW + LEASE
    await store.outbox.claim("b", later, later + LEASE, 1)

    await store.outbox.mark_failed("a", [FailedSend(row.id, later, "Boom")])
    await store.outbox.release("a", [row.id])
    stored = (await rows_by_event(store))[ids[0]]
    assert (stored.claimed_by, stored.attempts, stored.claimed_until) == ("b", 0, later + LEASE)


async def test_released_rows_can_be_claimed_at_once(store: Store) -> None:
    await add_events(store, 3)
    claimed = await store.outbox.claim("a", FIXED_NOW, FIXED_NOW + LEASE, 10)
    await store.outbox.release("a", [e.id for e in claimed[1:]])
    again = await store.outbox.claim("b", FIXED_NOW, FIXED_NOW + LEASE, 10)
    assert [e.id for e in again] == [2, 3]


async def test_purge_deletes_rows_sent_before_the_cutoff_in_bounded_chunks(store: Store) -> None:
    old = await add_events(store, 5, "old")
    recent = await add_events(store, 2, "recent")
    unsent = await add_events(store, 2, "unsent")
    await set_sent(store, old, FIXED_NOW - timedelta(days=2))
    await set_sent(store, recent, FIXED_NOW - timedelta(hours=2))
    cutoff = FIXED_NOW - timedelta(days=1)

    assert await store.outbox.purge_sent(cutoff, 2) == 2
    assert await store.outbox.purge_sent(cutoff, 2) == 2
    assert await store.outbox.purge_sent(cutoff, 2) == 1
    assert await store.outbox.purge_sent(cutoff, 2) == 0
    assert sorted(await rows_by_event(store)) == sorted(recent + unsent)
