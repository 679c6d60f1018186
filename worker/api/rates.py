"""``GET /v1/pass-rates``: counts and the pass rate per check and agent, optionally per
hour or UTC day, from the hourly ``pass_rate_rollups`` (by the turn's ``created_at``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.models import PassRateOut, PassRatesOut
from turncheck.worker.api.query import MOMENT, moment, window
from turncheck.worker.store.queries import DAY
from turncheck.worker.store.rows import ROLLUP_BUCKET

DEFAULT_SINCE = timedelta(days=7)
BUCKETS = {"hour": ROLLUP_BUCKET, "day": DAY}

router = APIRouter()


@router.get("/pass-rates", response_model=PassRatesOut)
async def pass_rates(
    ctx: Annotated[ApiContext, Depends(context)],
    check: Annotated[str | None, Query(description="Only this check.")] = None,
    agent: Annotated[str | None, Query(description="Only this agent id.")] = None,
    agent_version: Annotated[str | None, Query(description="Only this agent version.")] = None,
    since: Annotated[
        str | None, Query(description=f"{MOMENT}; default 7 days before `until` (or now).")
    ] = None,
    until: Annotated[str | None, Query(description=f"{MOMENT}; exclusive; default now.")] = None,
    bucket: Annotated[
        Literal["hour", "day"] | None, Query(description="Counts per hour or per UTC day.")
    ] = None,
) -> PassRatesOut:
    """Passed, failed and errored counts and the pass rate per check and agent. Counts are
    kept per hour of the turns' `created_at`: every hour that overlaps [since, until)
    counts whole. A shadow check's rates are counted like any other's and marked
    `"rollout": "shadow"`."""
    now = ctx.clock()
    end = moment("until", until, now)
    start = moment("since", since, now) or default_since(end or now)
    window(start, end)
    filters = {"check": check, "agent": agent, "agent_version": agent_version}
    queries = ctx.store.queries
    known = await ctx.store.rollouts.read()
    if bucket is None:
        rates = await queries.pass_rates(since=start, until=end, **filters)
        rows = [PassRateOut.of(rate, rollout=known.of(rate.agent_id, rate.check)) for rate in rates]
    else:
        found = await queries.bucketed_pass_rates(
            BUCKETS[bucket], since=start, until=end, **filters
        )
        rows = [
            PassRateOut.of(rate, bucket_start, known.of(rate.agent_id, rate.check))
            for bucket_start, rate in found
        ]
    return PassRatesOut(since=start, until=end, bucket=bucket, rates=rows)


def default_since(end: datetime) -> datetime:
    """Seven days before ``end``, or the first moment there is when that is before it."""
    try:
        return end - DEFAULT_SINCE
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)
