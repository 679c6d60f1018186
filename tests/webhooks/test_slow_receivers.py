"""Receivers that answer slowly or strangely, as real ones do, over SQLite and
PostgreSQL: a trickled answer misses the request's deadline and is retried, one slow
receiver never holds back another's events, stopping cuts a request in hand and keeps
its event, and a ``Retry-After`` that is no number is ignored."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta

import pytest

from tests.webhooks.receiver import receiving
from tests.webhooks.support import Clock, add_settled, deliverer, endpoint
from tests.webhooks.test_delivery import status_of
from tests.webhooks.trickle import NO_CONTENT, trickling
from turncheck.worker.store import Store
from turncheck.worker.store.webhook_admin import WebhookEndpoints
from turncheck.worker.webhooks import WebhookPolicy, WebhookSender, run_webhooks

Senders = list[WebhookSender]
BACKOFF = WebhookPolicy(retry_first_s=2, retry_max_s=100)
"""With the helpers' jitter of 0.5, the first backoff is 1 s."""


async def until(probe: Callable[[], bool], timeout_s: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not probe():
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.02)


async def test_a_trickled_answer_misses_the_deadline_and_the_event_is_sent_again_later(
    store: Store, senders: Senders
) -> None:
    """A byte every 0.2 s never trips a per-read timeout of 1 s, but the request's 1 s
    deadline ends it: a "timeout" failure that backs off, then the same event is sent again."""
    clock = Clock()
    async with trickling(interval_s=0.2) as slow:
        d = deliverer(senders, store, [endpoint(slow.url)], clock, policy=BACKOFF, timeout_s=1)
        await d.sync()
        ids = await add_settled(store, 1)
        assert await asyncio.wait_for(d.deliver_round(), 30) == {"ops": 0}
        state = await status_of(store)
        assert (state["attempts"], state["last_status"], state["last_error"]) == (
            1,
            None,
            "timeout",
        )
        assert state["backlog"] == 1
        slow.answer = NO_CONTENT
        clock.advance(1)
        assert await d.deliver_round() == {"ops": 1}
    assert slow.ids == ids + ids


async def test_a_slow_receiver_never_holds_back_another_endpoints_events(
    store: Store, senders: Senders
) -> None:
    """While one receiver is still trickling its answer to the first event, another gets
    every event, of this round and of the next ones, in order."""
    async with trickling() as slow, receiving() as fast:
        endpoints = [endpoint(slow.url, "slow"), endpoint(fast.url, "fast")]
        d = deliverer(senders, store, endpoints, Clock(), timeout_s=60)
        stop = asyncio.Event()
        loop = asyncio.create_task(run_webhooks(d, 0.05, stop))
        try:
            first = await add_once_recorded(store, 2, 2, "a")
            await until(lambda: len(fast.ids) == 2 and slow.trickling == 1)
            second = await add_settled(store, 2, prefix="b")
            await until(lambda: len(fast.ids) == 4)
            assert fast.ids == first + second
            assert slow.ids == first[:1] and slow.trickling == 1
        finally:
            stop.set()
            loop.cancel()  # the slow request is not this test's to wait for
            await asyncio.gather(loop, return_exceptions=True)


async def test_stopping_cuts_a_trickled_request_after_the_grace_and_keeps_its_event(
    store: Store, senders: Senders
) -> None:
    """Once stopped, a request still trickling gets the grace and is then cut: the loop
    ends, the event is still waiting, and the endpoint is free at once for the next start."""
    clock = Clock()
    async with trickling() as slow:
        d = deliverer(senders, store, [endpoint(slow.url)], clock, timeout_s=60)
        stop = asyncio.Event()
        loop = asyncio.create_task(run_webhooks(d, 0.05, stop, grace_s=0.5))
        ids = await add_once_recorded(store, 1, 1, "a")
        await until(lambda: slow.trickling == 1)
        stop.set()
        await asyncio.wait_for(loop, 20)
        state = await status_of(store)
        assert (state["backlog"], state["attempts"], state["last_error"]) == (1, 0, None)
        assert state["claimed_until"] is None, "the lease was given up"
        slow.answer = NO_CONTENT
        restarted = deliverer(senders, store, [endpoint(slow.url)], clock)  # a new claimant
        assert await restarted.deliver_round() == {"ops": 1}
    assert slow.ids == ids + ids


@pytest.mark.parametrize("value", ["²", "٣", "12²", "1e3", "-1", "inf", "nan", "0x10"])
async def test_a_retry_after_that_is_neither_ascii_digits_nor_a_date_is_ignored(
    store: Store, senders: Senders, value: str
) -> None:
    """A 503 whose Retry-After is not plain digits (`'²'.isdigit()` is true) or a date is
    a 503 like any other: the endpoint backs off by its own policy, nothing raises."""
    clock = Clock()
    async with trickling() as receiver:
        receiver.answer = (
            b"HTTP/1.1 503 Service Unavailable\r\nretry-after: "
            + value.encode()
            + b"\r\ncontent-length: 0\r\n\r\n"
        )
        d = deliverer(senders, store, [endpoint(receiver.url)], clock, policy=BACKOFF)
        await d.sync()
        await add_settled(store, 1)
        assert await d.deliver_round() == {"ops": 0}
    state = await status_of(store)
    assert (state["attempts"], state["last_status"], state["last_error"]) == (1, 503, "HTTP 503")
    assert state["next"] == clock() + timedelta(seconds=1), "its own backoff: 0.5 x 2 s"


async def add_once_recorded(store: Store, endpoints: int, count: int, prefix: str) -> list[str]:
    """Wait until the loop has recorded the endpoints (a new endpoint starts at the newest
    event), then add ``count`` events."""
    admin = WebhookEndpoints(store.database)
    deadline = asyncio.get_running_loop().time() + 30
    while len(await admin.status()) < endpoints:
        assert asyncio.get_running_loop().time() < deadline, "the endpoints were never recorded"
        await asyncio.sleep(0.02)
    return await add_settled(store, count, prefix=prefix)
