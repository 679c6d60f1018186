"""One check of one agent: ``GET /ui/checks/{agent_id}/{check}``, and the labels set from it
(``POST /ui/checks/{agent_id}/{check}/label``).

The page shows the check's pass rate per hour over the last 48 hours and per day (in the
configured zone) over the last ``days`` (``rate_chart.py``), split by agent or check
version on request; the passed, failed, errored and not-judged counts and the most
frequent reasons over those days; and its failed results of those days, newest turn
first, a page at a time (the API's keyset pages and cursor), each with its label and a
form to change it. Charts and counts come from the hourly rollups; reasons (among the
latest 10,000), not-judged counts and the failed results from an index range of
``check_results`` (``store/check_reads.py``, ``store/pages.py``): the page's cost grows
with the window's results that did not pass, at most, never with the passed ones.

Query parameters (a bad one is a 400 page naming it): ``days`` (1 to 90, default 30),
``split`` (none, agent_version, check_version) and ``cursor`` (the next page's).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from markupsafe import Markup
from starlette.datastructures import FormData

from turncheck.worker.api import cursor as cursors
from turncheck.worker.api.context import context
from turncheck.worker.judge.runner import NOT_JUDGED
from turncheck.worker.store.alerts import CHECK, AlertStore
from turncheck.worker.store.check_reads import CheckReads
from turncheck.worker.store.labels import LabelTable, key_of
from turncheck.worker.store.pages import ResultFilter, ResultPages
from turncheck.worker.store.queries import Queries
from turncheck.worker.store.rows import ROLLUP_BUCKET, bucket_of
from turncheck.worker.store.views import PassRate
from turncheck.worker.web import rate_chart
from turncheck.worker.web.check_view import (
    MAX_DAYS,
    SPLITS,
    FailureRow,
    View,
    counts_of,
    midnight,
    series_of,
)
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, form_text, viewer
from turncheck.worker.web.label_form import apply_label
from turncheck.worker.web.paths import check_path
from turncheck.worker.web.rate_chart import RateChart
from turncheck.worker.web.render import page, redirect, time_zone
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)

HOURS = 48
PAGE_SIZE = 25


# ``:path``: an agent id may hold a ``/`` (written as is or ``%2F``); a check name cannot.
@router.get("/checks/{agent_id:path}/{check}")
async def check_page(
    request: Request,
    _: Annotated[Session, Depends(viewer)],
    agent_id: str,
    check: str,
    days: str | None = None,
    split: str | None = None,
    cursor: str | None = None,
) -> Response:
    view = View.parse(days, split, cursor)
    ctx = context(request)
    database = ctx.store.database
    if agent_id not in await ctx.store.queries.agents_with_results(check):
        raise PageError(404, "No results of this check for this agent are stored.")
    now, zone = ctx.clock(), time_zone(request)
    first_day = now.astimezone(zone).date() - timedelta(days=view.days - 1)
    day_start = midnight(first_day, zone)
    hour_start = bucket_of(now) - ROLLUP_BUCKET * (HOURS - 1)
    hours = await _hourly(ctx.store.queries, check, agent_id, min(day_start, hour_start), now, view)
    threshold = ctx.settings.alert_min_pass_rate
    alert_days = await _alert_days(
        AlertStore(database), check, agent_id, min(first_day, hour_start.astimezone(zone).date())
    )
    hour_starts = tuple(hour_start + ROLLUP_BUCKET * i for i in range(HOURS))
    day_starts = tuple(midnight(first_day + timedelta(days=i), zone) for i in range(view.days))
    hourly = RateChart(
        f"Pass rate of {check} for {agent_id} per hour, last {HOURS} hours",
        "hour",
        hour_starts,
        series_of(hours, view.split, lambda start: start),
        threshold,
        alert_days,
        zone,
    )
    daily = RateChart(
        f"Pass rate of {check} for {agent_id} per day, last {view.days} days",
        "day",
        day_starts,
        series_of(hours, view.split, lambda start: midnight(start.astimezone(zone).date(), zone)),
        threshold,
        alert_days,
        zone,
    )
    # Counts, reasons and failures cover the same whole hours of the rollups: the first
    # day's midnight is not on the hour in a zone such as Asia/Kolkata.
    since = _next_hour(day_start)
    in_period = [rate for start, rate in hours if start >= since]
    reads = CheckReads(database)
    not_judged = await reads.errored_with(check, agent_id, NOT_JUDGED, since=since, until=now)
    reasons = await reads.top_reasons(check, agent_id, since=since, until=now)
    failures, last = await ResultPages(database).page(
        check,
        ResultFilter(("failed",), agent_id, since=since),
        limit=PAGE_SIZE,
        after=view.position(),
    )
    labelled = await LabelTable(database).of_results(failures)
    template = ctx.settings.turn_url_template
    path = check_path(agent_id, check)
    return page(
        request,
        "check.html.j2",
        nav_current="overview",
        check=check,
        agent_id=agent_id,
        view=view,
        path=path,
        splits=[s.value for s in SPLITS],
        max_days=MAX_DAYS,
        # rate_chart escapes every text it draws.
        charts=[
            (chart, Markup(rate_chart.svg(chart)), rate_chart.table(chart))
            for chart in (hourly, daily)
        ],
        threshold=rate_chart.percent(threshold),
        counts=counts_of(in_period, not_judged),
        reasons=reasons,
        failures=[
            FailureRow.of(row, labelled.get(key_of(row)), template, zone) for row in failures
        ],
        next_page=(f"{path}?{view.query(cursor=cursors.encode(last))}#failures" if last else None),
        first_page=f"{path}?{view.query(cursor=None)}#failures" if view.cursor else None,
    )


@router.post("/checks/{agent_id:path}/{check}/label")
async def set_label(
    request: Request,
    form: Annotated[FormData, Depends(checked_form)],
    agent_id: str,
    check: str,
) -> Response:
    """Label the turn's newest result of the check (or clear its label) as the API's
    labels do, then back to the same page of the same view."""
    turn_id = form_text(form, "turn_id")
    view = View.parse(*(form_text(form, name) or None for name in ("days", "split", "cursor")))
    await apply_label(request, turn_id, check, form_text(form, "label"), "")
    return redirect(request, f"{check_path(agent_id, check)}?{view.query()}#failures")


def _next_hour(moment: datetime) -> datetime:
    """``moment`` if it starts an hour, else the start of the next one."""
    start = bucket_of(moment)
    return start if start == moment else start + ROLLUP_BUCKET


async def _hourly(
    queries: Queries, check: str, agent_id: str, since: datetime, until: datetime, view: View
) -> list[tuple[datetime, PassRate]]:
    return await queries.bucketed_pass_rates(
        ROLLUP_BUCKET, since=since, until=until, check=check, agent=agent_id, split=view.split
    )


async def _alert_days(
    alerts: AlertStore, check: str, agent_id: str, since: date
) -> frozenset[date]:
    """The days (in the alerts' zone, the pages' too) an alert of the check went out."""
    rows = await alerts.history(since, check)
    return frozenset(
        row.day
        for row in rows
        if row.kind == CHECK and row.agent_id == agent_id and row.status == "sent"
    )
