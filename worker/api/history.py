"""``GET /v1/alerts``: alerts and digests per day and channel, as ``turncheck alerts history``."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.models import AlertOut, AlertsOut
from turncheck.worker.store.alerts import AlertStore

router = APIRouter()


@router.get("/alerts", response_model=AlertsOut)
async def alerts(
    ctx: Annotated[ApiContext, Depends(context)],
    days: Annotated[
        int, Query(ge=1, le=3650, description="How many days back, today included (UTC).")
    ] = 14,
    check: Annotated[str | None, Query(description="Only this check.")] = None,
) -> AlertsOut:
    """Newest day first: status (sent, pending, failed), attempts, last error, and how
    many more times the check was found below its threshold that day."""
    since = ctx.clock().date() - timedelta(days=days - 1)
    rows = await AlertStore(ctx.store.database).history(since, check)
    return AlertsOut(since=since, alerts=[AlertOut.of(row) for row in rows])
