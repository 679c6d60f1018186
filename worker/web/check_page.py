"""One check of one agent: ``GET /ui/checks/{agent_id}/{check}``, and the labels set from it
(``POST /ui/checks/{agent_id}/{check}/label``).

The page shows the check's pass rate per hour over the last 48 hours and per day (in the
configured zone) over the last ``days`` (``rate_chart.py``), split by agent or check
version on request; the passed, failed, errored and not-judged counts and the most
frequent reasons over those days; and its failed results of those days, newest turn
first, a page at a time (the API's keyset pages and cursor), each with its label and a
form to change it. Charts and counts come from the hourly rollups; reasons, not-judged
counts and the failed results from an index range of ``check_results``
(``store/check_reads.py``, ``store/pages.py``), so the page's cost does not grow with the
results stored.

Query parameters (a bad one is a 400 page naming it): ``days`` (1 to 90, default 30),
``split`` (none, agent_version, check_version) and ``cursor`` (the next page's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Annotated
from urllib.parse import quote, urlencode
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from markupsafe import Markup
from starlette.datastructures import FormData

from turncheck.schemas.label import LabelName
from turncheck.worker.api import cursor as cursors
from turncheck.worker.api.context import context
from turncheck.worker.errors import NoStoredResult, NotLabellable
from turncheck.worker.judge.runner import NOT_JUDGED
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store.alerts import CHECK, AlertStore
from turncheck.worker.store.check_reads import CheckReads
from turncheck.worker.store.labels import LabelTable, StoredLabel, key_of
from turncheck.worker.store.pages import Position, ResultFilter, ResultPages
from turncheck.worker.store.queries import Queries
from turncheck.worker.store.rates import Split, agent_version_order
from turncheck.worker.store.rows import ROLLUP_BUCKET, bucket_of
from turncheck.worker.store.views import PassRate, StoredResult
from turncheck.worker.web import rate_chart
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, viewer
from turncheck.worker.web.rate_chart import Counts, RateChart, Series
from turncheck.worker.web.render import page, redirect, time_zone
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)

DEFAULT_DAYS = 30
MAX_DAYS = 90
HOURS = 48
PAGE_SIZE = 25
SPLITS = (Split.NONE, Split.AGENT_VERSION, Split.CHECK_VERSION)
LABEL_ACTIONS = ("false_alarm", "confirmed", "clear")


@dataclass(frozen=True, slots=True)
class View:
    """The page's query: how many days, the split, and where the failures' page starts."""

    days: int = DEFAULT_DAYS
    split: Split = Split.NONE
    cursor: str | None = None

    @classmethod
    def parse(cls, days: str | None, split: str | None, cursor: str | None) -> View:
        """The query checked; a bad value is a 400 page naming its parameter."""
        found_days = DEFAULT_DAYS
        if days:
            if not (days.isascii() and days.isdigit()) or not 1 <= int(days) <= MAX_DAYS:
                raise PageError(400, f"days must be a whole number from 1 to {MAX_DAYS}.")
            found_days = int(days)
        found_split = Split.NONE
        if split:
            if split not in SPLITS:
                raise PageError(400, "split must be none, agent_version or check_version.")
            found_split = Split(split)
        view = cls(found_days, found_split, cursor or None)
        view.position()  # a bad cursor is refused before anything is read
        return view

    def position(self) -> Position | None:
        if self.cursor is None:
            return None
        try:
            return cursors.decode(self.cursor)
        except RequestValidationError:
            raise PageError(
                400, "cursor is not one this page gave: open the first page again."
            ) from None

    def query(self, **changes: object) -> str:
        values = {"days": self.days, "split": self.split.value, "cursor": self.cursor, **changes}
        kept = {k: v for k, v in values.items() if v is not None}
        return urlencode(kept)


@dataclass(frozen=True, slots=True)
class FailureRow:
    """A failed result as its row shows it: the turn's time in the page's zone, its links
    (the turn's page, the conversation when ``TURNCHECK_TURN_URL`` is set) and label."""

    time: str
    turn_id: str
    turn_page: str
    reason: str | None
    agent_version: str
    check_version: str
    label: LabelName | None
    url: str | None

    @classmethod
    def of(
        cls, row: StoredResult, label: StoredLabel | None, template: str | None, zone: ZoneInfo
    ) -> FailureRow:
        return cls(
            time=f"{row.turn_created_at.astimezone(zone):%Y-%m-%d %H:%M:%S}",
            turn_id=row.turn_id,
            turn_page=f"{UI_PREFIX}/turns/{quote(row.turn_id, safe='')}",
            reason=row.reason,
            agent_version=row.agent_version,
            check_version=row.check_version,
            label=label.label if label is not None else None,
            url=link_of(template, row),
        )


def check_path(agent_id: str, check: str) -> str:
    return f"{UI_PREFIX}/checks/{quote(agent_id, safe='')}/{quote(check, safe='')}"


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
    _storable(agent_id=agent_id, check=check, days=days, split=split, cursor=cursor)
    view = View.parse(days, split, cursor)
    ctx = context(request)
    database = ctx.store.database
    if agent_id not in await ctx.store.queries.agents_with_results(check):
        raise PageError(404, "No results of this check for this agent are stored.")
    now, zone = ctx.clock(), time_zone(request)
    first_day = now.astimezone(zone).date() - timedelta(days=view.days - 1)
    day_start = _midnight(first_day, zone)
    hour_start = bucket_of(now) - ROLLUP_BUCKET * (HOURS - 1)
    hours = await _hourly(ctx.store.queries, check, agent_id, min(day_start, hour_start), now, view)
    threshold = ctx.settings.alert_min_pass_rate
    alert_days = await _alert_days(
        AlertStore(database), check, agent_id, min(first_day, hour_start.astimezone(zone).date())
    )
    hour_starts = tuple(hour_start + ROLLUP_BUCKET * i for i in range(HOURS))
    day_starts = tuple(_midnight(first_day + timedelta(days=i), zone) for i in range(view.days))
    hourly = RateChart(
        f"Pass rate of {check} for {agent_id} per hour, last {HOURS} hours",
        "hour",
        hour_starts,
        _series(hours, view.split, lambda start: start),
        threshold,
        alert_days,
        zone,
    )
    daily = RateChart(
        f"Pass rate of {check} for {agent_id} per day, last {view.days} days",
        "day",
        day_starts,
        _series(hours, view.split, lambda start: _midnight(start.astimezone(zone).date(), zone)),
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
        counts=_counts(in_period, not_judged),
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
    turn_id, action = _text(form, "turn_id"), _text(form, "label")
    _storable(agent_id=agent_id, check=check, turn_id=turn_id)
    view = View.parse(_text(form, "days"), _text(form, "split"), _text(form, "cursor"))
    if not turn_id:
        raise PageError(400, "turn_id is missing from the form.")
    if action not in LABEL_ACTIONS:
        raise PageError(400, "label must be false_alarm, confirmed or clear.")
    ctx = context(request)
    table = LabelTable(ctx.store.database)
    try:
        if action == "clear":
            await table.clear(turn_id, check)
        else:
            await table.set(
                turn_id,
                check,
                "false_alarm" if action == "false_alarm" else "confirmed",
                None,
                now=ctx.clock(),
            )
    except NoStoredResult:
        raise PageError(404, "This turn has no stored result of this check.") from None
    except NotLabellable as exc:
        raise PageError(
            409,
            f"This turn's newest result of the check is {exc.verdict}: only a failed "
            "result can be labelled.",
        ) from None
    return redirect(request, f"{check_path(agent_id, check)}?{view.query()}#failures")


def _storable(**values: str | None) -> None:
    """A 400 for a NUL in any of ``values``: no stored id or name holds one, and
    PostgreSQL could not even compare it (the API's ``storable_text``)."""
    for name, value in values.items():
        if value is not None and "\x00" in value:
            raise PageError(400, f"{name} must not contain a NUL character.")


def _text(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def _next_hour(moment: datetime) -> datetime:
    """``moment`` if it starts an hour, else the start of the next one."""
    start = bucket_of(moment)
    return start if start == moment else start + ROLLUP_BUCKET


def _midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=zone)


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


def _series_name(rate: PassRate, split: Split) -> str:
    if split is Split.AGENT_VERSION:
        return f"agent version {rate.agent_version}"
    if split is Split.CHECK_VERSION:
        return f"check version {rate.check_version}"
    return "all results"


def _series(
    hours: list[tuple[datetime, PassRate]],
    split: Split,
    bucket: Callable[[datetime], datetime],
) -> tuple[Series, ...]:
    """One series per version (or one in all), its hours summed into ``bucket(hour)``."""
    sums: dict[str, dict[datetime, list[int]]] = {}
    order: dict[str, tuple[int, int, str]] = {}
    for start, rate in hours:
        name = _series_name(rate, split)
        if name not in order:
            order[name] = (
                agent_version_order(rate.agent_version or "")
                if split is Split.AGENT_VERSION
                else (0, len(order), "")
            )
        found = sums.setdefault(name, {}).setdefault(bucket(start), [0, 0])
        found[0] += rate.passed
        found[1] += rate.total
    return tuple(
        Series(name, {start: Counts(p, t) for start, (p, t) in sums[name].items()})
        for name in sorted(order, key=order.__getitem__)
    )


def _counts(rates: list[PassRate], not_judged: int) -> dict[str, int]:
    errored = sum(rate.errored for rate in rates)
    return {
        "passed": sum(rate.passed for rate in rates),
        "failed": sum(rate.failed for rate in rates),
        "errored": errored - not_judged,
        "not_judged": not_judged,
        "total": sum(rate.total for rate in rates),
    }
