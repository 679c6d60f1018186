"""What webhooks hold in the outbox: purge keeps what an enabled endpoint has not
received; on PostgreSQL a row committed late is never left behind a cursor."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from tests.conftest import fresh_store
from tests.store.outbox_rows import add_events, rows_by_event, set_sent
from tests.webhooks.receiver import receiving
from tests.webhooks.support import Clock, add_settled, deliverer, endpoint
from turncheck.worker.store import Store
from turncheck.worker.store.tables import outbox
from turncheck.worker.webhooks import WebhookSender

Senders = list[WebhookSender]


async def purge_old(store: Store, clock: Clock) -> int:
    return await store.outbox.purge_sent(clock() + timedelta(days=1), 1000)


async def test_purge_keeps_undelivered_rows_until_delivered(store: Store, senders: Senders) -> None:
    """Rows sent to Kafka long ago stay while an enabled endpoint is down, and go once it has them."""
    clock = Clock()
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock)
        await d.sync()
        ids = await add_settled(store, 4, now=clock())
        await set_sent(store, ids, clock())
        receiver.script = [(204, {}), (503, {})]
        await d.deliver_round()
        assert await purge_old(store, clock) == 1
        assert sorted(await rows_by_event(store)) == ids[1:]
        clock.advance(3600)
        assert await d.deliver_round() == {"ops": 3}
        assert await purge_old(store, clock) == 3
    assert receiver.ids == [ids[0], ids[1], *ids[1:]]


async def test_a_disabled_endpoint_holds_nothing_back(store: Store, senders: Senders) -> None:
    """After a 410, rows it never received are purged like any other."""
    clock = Clock()
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock)
        await d.sync()
        ids = await add_settled(store, 3, now=clock())
        await set_sent(store, ids, clock())
        receiver.script = [(410, {})]
        await d.deliver_round()
    assert await purge_old(store, clock) == 3


async def test_an_endpoint_removed_from_the_configuration_holds_nothing_back(
    store: Store, senders: Senders
) -> None:
    """Once no replica configures it, it is disabled at the next sync and rows may go."""
    clock = Clock()
    async with receiving() as receiver:
        await deliverer(senders, store, [endpoint(receiver.url)], clock).sync()
        ids = await add_settled(store, 2, now=clock())
        await set_sent(store, ids, clock())
        assert await purge_old(store, clock) == 0
        await deliverer(senders, store, [], clock).sync()
        assert await purge_old(store, clock) == 2


async def test_purge_is_unchanged_without_webhooks(store: Store) -> None:
    """No endpoint recorded: rows sent long enough ago go, as before."""
    clock = Clock()
    ids = await add_settled(store, 2, now=clock())
    await set_sent(store, ids[:1], clock())
    assert await purge_old(store, clock) == 1


@pytest.mark.postgres
async def test_an_event_committed_after_a_later_one_is_still_delivered(
    postgres_url: str, senders: Senders
) -> None:
    """A transaction that wrote first and commits last: its event is held, not skipped."""
    store = await fresh_store(postgres_url)
    clock = Clock()
    try:
        async with receiving() as receiver:
            d = deliverer(senders, store, [endpoint(receiver.url)], clock)
            await d.sync()
            async with store.database.engine.connect() as slow:
                await slow.begin()
                row = {"topic": "t", "key": "k", "created_at": clock()}
                await slow.execute(
                    outbox.insert(),
                    {**row, "event_id": "evt_slow", "payload": json.dumps({"id": "evt_slow"})},
                )
                fast = await add_events(store, 1, prefix="fast")
                assert await d.deliver_round() == {"ops": 0}, "held behind the open transaction"
                await slow.commit()
            assert await d.deliver_round() == {"ops": 2}
        assert receiver.ids == ["evt_slow", *fast]
    finally:
        await store.close()
