"""``create_app``: the API's one composition root. Routes get the settings, the store and
the clock from here, never from globals or the environment."""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from fastapi import APIRouter, Depends, FastAPI

from turncheck.worker import web
from turncheck.worker.api import (
    backtests,
    errors,
    health,
    history,
    labels,
    metrics,
    persons,
    rates,
    results,
)
from turncheck.worker.api.asyncapi import asyncapi_document
from turncheck.worker.api.auth import configured_token, require_token
from turncheck.worker.api.context import ApiContext
from turncheck.worker.api.hosts import LoopbackHostsOnly
from turncheck.worker.api.query import storable_text
from turncheck.worker.backtest.background import BacktestQueue
from turncheck.worker.backtest.estimate import estimate_json
from turncheck.worker.clock import Clock, utc_now
from turncheck.worker.settings import Settings
from turncheck.worker.store import Store
from turncheck.worker.store.backtests import BacktestTable

DESCRIPTION = (
    "Pass rates, results and alerts of turncheck. Every path under /v1 and /metrics "
    "needs `Authorization: Bearer <TURNCHECK_API_TOKEN>`; health, readiness and the "
    "OpenAPI and AsyncAPI documents are open. Without a token the API answers only requests "
    "addressed to localhost, 127.0.0.1 or [::1]: any other `Host` is a 421. "
    'Errors are `{"error": "..."}`.'
)


def create_app(settings: Settings, store: Store, *, clock: Clock = utc_now) -> FastAPI:
    """The application over ``store``, which the caller opens and closes. Its backtests
    queue (``app.state.turncheck.backtests``) starts with the first backtest, or when the
    server calls ``start``; the server stops it (``stop``) when it stops."""
    app = FastAPI(
        title="turncheck",
        version=version("turncheck"),
        description=DESCRIPTION,
        # The interactive pages load scripts from a CDN; the documents are enough.
        docs_url=None,
        redoc_url=None,
    )
    queue = BacktestQueue(settings, BacktestTable(store.database), clock, estimator=estimate_json)
    app.state.turncheck = ApiContext(settings, store, clock, queue)
    errors.install(app)
    if configured_token(settings) is None:
        app.add_middleware(LoopbackHostsOnly)
    v1 = APIRouter(
        prefix="/v1",
        dependencies=[Depends(require_token), Depends(storable_text)],
        responses=errors.documented(401, 421, 422, 503),
    )
    for part in (rates, results, labels, history, persons, backtests):
        v1.include_router(part.router)
    app.include_router(v1)
    app.include_router(
        metrics.router, dependencies=[Depends(require_token)], responses=errors.documented(401)
    )
    app.include_router(health.router)
    web.install(app, settings)
    document = asyncapi_document(settings)

    @app.get("/asyncapi.json", summary="The AsyncAPI 3.0 document of turncheck's topics")
    async def asyncapi() -> dict[str, Any]:
        return document

    return app
