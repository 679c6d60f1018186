"""Delivery from the outbox to a real HTTP receiver on 127.0.0.1, over SQLite and
PostgreSQL: signatures, order, backoff, Retry-After, 410, leases."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from standardwebhooks.webhooks import Webhook

from tests.webhooks.receiver import receiving
from tests.webhooks.support import SECRET, Clock, add_settled, deliverer, endpoint
from turncheck.worker.store import Store
from turncheck.worker.store.webhook_admin import WebhookEndpoints
from turncheck.worker.webhooks import Deliverer, WebhookPolicy, WebhookSender

Senders = list[WebhookSender]


async def status_of(store: Store, name: str = "ops") -> dict[str, object]:
    rows = {r.name: r for r in await WebhookEndpoints(store.database).status()}
    return {
        "enabled": rows[name].enabled,
        "reason": rows[name].disabled_reason,
        "attempts": rows[name].attempts,
        "backlog": rows[name].backlog,
        "last_status": rows[name].last_status,
        "last_error": rows[name].last_error,
        "next": rows[name].next_attempt_at,
        "claimed_until": rows[name].claimed_until,
    }


async def test_events_arrive_in_order_signed_and_verify_with_the_reference_library(
    store: Store, senders: Senders
) -> None:
    """Each event is posted once, in outbox order, its body the payload, verified by standardwebhooks."""
    clock = Clock()
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock)
        await d.sync()
        ids = await add_settled(store, 3)
        assert await d.deliver_round() == {"ops": 3}
        assert await d.deliver_round() == {"ops": 0}
    assert receiver.ids == ids
    verifier = Webhook(SECRET)
    for request, event_id in zip(receiver.requests, ids, strict=True):
        assert request.headers["Content-Type"] == "application/json"
        assert request.headers["webhook-timestamp"] == str(int(clock().timestamp()))
        assert request.headers["webhook-signature"].startswith("v1,")
        assert verifier.verify(request.body, request.headers) == {"id": event_id}
        assert json.loads(request.body) == {"id": event_id}
    assert (await status_of(store))["backlog"] == 0


async def test_a_new_endpoint_starts_after_the_newest_event(store: Store, senders: Senders) -> None:
    """Events written before an endpoint was first recorded are not sent to it."""
    await add_settled(store, 2, prefix="old")
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], Clock())
        await d.sync()
        new = await add_settled(store, 1, prefix="new")
        await d.deliver_round()
    assert receiver.ids == new


async def test_a_500_backs_off_then_the_same_event_is_sent_again_and_the_rest_follow(
    store: Store, senders: Senders
) -> None:
    """A 5xx stops the round, backs off (no send before the wait), then resumes from that event."""
    clock = Clock()
    policy = WebhookPolicy(retry_first_s=2, retry_max_s=100)
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock, policy=policy, jitter=0.5)
        await d.sync()
        ids = await add_settled(store, 3)
        receiver.script = [(204, {}), (500, {}), (500, {})]
        assert await d.deliver_round() == {"ops": 1}
        state = await status_of(store)
        assert (state["attempts"], state["last_status"], state["last_error"]) == (
            1,
            500,
            "HTTP 500",
        )
        assert state["next"] == clock() + timedelta(seconds=1), "full jitter: 0.5 x 2 s"
        assert await d.deliver_round() == {"ops": 0}, "still backing off"
        assert len(receiver.requests) == 2
        clock.advance(1)
        assert await d.deliver_round() == {"ops": 0}
        assert (await status_of(store))["next"] == clock() + timedelta(seconds=2), "doubled"
        clock.advance(2)
        assert await d.deliver_round() == {"ops": 2}
    assert receiver.ids == [ids[0], ids[1], ids[1], ids[1], ids[2]]
    state = await status_of(store)
    assert (state["attempts"], state["last_status"], state["last_error"]) == (0, 204, None)


async def test_retry_after_is_honoured_in_seconds_and_as_a_date_capped_at_the_max(
    store: Store, senders: Senders
) -> None:
    """A 429's Retry-After sets the next attempt, whether seconds or an HTTP date, never past the cap."""
    clock = Clock()
    policy = WebhookPolicy(retry_first_s=1, retry_max_s=600)
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock, policy=policy)
        await d.sync()
        await add_settled(store, 1)
        later = (clock() + timedelta(seconds=37 + 90)).strftime("%a, %d %b %Y %H:%M:%S GMT")
        receiver.script = [
            (429, {"Retry-After": "37"}),
            (503, {"Retry-After": later}),
            (429, {"Retry-After": "86400"}),
        ]
        await d.deliver_round()
        assert (await status_of(store))["next"] == clock() + timedelta(seconds=37)
        clock.advance(37)
        await d.deliver_round()
        assert (await status_of(store))["next"] == clock() + timedelta(seconds=90)
        clock.advance(90)
        await d.deliver_round()
        assert (await status_of(store))["next"] == clock() + timedelta(seconds=600)
    assert len(receiver.requests) == 3


