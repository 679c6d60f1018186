"""The backtests: the list and the form that starts one (``/ui/backtests``), and one
backtest's progress, report and comparison with the live check (``/ui/backtests/{id}``).

A backtest started here goes through the form's checks (``backtest_form.py``, the API's
own) into the API's queue (``context(request).backtests``): the same run, the same row.
A queued or running backtest's page refreshes itself every 2 s with a meta refresh: no
script runs on these pages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from turncheck.worker.api.context import context
from turncheck.worker.backtest.report import CheckReport, Report
from turncheck.worker.backtest.tallies import REASONS_SHOWN
from turncheck.worker.store.backtests import BacktestRow
from turncheck.worker.web.backtest_form import FormRefused, FormValues, read_form
from turncheck.worker.web.guard import UI_PREFIX, PageError, checked_form, viewer
from turncheck.worker.web.paths import shown_time
from turncheck.worker.web.render import page, redirect, time_zone
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)
LISTED = 50
MAX_ID_CHARS = 40
REFRESH_S = 2


@dataclass(frozen=True, slots=True)
class BacktestView:
    """One backtest as the pages show it: times in the page's zone, progress worded."""

    id: str
    status: str
    created: str
    finished: str
    checks: tuple[str, ...]
    turns_read: int | None
    turns_expected: int | None
    percent: int | None
    source: str

    @classmethod
    def of(cls, row: BacktestRow, zone: ZoneInfo) -> BacktestView:
        progress = row.progress or {}
        read, expected = progress.get("turns_read"), progress.get("turns_expected")
        percent = None
        if isinstance(read, int) and isinstance(expected, int) and expected > 0:
            percent = min(100, read * 100 // expected)
        draft = row.options.get("draft") or {}
        names = tuple(f"{c.get('agent_id')} / {c.get('check')}" for c in draft.get("checks") or ())
        return cls(
            id=row.id,
            status=row.status,
            created=_when(row.created_at, zone),
            finished=_when(row.finished_at, zone),
            checks=names,
            turns_read=read if isinstance(read, int) else None,
            turns_expected=expected if isinstance(expected, int) else None,
            percent=percent,
            source=str(row.options.get("source") or ""),
        )


def _when(moment: datetime | None, zone: ZoneInfo) -> str:
    return "" if moment is None else shown_time(moment, zone)


def _rate(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.1%}"


async def _list_page(
    request: Request,
    *,
    status: int = 200,
    values: FormValues | None = None,
    error: str | None = None,
    where: dict[str, Any] | None = None,
) -> Response:
    rows = await context(request).backtests.table.recent(LISTED)
    zone = time_zone(request)
    return page(
        request,
        "backtests.html.j2",
        status=status,
        nav_current="backtests",
        backtests=[BacktestView.of(row, zone) for row in rows],
        values=values or FormValues(),
        error=error,
        where={k: v for k, v in (where or {}).items() if v is not None},
        broker=context(request).settings.kafka_bootstrap is not None,
    )


@router.get("/backtests")
async def backtests(request: Request, _: Annotated[Session, Depends(viewer)]) -> Response:
    return await _list_page(request)


@router.post("/backtests")
async def start_backtest(
    request: Request, form: Annotated[FormData, Depends(checked_form)]
) -> Response:
    """Queue the draft and show its page; a refused form comes back with its sentence and
    what was pasted."""
    ctx = context(request)
    try:
        backtest_request, options = await read_form(form, ctx.settings, ctx.clock())
    except FormRefused as refused:
        await form.close()
        return await _list_page(
            request,
            status=refused.status,
            values=refused.values,
            error=refused.message,
            where=refused.where,
        )
    await form.close()  # an upload's spooled file, read already
    backtest_id = await ctx.backtests.submit(backtest_request, options)
    return redirect(request, f"{UI_PREFIX}/backtests/{backtest_id}")


@router.get("/backtests/{backtest_id}")
async def backtest(
    request: Request, backtest_id: str, _: Annotated[Session, Depends(viewer)]
) -> Response:
    ctx = context(request)
    row = None
    if len(backtest_id) <= MAX_ID_CHARS:
        row = await ctx.backtests.table.get(backtest_id)
    if row is None:
        raise PageError(404, "There is no backtest with this id.")
    report = None if row.report is None else Report.from_dict(row.report)
    return page(
        request,
        "backtest.html.j2",
        nav_current="backtests",
        b=BacktestView.of(row, time_zone(request)),
        error=row.error,
        refresh_s=REFRESH_S if row.status in ("queued", "running") else None,
        report=report,
        rows=[] if report is None else [_check_view(r) for r in report.checks.values()],
        turn_urls={} if report is None else report.turn_urls(ctx.settings.turn_url_template),
    )


def _check_view(row: CheckReport) -> dict[str, Any]:
    """A report row with its rates worded and its top reasons."""
    return {
        "row": row,
        "would_fail_rate": _rate(row.would_fail_rate),
        "errored_rate": _rate(row.errored_rate),
        "reasons": row.reasons.top(REASONS_SHOWN),
        "other_reasons": row.reasons.other,
    }
