"""``GET /ui/``: every check per agent, with its pass rate over the alert window, the
last 24 h and 7 days (and the change against the period before), a sparkline of its
last 7 days and its state; sortable by any column, filtered by agent and agent version.

What it reads, whatever the number of checks: every check's counts over each period,
summed by the database from the rollups in one query (``store/range_sums.py``); the
(check, agent) pairs and their agent versions from all rollups in one; the rollouts in
one; today's alerts in one. The alert window is the alerter's own reading
(``Readings.latest_counts``): one query per row, each an index range of at most
``latest`` rows, so no query scans the results.

The alert window uses the settings' thresholds (``TURNCHECK_ALERT_*``): the API does not
load the check files, so a check's own ``alert:`` overrides are not seen here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from turncheck.worker.api.context import context
from turncheck.worker.judge.runner import NOT_JUDGED
from turncheck.worker.store.alert_readings import Readings, WindowCounts
from turncheck.worker.store.alerts import CHECK, AlertStore
from turncheck.worker.store.range_sums import range_sums
from turncheck.worker.store.rates import Split, agent_version_order
from turncheck.worker.web.guard import UI_PREFIX, PageError, viewer
from turncheck.worker.web.overview_rows import SEVERITY, Periods, Row, Thresholds, build_rows
from turncheck.worker.web.paths import check_path
from turncheck.worker.web.render import page, time_zone
from turncheck.worker.web.session import Session
from turncheck.worker.web.sparkline import percent, sparkline

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)

SORTS: Mapping[str, Callable[[Row], Any]] = {
    "check": lambda row: row.check,
    "agent": lambda row: row.agent_id,
    "rollout": lambda row: row.rollout,
    "rate_window": lambda row: row.window.pass_rate,
    "rate_24h": lambda row: row.day.rate,
    "change_24h": lambda row: row.change_24h,
    "rate_7d": lambda row: row.week.rate,
    "change_7d": lambda row: row.change_7d,
    "state": lambda row: min(SEVERITY.index(state) for state in row.states),
}
"""Each column's sort key; None (no results) sorts last either way."""
ORDERS = ("asc", "desc")
SENT = "sent"
"""A delivery's status once its channel took it (``store/tables.py``)."""
WINDOW_READS = 4
"""Alert windows read at once: fewer than the connection pool's five, so a page leaves
the API's other requests a connection."""
DEFAULT_SORT = "rate_24h"


@dataclass(frozen=True, slots=True)
class Choice:
    """What the page was asked for, each value checked."""

    sort: str = DEFAULT_SORT
    order: str = "asc"
    agent: str = ""
    agent_version: str = ""

    def link(self, **changes: str) -> str:
        values = {
            "sort": self.sort,
            "order": self.order,
            "agent": self.agent,
            "agent_version": self.agent_version,
            **changes,
        }
        query = urlencode({name: value for name, value in values.items() if value})
        return f"{UI_PREFIX}/?{query}" if query else f"{UI_PREFIX}/"

    def header(self, column: str) -> str:
        """A column's header link: sorts by it, the other way round when it already does."""
        flipped = "desc" if self.sort == column and self.order == "asc" else "asc"
        return self.link(sort=column, order=flipped)


@router.get("/")
async def overview(
    request: Request,
    _: Annotated[Session, Depends(viewer)],
    sort: str = DEFAULT_SORT,
    order: str = "asc",
    agent: str = "",
    agent_version: str = "",
) -> Response:
    ctx = context(request)
    if sort not in SORTS:
        raise PageError(400, f"Unknown value for sort: use one of {', '.join(SORTS)}.")
    if order not in ORDERS:
        raise PageError(400, "Unknown value for order: use asc or desc.")
    everything = await ctx.store.queries.pass_rates(split=Split.NONE)
    agents = sorted({rate.agent_id for rate in everything})
    versions = sorted(
        {v for rate in everything for v in rate.agent_versions}, key=agent_version_order
    )
    if agent and agent not in agents:
        raise PageError(400, "Unknown value for agent: choose one from the list.")
    if agent_version and agent_version not in versions:
        raise PageError(400, "Unknown value for agent_version: choose one from the list.")
    choice = Choice(sort, order, agent, agent_version)

    periods = Periods(ctx.clock(), time_zone(request))
    pairs = [
        (rate.check, rate.agent_id)
        for rate in everything
        if agent in ("", rate.agent_id) and agent_version in ("", *rate.agent_versions)
    ]
    sums = await range_sums(
        ctx.store.database,
        periods.ranges(),
        agent=agent or None,
        agent_version=agent_version or None,
    )
    policy = Thresholds.of(ctx.settings)
    windows = await alert_windows(Readings(ctx.store.database), pairs, policy.latest)
    today = periods.days[-1]
    alerts: dict[tuple[str, str], bool] = {}
    for delivery in await AlertStore(ctx.store.database).history(since=today):
        if delivery.kind == CHECK and delivery.day == today:
            key = (delivery.agent_id, delivery.check)
            alerts[key] = alerts.get(key, False) or delivery.status == SENT
    rows = build_rows(
        pairs,
        sums,
        windows,
        periods,
        policy=policy,
        shadow=(await ctx.store.rollouts.read()).shadow,
        alerts=alerts,
    )
    return page(
        request,
        "overview.html.j2",
        nav_current="overview",
        rows=ordered(rows, sort, descending=order == "desc"),
        choice=choice,
        agents=agents,
        versions=versions,
        policy=policy,
        now=periods.now.astimezone(periods.zone),
        percent=percent,
        change=change_words,
        spark=lambda row: sparkline(row.days, policy.min_pass_rate),
        check_link=check_link,
    )


async def alert_windows(
    readings: Readings, pairs: list[tuple[str, str]], latest: int
) -> dict[tuple[str, str], WindowCounts]:
    """Each pair's alert window, ``WINDOW_READS`` read at a time: each waits on the
    database rather than on Python, and one at a time they add up with the checks."""
    gate = asyncio.Semaphore(WINDOW_READS)

    async def one(check: str, agent_id: str) -> WindowCounts:
        async with gate:
            return await readings.latest_counts(check, agent_id, latest, NOT_JUDGED)

    found = await asyncio.gather(*(one(check, agent_id) for check, agent_id in pairs))
    return dict(zip(pairs, found, strict=True))


def ordered(rows: list[Row], sort: str, *, descending: bool) -> list[Row]:
    """Rows by the column, ties by check and agent; rows without a value last."""
    key = SORTS[sort]
    by_name = sorted(rows, key=lambda row: (row.check, row.agent_id))
    valued = [row for row in by_name if key(row) is not None]
    valued.sort(key=key, reverse=descending)
    return valued + [row for row in by_name if key(row) is None]


def change_words(points: float | None) -> str:
    """A change in percentage points with its arrow and sign: ``▲ +1.5 pp``, ``n/a``."""
    if points is None:
        return "n/a"
    if round(points, 1) == 0:
        return "→ 0.0 pp"
    arrow = "▲" if points > 0 else "▼"
    return f"{arrow} {points:+.1f} pp"


def check_link(row: Row) -> str:
    return check_path(row.agent_id, row.check)