async def test_a_410_disables_the_endpoint_until_it_is_enabled_again(
    store: Store, senders: Senders
) -> None:
    """After a 410 nothing more is sent, however long we wait; enabling resumes from that event."""
    clock = Clock()
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock)
        await d.sync()
        ids = await add_settled(store, 2)
        receiver.script = [(410, {})]
        await d.deliver_round()
        clock.advance(86_400)
        await d.sync()
        assert await d.deliver_round() == {"ops": 0}
        assert len(receiver.requests) == 1
        state = await status_of(store)
        assert (state["enabled"], state["reason"], state["backlog"]) == (False, "HTTP 410 Gone", 2)
        assert await WebhookEndpoints(store.database).enable("ops", clock())
        assert await d.deliver_round() == {"ops": 2}
    assert receiver.ids == [ids[0], *ids]


async def test_a_changed_url_enables_a_disabled_endpoint(store: Store, senders: Senders) -> None:
    """A 410'd endpoint whose configuration changes is enabled again at the next sync."""
    clock = Clock()
    async with receiving() as receiver:
        d = deliverer(senders, store, [endpoint(receiver.url)], clock)
        await d.sync()
        await add_settled(store, 1)
        receiver.script = [(410, {})]
        await d.deliver_round()
        moved = deliverer(senders, store, [endpoint(receiver.url + "?v=2")], clock)
        await moved.sync()
        assert await moved.deliver_round() == {"ops": 1}


async def test_two_replicas_at_once_send_each_event_once_per_endpoint(
    store: Store, senders: Senders
) -> None:
    """Two deliverers over one store, rounds racing, two endpoints: every event once to each."""
    clock = Clock()
    policy = WebhookPolicy(batch_max_events=7)
    async with receiving("/a") as first, receiving("/b") as second:
        first.delay_s = second.delay_s = 0.002
        hooks = [endpoint(first.url, "a"), endpoint(second.url, "b")]
        replicas = [deliverer(senders, store, hooks, clock, policy=policy) for _ in range(2)]
        await replicas[0].sync()
        ids = await add_settled(store, 60)

        def all_sent() -> bool:
            return len(first.ids) >= len(ids) and len(second.ids) >= len(ids)

        async def keep_delivering(replica: Deliverer) -> None:
            # Until everything is sent, not a fixed number of rounds: how many rounds
            # find the other replica holding a lease depends on the machine's speed.
            for _ in range(2_000):
                if all_sent():
                    return
                await replica.deliver_round()

        await asyncio.gather(*(keep_delivering(r) for r in replicas))
    assert first.ids == ids
    assert second.ids == ids


async def test_a_host_resolving_to_loopback_is_refused_at_send_unless_allowed(
    store: Store, senders: Senders
) -> None:
    """`localhost` passes the start-up check (a name), but its address is refused before connecting."""
    clock = Clock()
    async with receiving() as receiver:
        url = receiver.url.replace("127.0.0.1", "localhost")
        d = deliverer(senders, store, [endpoint(url)], clock, allow_private=False)
        await d.sync()
        await add_settled(store, 1)
        assert await d.deliver_round() == {"ops": 0}
        state = await status_of(store)
        assert state["last_error"] == "refused: a loopback address"
        assert receiver.requests == []
        allowed = deliverer(senders, store, [endpoint(url)], clock, allow_private=True)
        clock.advance(3600)
        assert await allowed.deliver_round() == {"ops": 1}
    assert receiver.requests[0].headers["Host"] == url.split("/")[2], "the name stays in Host"


async def test_a_refused_connection_backs_off(
    store: Store, senders: Senders, closed_port: int
) -> None:
    """Nothing listening: the failure is recorded as the error's type and retried later."""
    d = deliverer(senders, store, [endpoint(f"http://127.0.0.1:{closed_port}/")], Clock())
    await d.sync()
    await add_settled(store, 1)
    assert await d.deliver_round() == {"ops": 0}
    state = await status_of(store)
    assert (state["attempts"], state["last_status"], state["last_error"]) == (
        1,
        None,
        "ConnectError",
    )
