"""A real uvicorn server on 127.0.0.1 over a real store (SQLite and PostgreSQL), and
helpers to put results in it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from tests.factories import FIXED_NOW, make_turn
from turncheck.worker.api import create_app, listen
from turncheck.worker.api.server import uvicorn_config, with_backtests
from turncheck.worker.checks import CheckId, CheckResult, Span, Verdict
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.backtests import BacktestTable

TOKEN = "t0ken-for-tests"
ERASURE_KEY = "erasure-key-for-tests"
API_NOW = FIXED_NOW + timedelta(hours=1)
"""The API's clock: an hour after the results' default checked_at."""
RETENTION = timedelta(days=30)
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def api_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url,
        "kafka_bootstrap": None,
        "api_token": TOKEN,
        "erasure_key": ERASURE_KEY,
        **overrides,
    }
    return Settings(**values)


@asynccontextmanager
async def running_api(
    settings: Settings,
    store: Store,
    clock: Callable[[], datetime] = lambda: API_NOW,
    app: FastAPI | None = None,
) -> AsyncIterator[httpx.AsyncClient]:
    """The app (``create_app``'s, unless given) under uvicorn on a free port of 127.0.0.1,
    with its backtests queue started and stopped as ``turncheck serve`` does, and a client
    for it."""
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    app = app if app is not None else create_app(settings, store, clock=clock)
    server = uvicorn.Server(uvicorn_config(app))
    task = asyncio.create_task(with_backtests(app, server, sock))
    try:
        while not server.started:
            assert not task.done(), "the server stopped while starting"
            await asyncio.sleep(0.01)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            yield client
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def api(store: Store, database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the API over ``store``, with the token; its clock is ``API_NOW``."""
    async with running_api(api_settings(database_url), store) as client:
        client.headers.update(AUTH)
        yield client


def result(check: str, verdict: Verdict, version: str = "v1") -> CheckResult:
    spans = (Span("output.text", 3, 9, "phrase"),) if verdict is not Verdict.PASSED else ()
    reason = "The text contains a banned phrase." if verdict is Verdict.FAILED else None
    return CheckResult(
        CheckId(check, version, "does_not_contain", "output", "block"),
        verdict,
        reason=reason,
        spans=spans,
    )


def turn(turn_id: str, **overrides: Any) -> TurnRef:
    return TurnRef.of(make_turn(turn_id, **overrides))


async def save(
    store: Store,
    turns: Sequence[TurnRef],
    verdicts: Sequence[tuple[str, Verdict]],
    checked_at: datetime = FIXED_NOW,
) -> None:
    """Store one result per (check, verdict) for each turn, checked at ``checked_at``."""
    batch = [TurnResults(t, [result(c, v) for c, v in verdicts], RETENTION) for t in turns]
    await store.writer.save(batch, checked_at)


async def store_finished_backtest(store: Store, backtest_id: str, report: dict[str, Any]) -> None:
    """A backtest that ran and finished at ``API_NOW`` with ``report``, as a queue leaves it."""
    table = BacktestTable(store.database)
    await table.add(backtest_id, {}, owner="me", now=API_NOW, lease_until=API_NOW)
    assert await table.start(backtest_id, owner="me", now=API_NOW)
    assert await table.finish(backtest_id, owner="me", now=API_NOW, report=report)
