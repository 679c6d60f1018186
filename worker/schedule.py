"""The worker's scheduler inside ``turncheck run``: one APScheduler on the event loop,
with the retention purge every ``TURNCHECK_PURGE_INTERVAL_S`` and, when a channel is
configured, the alerts' jobs (``alerts/schedule.py``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from turncheck.alerts.alerter import Alerter
from turncheck.alerts.schedule import add_alert_jobs, guarded
from turncheck.worker.purge import Purger
from turncheck.worker.settings import Settings


def worker_scheduler(
    settings: Settings,
    purger: Purger,
    alerter: Alerter | None,
    clock: Callable[[], datetime],
) -> AsyncIOScheduler:
    """A scheduler to ``start()`` on the running loop and ``shutdown()`` at the end; a
    job in progress at shutdown is cancelled and what it held is done again later."""
    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.add_job(
        guarded("purge", lambda: purger.purge(clock())),
        IntervalTrigger(seconds=settings.purge_interval_s),
        id="purge",
        max_instances=1,
        coalesce=True,
    )
    if alerter is not None:
        add_alert_jobs(scheduler, alerter, settings)
    return scheduler
