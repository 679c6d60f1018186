"""Raise and deliver alerts: read each watched check's latest results, raise the day's
alert when its pass rate is below the threshold, send what is due, and the digest.

"Latest" is by the turn's ``created_at``, as the daily trend beside it and the commands
it links to are: after a replay of old turns, the window is still today's turns.

Every step is safe to run from several replicas at once (see ``worker/store/alerts.py``), and
sending is ``alerts/delivery.py``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from turncheck.alerts.delivery import Delivery, RoundReport, Sender, Timing
from turncheck.alerts.notice import (
    CheckAlert,
    DayRate,
    Digest,
    DigestLine,
    FailingTurn,
    Links,
    to_json,
)
from turncheck.alerts.policy import AlertPolicy
from turncheck.alerts.state import crossed
from turncheck.worker.clock import Clock
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.judge.runner import NOT_JUDGED
from turncheck.worker.runtime.links import link_of
from turncheck.worker.store.alert_readings import Readings, WindowCounts
from turncheck.worker.store.alerts import CHECK, DIGEST, AlertKey, AlertStore
from turncheck.worker.store.queries import Queries

log = logging.getLogger(__name__)

LinkMaker = Callable[[str, str, datetime | None], Links]
"""Where a check's failing turns are found: (check, agent, since), ``since`` the oldest
turn's ``created_at`` in the window."""

TREND_DAYS = 14
FAILING_SHOWN = 5
"""Failing turns an alert links to, newest first, when turns have links."""


@dataclass(frozen=True, slots=True)
class Watched:
    """A check whose results are watched for its agent, under its policy."""

    check: str
    agent_id: str
    policy: AlertPolicy
    shadow: bool = False
    """A shadow check: previewed, never evaluated, raised, sent or put in a digest."""


