"""The worker's scheduler inside ``turncheck run``: one APScheduler on the event loop,
with the retention purge every ``TURNCHECK_PURGE_INTERVAL_S``. The composition root
adds the alerts' jobs (``alerts/schedule.py``) when a channel is configured."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from turncheck.worker.clock import Clock
from turncheck.worker.errors import StoreUnavailable
from turncheck.worker.retention.purge import Purger
from turncheck.worker.settings import Settings

log = logging.getLogger(__name__)


def guarded(name: str, job: Callable[[], Awaitable[object]]) -> Callable[[], Awaitable[None]]:
    """The job, with its failures logged: it runs again at its next time."""

    async def run() -> None:
        try:
            await job()
        except StoreUnavailable as exc:
            log.warning("%s skipped: database unavailable error=%s", name, exc)
        except Exception:
            log.exception("%s failed", name)

    return run


def worker_scheduler(settings: Settings, purger: Purger, clock: Clock) -> AsyncIOScheduler:
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
    return scheduler
