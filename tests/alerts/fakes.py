"""Fakes for the alerter: a clock people move, senders that record or fail, stored results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from tests.factories import make_turn
from turncheck.alerts.alerter import Alerter, Watched
from turncheck.alerts.delivery import Sender, Timing
from turncheck.alerts.notice import Links, Notice
from turncheck.alerts.policy import AlertPolicy
from turncheck.worker.checks import CheckId, CheckResult, Verdict
from turncheck.worker.checks.result import Outcome
from turncheck.worker.errors import DeliveryFailed
from turncheck.worker.pipeline.records import TurnRef, TurnResults
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertStore

CHECK = "no-card-numbers"
AGENT = "support-bot"
START = datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
POLICY = AlertPolicy(latest=100, min_pass_rate=0.9, min_results=20, channels=("slack", "mail"))


@dataclass
class Clock:
    now: datetime = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Recorder:
    """A sender that keeps what it is given, or fails its next ``failures`` sends."""

    channel: str
    sent: list[Notice] = field(default_factory=list)
    failures: int = 0
    error: Exception | None = None

    async def __call__(self, notice: Notice) -> None:
        if self.failures:
            self.failures -= 1
            raise self.error or DeliveryFailed(self.channel, "http 500")
        self.sent.append(notice)


def links(check: str, agent_id: str, since: datetime | None) -> Links:
    return Links(command=f"turncheck failures {check} --agent {agent_id} --since {since}")


def alerter(
    store: Store,
    clock: Clock,
    senders: Mapping[str, Sender],
    *,
    watched: Sequence[Watched] = (Watched(CHECK, AGENT, POLICY),),
    zone: str = "UTC",
    owner: str = "replica-1",
    digest_hour: int | None = None,
    turn_url: str | None = None,
) -> Alerter:
    return Alerter(
        AlertStore(store.database),
        watched,
        dict(senders),
        clock=clock,
        zone=ZoneInfo(zone),
        links=links,
        owner=owner,
        timing=Timing(interval_s=300, retry_first_s=60, retry_max_s=600, lease_s=120),
        digest_channels=("slack", "mail"),
        digest_hour=digest_hour,
        turn_url=turn_url,
    )


async def store_results(
    store: Store,
    verdicts: Sequence[Verdict],
    *,
    at: datetime,
    check: str = CHECK,
    agent: str = AGENT,
    prefix: str = "t",
    reason: str | None = None,
    version: str = "v1",
    thread_id: str | None = "th-1",
) -> None:
    """One result per verdict, each for its own turn, stored at ``at``, of the check's
    ``version``."""
    check_id = CheckId(check, version, "pattern", "output", "block")
    batch = []
    for n, verdict in enumerate(verdicts):
        turn = make_turn(
            f"{prefix}-{n}",
            agent={"id": agent, "version": 7},
            created_at=at.isoformat().replace("+00:00", "Z"),
            thread_id=thread_id,
        )
        if verdict is Verdict.ERRORED:
            result = CheckResult.of(check_id, Outcome.errored(reason or "The pattern timed out."))
        else:
            result = CheckResult(check_id, verdict)
        batch.append(TurnResults(TurnRef.of(turn), [result], timedelta(days=30)))
    await store.writer.save(batch, at)


def verdicts(passed: int, failed: int = 0, errored: int = 0) -> list[Verdict]:
    return [Verdict.PASSED] * passed + [Verdict.FAILED] * failed + [Verdict.ERRORED] * errored
