"""When alerts run inside ``turncheck run``: jobs on the worker's APScheduler.

Evaluation every ``TURNCHECK_ALERT_INTERVAL_S`` (then whatever is due is sent), pending
sends as often as a retry may come due, and the digest at ``TURNCHECK_ALERT_DIGEST_HOUR``
in ``TURNCHECK_ALERT_TIMEZONE``. A job that
fails is logged and runs again at its next time; nothing here waits on consuming, and
consuming never waits on it.
"""

from __future__ import annotations

import logging
from datetime import datetime
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from turncheck.alerts.alerter import Alerter
from turncheck.alerts.setup import configured_channels, slack_channel
from turncheck.worker.errors import DeliveryFailed
from turncheck.worker.runtime.scheduler import guarded
from turncheck.worker.settings import Settings

log = logging.getLogger(__name__)


async def probe_slack(settings: Settings) -> None:
    """Say at start whether Slack takes the token (``auth.test``), so a bad one shows
    before the first alert; it never stops the worker."""
    try:
        log.info("alerts slack reachable: %s", await slack_channel(settings).check())
    except DeliveryFailed as exc:
        log.warning("alerts slack not reachable reason=%s; alerts wait and retry", exc.reason)


def add_alert_jobs(scheduler: AsyncIOScheduler, alerter: Alerter, settings: Settings) -> None:
    zone = ZoneInfo(settings.alert_timezone)
    interval_s = settings.alert_interval_s
    deliver_every_s = min(settings.alert_interval_s, settings.alert_retry_first_s)
    digest_hour = settings.alert_digest_hour
    common = {"max_instances": 1, "coalesce": True}
    scheduler.add_job(
        guarded("alerts evaluation", alerter.scheduled_round),
        IntervalTrigger(seconds=interval_s, timezone=zone),
        next_run_time=datetime.now(zone),
        id="alerts-evaluate",
        **common,
    )
    scheduler.add_job(
        guarded("alerts delivery", alerter.deliver),
        IntervalTrigger(seconds=deliver_every_s, timezone=zone),
        id="alerts-deliver",
        **common,
    )
    if "slack" in configured_channels(settings):
        scheduler.add_job(probe_slack, args=[settings], id="alerts-probe-slack")
    if digest_hour is not None:
        scheduler.add_job(
            guarded("alerts digest", alerter.digest_round),
            CronTrigger(hour=digest_hour, timezone=zone),
            id="alerts-digest",
            misfire_grace_time=3600,
            **common,
        )