class Alerter:
    def __init__(
        self,
        store: AlertStore,
        watched: Sequence[Watched],
        senders: Mapping[str, Sender],
        *,
        clock: Clock,
        zone: ZoneInfo,
        links: LinkMaker,
        owner: str,
        timing: Timing = Timing(),
        digest_channels: Sequence[str] = (),
        digest_hour: int | None = None,
        turn_url: str | None = None,
    ) -> None:
        self.store = store
        self.readings = Readings(store.database)
        self.queries = Queries(store.database)
        self.turn_url = turn_url
        self.watched = tuple(watched)
        self.alerting = tuple(w for w in self.watched if not w.shadow)
        """The watched checks that may alert: every one but the shadow checks."""
        self.clock = clock
        self.zone = zone
        self.links = links
        self.timing = timing
        self.digest_channels = tuple(digest_channels)
        self.delivery = Delivery(store, senders, clock=clock, owner=owner, timing=timing)
        self.digest_hour = digest_hour

    def today(self, now: datetime) -> date:
        return now.astimezone(self.zone).date()

    def start_of(self, day: date) -> datetime:
        return datetime.combine(day, time(), self.zone)

    async def run_once(self) -> RoundReport:
        """Evaluate every watched check, then send what is due."""
        report = RoundReport()
        await self.evaluate(report)
        await self.deliver(report)
        return report

    async def scheduled_round(self) -> RoundReport:
        """A round of the schedule: evaluate, raise the digest if its hour has passed and
        it has not gone (a worker down at the hour sends it when it is back), send."""
        report = await self.evaluate()
        if await self.digest_due():
            await self.digest()
        return await self.deliver(report)

    async def digest_round(self) -> RoundReport:
        await self.digest()
        return await self.deliver()

    async def digest_due(self) -> bool:
        if self.digest_hour is None or not self.digest_channels or not self.alerting:
            return False
        now = self.clock().astimezone(self.zone)
        if now.hour < self.digest_hour:
            return False
        covered = now.date() - timedelta(days=1)
        return not await self.store.exists(AlertKey(DIGEST, "", "", covered))

    async def evaluate(self, report: RoundReport | None = None) -> RoundReport:
        report = report if report is not None else RoundReport()
        now = self.clock()
        day = self.today(now)
        slot = int(now.timestamp() // self.timing.interval_s)
        for watched in self.alerting:
            counts = await self.counts(watched)
            if not crossed(counts, watched.policy):
                continue
            key = AlertKey(CHECK, watched.check, watched.agent_id, day)
            # Most crossings come after the day's alert: count them without building one.
            if not await self.store.exists(key):
                notice = await self.check_alert(watched, counts, now)
                if await self.store.raise_alert(
                    key,
                    snapshot=to_json(notice),
                    channels=watched.policy.channels,
                    now=now,
                    give_up_at=self.start_of(day + timedelta(days=1)),
                ):
                    log.info("alert raised check=%s agent=%s", watched.check, watched.agent_id)
                    report.raised.append(f"{watched.check}@{watched.agent_id}")
                    continue
            if await self.store.count_suppressed(key, slot):
                report.suppressed += 1
        return report

    def find(self, check: str, agent_id: str | None) -> Watched:
        """The watched check of that name (and agent, needed when several agents have it)."""
        found = [w for w in self.watched if w.check == check and agent_id in (None, w.agent_id)]
        if not found:
            raise ConfigurationError(
                f"no check {check!r}{f' for agent {agent_id!r}' if agent_id else ''} "
                "with alerts on in TURNCHECK_CHECKS"
            )
        if len(found) > 1:
            agents = ", ".join(w.agent_id for w in found)
            raise ConfigurationError(f"check {check!r} belongs to agents {agents}: pass --agent")
        return found[0]

    async def preview(self, watched: Watched) -> CheckAlert:
        """The alert as it would be raised now; its ``state`` says whether it would be
        (below threshold). Nothing is written."""
        return await self.check_alert(watched, await self.counts(watched), self.clock())

    async def counts(self, watched: Watched) -> WindowCounts:
        return await self.readings.latest_counts(
            watched.check, watched.agent_id, watched.policy.latest, NOT_JUDGED
        )

    async def check_alert(
        self, watched: Watched, counts: WindowCounts, now: datetime
    ) -> CheckAlert:
        day = self.today(now)
        return CheckAlert(
            check=watched.check,
            agent_id=watched.agent_id,
            day=day,
            raised_at=now,
            latest=watched.policy.latest,
            min_pass_rate=watched.policy.min_pass_rate,
            min_results=watched.policy.min_results,
            counts=counts,
            trend=await self.trend(watched, day),
            links=self.links(watched.check, watched.agent_id, counts.oldest_at),
            earlier=await self.store.earlier(watched.check, watched.agent_id, before=day),
            check_versions=await self.readings.check_versions(
                watched.check, watched.agent_id, counts.oldest_at
            ),
            failing=await self.failing(watched, counts),
        )

    async def failing(self, watched: Watched, counts: WindowCounts) -> tuple[FailingTurn, ...]:
        """The window's newest turns not passed, with their links; none when turns have
        no link (``TURNCHECK_TURN_URL`` unset), so the alert says what it always said."""
        if self.turn_url is None or counts.oldest_at is None:
            return ()
        found = await self.queries.not_passed(
            watched.check, agent=watched.agent_id, since=counts.oldest_at, limit=FAILING_SHOWN
        )
        return tuple(
            FailingTurn(r.turn_id, r.verdict, r.turn_created_at, url)
            for r in found
            if (url := link_of(self.turn_url, r)) is not None
        )

    async def trend(self, watched: Watched, last_day: date) -> tuple[DayRate, ...]:
        """Daily pass rates over ``TREND_DAYS`` days ending with ``last_day``, by the day
        of the turns' ``created_at``, as the window is. Days are the zone's; an hour of
        rollups counts toward the day it starts in."""
        first_day = last_day - timedelta(days=TREND_DAYS - 1)
        hours = await self.readings.hourly_counts(
            watched.check, watched.agent_id, self.start_of(first_day)
        )
        passed = dict.fromkeys((first_day + timedelta(days=n) for n in range(TREND_DAYS)), 0)
        totals = dict(passed)
        for start, hour_passed, hour_total in hours:
            day = start.astimezone(self.zone).date()
            if day in totals:
                passed[day] += hour_passed
                totals[day] += hour_total
        return tuple(DayRate(day, passed[day], totals[day]) for day in totals)

    async def digest(self) -> bool:
        """Raise the digest of yesterday, once a day however many replicas ask; False
        when it was already raised or nothing is watched."""
        if not self.alerting or not self.digest_channels:
            return False
        digest = await self.digest_notice()
        today = digest.day + timedelta(days=1)
        raised = await self.store.raise_alert(
            AlertKey(DIGEST, "", "", digest.day),
            snapshot=to_json(digest),
            channels=self.digest_channels,
            now=digest.raised_at,
            give_up_at=self.start_of(today + timedelta(days=1)),
        )
        if raised:
            log.info("digest raised day=%s checks=%d", digest.day.isoformat(), len(digest.lines))
        return raised

    async def digest_notice(self) -> Digest:
        """The digest of yesterday as it would be sent now; nothing is written."""
        now = self.clock()
        today = self.today(now)
        covered = today - timedelta(days=1)
        lines = []
        for watched in self.alerting:
            counts = await self.counts(watched)
            lines.append(
                DigestLine(
                    check=watched.check,
                    agent_id=watched.agent_id,
                    min_pass_rate=watched.policy.min_pass_rate,
                    min_results=watched.policy.min_results,
                    counts=counts,
                    trend=await self.trend(watched, today),
                    alerted=await self.store.earlier(
                        watched.check, watched.agent_id, before=today, since=covered
                    ),
                    links=self.links(watched.check, watched.agent_id, counts.oldest_at),
                )
            )
        return Digest(covered, now, tuple(lines))

    async def deliver(self, report: RoundReport | None = None) -> RoundReport:
        return await self.delivery.deliver(report)
