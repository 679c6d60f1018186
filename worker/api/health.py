"""``/healthz`` (the process answers) and ``/readyz`` (its database, and its broker when
one is set, answer too). Both are open: orchestrators probe without a token.

``/readyz`` names the service down and the cause in a few words ("connection
refused"), never its host or port: it answers anyone who can reach it. The full line
goes to the log.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.errors import documented
from turncheck.worker.api.models import HealthOut, ReadyOut
from turncheck.worker.errors import ConfigurationError, ServiceUnavailable
from turncheck.worker.kafka.probe import probe_broker
from turncheck.worker.store.probe import probe_database

READY_TIMEOUT_S = 2.0
"""Each probe gives up after this; give the orchestrator's readiness probe a longer timeout."""

log = logging.getLogger(__name__)

router = APIRouter()


@router.get("/healthz", response_model=HealthOut)
async def healthz() -> HealthOut:
    """The process is alive and its event loop answers."""
    return HealthOut()


@router.get("/readyz", response_model=ReadyOut, responses=documented(503))
async def readyz(ctx: Annotated[ApiContext, Depends(context)]) -> ReadyOut | JSONResponse:
    """200 when the database answers (and the broker, when one is set); 503 naming which
    does not."""
    settings = ctx.settings
    database, broker = await asyncio.gather(
        _probe(probe_database(settings.database_url, READY_TIMEOUT_S)),
        _probe(probe_broker(settings.kafka_bootstrap, READY_TIMEOUT_S))
        if settings.kafka_bootstrap
        else _not_configured(),
    )
    ready = ReadyOut(database=database, broker=broker)
    down = [
        f"{name} unavailable: {state}"
        for name, state in (("database", database), ("broker", broker))
        if state not in ("ok", "not configured")
    ]
    if not down:
        return ready
    return JSONResponse({"error": "; ".join(down), **ready.model_dump()}, status_code=503)


async def _probe(probe: Awaitable[None]) -> str:
    """``ok``, or the cause in a few words."""
    try:
        await probe
    except ServiceUnavailable as exc:
        log.warning("not ready: %s", exc)
        return exc.cause
    except ConfigurationError:
        return "misconfigured"
    return "ok"


async def _not_configured() -> str:
    return "not configured"
