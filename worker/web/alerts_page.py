"""The alerts page, ``GET /ui/alerts``: per day and channel, how many alerts were sent, are
pending, failed, and how many crossings were suppressed, with each delivery below and the
error of a failed one; newest day first, over the last ``days`` days (30 unless asked).

Days are the alerts' own (``alerts/alerter.py`` raises each on the day of the alert time
zone), the zone every time on the page is shown in; "today" is that zone's today. The rows
are those ``GET /v1/alerts`` and ``turncheck alerts history`` read (``AlertStore.history``).
A stored error is our own sentence about a send, never turn text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Annotated
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from turncheck.worker.api.context import context
from turncheck.worker.store.alerts import DIGEST, AlertStore, HistoryRow
from turncheck.worker.web.guard import UI_PREFIX, PageError, viewer
from turncheck.worker.web.paths import check_path, shown_time
from turncheck.worker.web.render import page, time_zone
from turncheck.worker.web.session import Session

router = APIRouter(prefix=UI_PREFIX, include_in_schema=False)

DEFAULT_DAYS = 30
MAX_DAYS = 366
STATUSES = ("sent", "pending", "failed")


@dataclass(frozen=True, slots=True)
class AlertsPageDelivery:
    """One alert's delivery on one channel, as the page shows it."""

    row: HistoryRow
    what: str
    check_link: str | None
    sent_at: str | None


@dataclass(slots=True)
class AlertsPageTally:
    """A day's tally on one channel; ``suppressed`` sums the crossings its alerts held back."""

    channel: str
    sent: int = 0
    pending: int = 0
    failed: int = 0
    suppressed: int = 0


@dataclass(slots=True)
class AlertsPageDay:
    day: date
    channels: dict[str, AlertsPageTally] = field(default_factory=dict)
    deliveries: list[AlertsPageDelivery] = field(default_factory=list)


def days_asked(given: str | None) -> int:
    """``?days=``: a whole number of days from 1 to ``MAX_DAYS``; a PageError (400) else."""
    if given is None or given == "":
        return DEFAULT_DAYS
    if not given.isdigit() or not 1 <= int(given) <= MAX_DAYS:
        raise PageError(400, f"days must be a whole number from 1 to {MAX_DAYS}.")
    return int(given)


def by_day(rows: Sequence[HistoryRow], zone: ZoneInfo) -> list[AlertsPageDay]:
    """The rows (newest day first, as the store orders them) tallied per day and channel."""
    found: dict[date, AlertsPageDay] = {}
    for row in rows:
        day = found.setdefault(row.day, AlertsPageDay(row.day))
        tally = day.channels.setdefault(row.channel, AlertsPageTally(row.channel))
        if row.status in STATUSES:
            setattr(tally, row.status, getattr(tally, row.status) + 1)
        tally.suppressed += row.suppressed
        digest = row.kind == DIGEST
        day.deliveries.append(
            AlertsPageDelivery(
                row=row,
                what="daily digest" if digest else row.check,
                check_link=None if digest else check_path(row.agent_id, row.check),
                sent_at=shown_time(row.sent_at, zone) if row.sent_at else None,
            )
        )
    for day in found.values():
        day.channels = dict(sorted(day.channels.items()))
    return sorted(found.values(), key=lambda d: d.day, reverse=True)


@router.get("/alerts")
async def alerts_page(
    request: Request, _: Annotated[Session, Depends(viewer)], days: str | None = None
) -> Response:
    # ``days`` is read as text: FastAPI would answer a bad number with the API's JSON 422.
    count = days_asked(days)
    ctx = context(request)
    zone = time_zone(request)
    today = ctx.clock().astimezone(zone).date()
    first_day = today - timedelta(days=count - 1)
    rows = await AlertStore(ctx.store.database).history(first_day)
    return page(
        request,
        "alerts.html.j2",
        nav_current="alerts",
        days=count,
        first_day=first_day,
        today=today,
        alert_days=by_day(rows, zone),
        max_days=MAX_DAYS,
    )
