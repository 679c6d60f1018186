"""Send the alerts and digests that are due, each by the one replica that claims it.

A channel that fails never raises out of here: the delivery stays pending, tried again
with backoff, until its day ends; then it is recorded as failed. Anything the sender
raises counts as a failed send, so a bug in one template never loses the alert.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta

from turncheck.alerts.notice import Notice, from_json
from turncheck.worker.clock import Clock
from turncheck.worker.errors import DeliveryFailed
from turncheck.worker.runtime import metrics
from turncheck.worker.settings import DEFAULTS, Settings
from turncheck.worker.store.alerts import AlertStore, Due

log = logging.getLogger(__name__)

Sender = Callable[[Notice], Awaitable[None]]
"""Renders a notice for its channel and sends it; raises ``DeliveryFailed``."""

DAY_ENDED = "the day ended before a send succeeded"


LEASE_MIN_S = 300.0
"""A delivery is held at least this long, and four times a send's timeout if longer."""


@dataclass(frozen=True, slots=True)
class Timing:
    interval_s: float = DEFAULTS.alert_interval_s
    """How often checks are evaluated: one crossing counted per interval."""
    retry_first_s: float = DEFAULTS.alert_retry_first_s
    retry_max_s: float = DEFAULTS.alert_retry_max_s
    lease_s: float = LEASE_MIN_S
    """How long a sender holds a delivery; more than a send's timeout."""

    @classmethod
    def of(cls, settings: Settings) -> Timing:
        return cls(
            interval_s=settings.alert_interval_s,
            retry_first_s=settings.alert_retry_first_s,
            retry_max_s=settings.alert_retry_max_s,
            lease_s=max(LEASE_MIN_S, settings.alert_send_timeout_s * 4),
        )

    def retry_after_s(self, attempts: int) -> float:
        return float(min(self.retry_max_s, self.retry_first_s * 2 ** min(max(attempts - 1, 0), 30)))


@dataclass(slots=True)
class RoundReport:
    raised: list[str] = field(default_factory=list)
    """``check@agent`` of the alerts this round raised."""
    suppressed: int = 0
    sent: int = 0
    failed: int = 0
    """Failed sends this round (tried again later, or given up when the day ended)."""


class Delivery:
    def __init__(
        self,
        store: AlertStore,
        senders: Mapping[str, Sender],
        *,
        clock: Clock,
        owner: str,
        timing: Timing,
    ) -> None:
        self.store = store
        self.senders = senders
        self.clock = clock
        self.owner = owner
        self.timing = timing

    async def deliver(self, report: RoundReport | None = None) -> RoundReport:
        """Send every delivery that is due and that this sender can claim."""
        report = report if report is not None else RoundReport()
        for due in await self.store.due(self.clock()):
            now = self.clock()
            lease = now + timedelta(seconds=self.timing.lease_s)
            if not await self.store.claim(due, owner=self.owner, now=now, until=lease):
                continue
            await self._send(due, report)
        return report

    async def _send(self, due: Due, report: RoundReport) -> None:
        now = self.clock()
        if now >= due.give_up_at:
            await self.store.failed(due, DAY_ENDED, None)
            report.failed += 1
            return
        sender = self.senders.get(due.channel)
        try:
            if sender is None:
                raise DeliveryFailed(due.channel, "channel not configured")
            await sender(from_json(due.kind, due.snapshot))
        except Exception as exc:
            # Anything else (a template that fails on this notice, say) is retried too:
            # the alert is kept, and its row says why it has not gone.
            reason = exc.reason if isinstance(exc, DeliveryFailed) else type(exc).__name__
            retry_at = now + timedelta(seconds=self.timing.retry_after_s(due.attempts + 1))
            final = retry_at >= due.give_up_at
            await self.store.failed(due, reason, None if final else retry_at)
            report.failed += 1
            metrics.alert_sent("failed")
            log.warning(
                "alert send failed kind=%s channel=%s attempts=%d reason=%s%s",
                due.kind,
                due.channel,
                due.attempts + 1,
                reason,
                " (given up: the day ends first)" if final else "",
            )
            return
        await self.store.delivered(due, self.clock())
        report.sent += 1
        metrics.alert_sent("sent")
        log.info("alert sent kind=%s channel=%s", due.kind, due.channel)
