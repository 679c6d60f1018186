"""``GET /v1/pass-rates``: counts and the pass rate per check and agent, optionally per
hour or UTC day, from the hourly ``pass_rate_rollups`` (by the turn's ``created_at``),
with the labelled failures of the same hours and the check's precision
(``worker/store/label_rates.py``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query

from turncheck.worker.api.context import ApiContext, context
from turncheck.worker.api.models import PassRateOut, PassRatesOut
from turncheck.worker.api.query import MOMENT, moment, window
from turncheck.worker.store.label_rates import label_counts, labelled_buckets, labelled_rates
from turncheck.worker.store.queries import DAY
from turncheck.worker.store.rates import Split
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
    split: Annotated[
        Split,
        Query(description="Counts per check version, agent version or both, too."),
    ] = Split.NONE,
    exclude_false_alarms: Annotated[
        bool,
        Query(description="Count each failure labelled a false alarm as passed instead."),
    ] = False,
) -> PassRatesOut:
    """Passed, failed and errored counts and the pass rate per check and agent (and per
    check version or agent version with `split`), and the labelled failures with the
    precision. Counts are kept per hour of the turns' `created_at`: every hour that
    overlaps [since, until) counts whole. Every rate names the check and agent versions it
    covers; `mixed_versions` is true when it covers more than one check version. A shadow
    check's rates are counted like any other's and marked `"rollout": "shadow"`."""
    now = ctx.clock()
    end = moment("until", until, now)
    start = moment("since", since, now) or default_since(end or now)
    window(start, end)
    filters = {"check": check, "agent": agent, "agent_version": agent_version}
    queries = ctx.store.queries
    size = BUCKETS[bucket] if bucket is not None else None
    labelled = await label_counts(
        ctx.store.database, since=start, until=end, bucket=size, split=split, **filters
    )
    exclude = exclude_false_alarms
    known = await ctx.store.rollouts.read()
    if size is None:
        rates = await queries.pass_rates(since=start, until=end, split=split, **filters)
        rates = labelled_rates(rates, labelled, exclude_false_alarms=exclude)
        rows = [PassRateOut.of(rate, rollout=known.of(rate.agent_id, rate.check)) for rate in rates]
    else:
        found = await queries.bucketed_pass_rates(
            size, since=start, until=end, split=split, **filters
        )
        found = labelled_buckets(found, labelled, exclude_false_alarms=exclude)
        rows = [
            PassRateOut.of(rate, bucket_start, known.of(rate.agent_id, rate.check))
            for bucket_start, rate in found
        ]
    return PassRatesOut(
        since=start,
        until=end,
        bucket=bucket,
        split=split,
        exclude_false_alarms=exclude,
        rates=rows,
    )


def default_since(end: datetime) -> datetime:
    """Seven days before ``end``, or the first moment there is when that is before it."""
    try:
        return end - DEFAULT_SINCE
    except OverflowError:
        return datetime.min.replace(tzinfo=UTC)
