"""SIGTERM to a real ``turncheck run`` (the real broker, PostgreSQL) while a webhook
receiver trickles its answer: the worker exits within the shutdown timeout, and the
event it was sending is sent by the next start, at once."""

from __future__ import annotations

import asyncio
import inspect
import json
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.kafka.test_delivery import prepared, start_worker_process, turns
from tests.webhooks.support import SECRET
from tests.webhooks.trickle import NO_CONTENT, Trickler, trickling
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.webhook_admin import EndpointStatus, WebhookEndpoints

pytestmark = [pytest.mark.kafka, pytest.mark.postgres]

SHUTDOWN_TIMEOUT_S = 2
EXIT_WITHIN_S = 20
"""The shutdown timeout and a generous margin for a busy machine (broker and store close)."""


async def endpoint_state(store: Store) -> EndpointStatus | None:
    rows = await WebhookEndpoints(store.database).status()
    return rows[0] if rows else None


async def wait_until(probe: Callable[[], object], timeout_s: float = 60) -> None:
    """Until ``probe()`` (awaited when it is awaitable) is truthy."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while True:
        done = probe()
        if inspect.isawaitable(done):
            done = await done
        if done:
            return
        assert asyncio.get_running_loop().time() < deadline, "timed out waiting"
        await asyncio.sleep(0.05)


async def start(s: Settings, postgres_url: str, receiver: Trickler) -> asyncio.subprocess.Process:
    hooks = [{"name": "slow", "url": receiver.url, "secret": SECRET}]
    return await start_worker_process(
        s,
        postgres_url,
        TURNCHECK_WEBHOOKS=json.dumps(hooks),
        TURNCHECK_WEBHOOK_ALLOW_PRIVATE="true",
        TURNCHECK_WEBHOOK_INTERVAL_S="0.1",
        # A deadline far past the shutdown timeout: only the shutdown bound can end it.
        TURNCHECK_WEBHOOK_TIMEOUT_S="120",
        TURNCHECK_WEBHOOK_LEASE_S="300",
        TURNCHECK_SHUTDOWN_TIMEOUT_S=str(SHUTDOWN_TIMEOUT_S),
    )


async def stop(process: asyncio.subprocess.Process) -> str:
    """SIGTERM, and its standard error once it exited within EXIT_WITHIN_S."""
    process.send_signal(signal.SIGTERM)
    try:
        _, stderr = await asyncio.wait_for(process.communicate(), EXIT_WITHIN_S)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, stderr.decode()[-2000:]
    return stderr.decode()


async def test_sigterm_during_a_trickled_webhook_exits_in_time_and_loses_nothing(
    kafka_bootstrap: str, postgres_url: str, tmp_path: Path
) -> None:
    """With TURNCHECK_SHUTDOWN_TIMEOUT_S=2 and a receiver trickling a byte every 0.2 s,
    the worker exits within 20 s of SIGTERM; the event stays waiting, the endpoint is
    not left leased, and a restarted worker sends it."""
    s, backend, check = await prepared(kafka_bootstrap, postgres_url, tmp_path)
    async with trickling(interval_s=0.2) as slow:
        first = await start(s, postgres_url, slow)
        try:
            # A new endpoint starts at the newest event: produce once it is recorded.
            await wait_until(lambda: endpoint_state(check))
            await backend.produce(s.topic_turns, turns(1))
            await wait_until(lambda: slow.trickling == 1)
        finally:
            await stop(first)
        state = await endpoint_state(check)
        assert state is not None
        assert (state.backlog, state.attempts, state.claimed_until) == (1, 0, None)
        slow.answer = NO_CONTENT
        second = await start(s, postgres_url, slow)
        try:
            await wait_until(lambda: len(slow.ids) == 2, timeout_s=30)
        finally:
            await stop(second)
    assert len(set(slow.ids)) == 1, "the same event, sent again"
    state = await endpoint_state(check)
    assert state is not None and state.backlog == 0
    await check.close()
