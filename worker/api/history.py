"""``GET /v1/alerts``: alerts and digests per day and channel, as ``turncheck alerts history``."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.models import AlertOut, AlertsOut
from turncheck.worker.api.query import MOMENT, invalid, moment
from turncheck.worker.store.alerts import AlertStore

DEFAULT_DAYS = 14

router = APIRouter()


@router.get("/alerts", response_model=AlertsOut)
async def alerts(
    ctx: Annotated[ApiContext, Depends(context)],
    days: Annotated[
        int | None,
        Query(ge=1, le=3650, description="How many days back, today included (UTC); default 14."),
    ] = None,
    since: Annotated[
        str | None, Query(description=f"From the UTC day of this time: {MOMENT}. Not with `days`.")
    ] = None,
    check: Annotated[str | None, Query(description="Only this check.")] = None,
) -> AlertsOut:
    """Newest day first: status (sent, pending, failed), attempts, last error, and how
    many more times the check was found below its threshold that day."""
    now = ctx.clock()
    start = moment("since", since, now)
    if start is not None:
        if days is not None:
            raise invalid("since", "give days or since, not both")
        first_day = start.date()
    else:
        first_day = now.date() - timedelta(days=(days or DEFAULT_DAYS) - 1)
    rows = await AlertStore(ctx.store.database).history(first_day, check)
    return AlertsOut(since=first_day, alerts=[AlertOut.of(row) for row in rows])
