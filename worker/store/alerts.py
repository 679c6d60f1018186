"""The alerts' rows: the alerts raised and their deliveries.

``raise_alert`` is the deduplication: the row's unique key (kind, check, agent, day)
lets one writer in, so replicas evaluating at the same moment raise one alert. A
delivery is sent by whoever ``claim``s it; the claim is one conditional UPDATE, so
two senders never both hold it, and the claim is a lease, so a sender that dies
leaves it to another once the lease ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from sqlalchemy import ColumnElement, and_, or_, select, update

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import alert_deliveries, alerts

CHECK = "check"
DIGEST = "digest"


@dataclass(frozen=True, slots=True)
class Earlier:
    """The check's previous alert, and how often evaluations found it below the threshold
    again that day, when it could not alert a second time."""

    day: date
    suppressed: int


@dataclass(frozen=True, slots=True)
class AlertKey:
    """What makes an alert once a day: a digest has kind "digest" and empty names."""

    kind: str
    check: str
    agent_id: str
    day: date

    def matches(self) -> ColumnElement[bool]:
        a = alerts.c
        return and_(
            a.kind == self.kind,
            a.check_name == self.check,
            a.agent_id == self.agent_id,
            a.day == self.day,
        )


@dataclass(frozen=True, slots=True)
class Due:
    """A delivery to attempt: its alert's snapshot and how many tries it has had."""

    alert_id: int
    channel: str
    kind: str
    snapshot: str
    attempts: int
    give_up_at: datetime


@dataclass(frozen=True, slots=True)
class HistoryRow:
    day: date
    kind: str
    check: str
    agent_id: str
    channel: str
    status: str
    attempts: int
    last_error: str | None
    sent_at: datetime | None
    suppressed: int

    def as_dict(self) -> dict[str, object]:
        return {
            "day": self.day.isoformat(),
            "kind": self.kind,
            "check": self.check,
            "agent_id": self.agent_id,
            "channel": self.channel,
            "status": self.status,
            "attempts": self.attempts,
            "last_error": self.last_error,
            "sent_at": self.sent_at.isoformat() if self.sent_at else None,
            "suppressed": self.suppressed,
        }


class AlertStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def raise_alert(
        self,
        key: AlertKey,
        *,
        snapshot: str,
        channels: Sequence[str],
        now: datetime,
        give_up_at: datetime,
    ) -> bool:
        """Write the day's alert and a pending delivery per channel; False when the day
        already has it (this or another replica raised it first), and nothing changes."""
        row = {
            "kind": key.kind,
            "check_name": key.check,
            "agent_id": key.agent_id,
            "day": key.day,
            "created_at": now,
            "snapshot": snapshot,
        }
        statement = (
            self.database.insert(alerts)
            .values(row)
            .on_conflict_do_nothing(index_elements=["kind", "check_name", "agent_id", "day"])
            .returning(alerts.c.id)
        )
        async with self.database.transaction() as conn:
            alert_id = (await conn.execute(statement)).scalar()
            if alert_id is None:
                return False
            deliveries = [
                {
                    "alert_id": alert_id,
                    "channel": channel,
                    "status": "pending",
                    "attempts": 0,
                    "give_up_at": give_up_at,
                }
                for channel in channels
            ]
            if deliveries:
                await conn.execute(alert_deliveries.insert(), deliveries)
        return True

    async def exists(self, key: AlertKey) -> bool:
        query = select(alerts.c.id).where(key.matches())
        async with self.database.transaction() as conn:
            return (await conn.execute(query)).first() is not None

    async def count_suppressed(self, key: AlertKey, slot: int) -> bool:
        """Count one more crossing of the day's alert, once per evaluation ``slot`` however
        many replicas evaluate in it; True when this call counted it."""
        a = alerts.c
        statement = (
            update(alerts)
            .where(key.matches())
            .where(or_(a.suppressed_slot.is_(None), a.suppressed_slot < slot))
            .values(suppressed=a.suppressed + 1, suppressed_slot=slot)
        )
        async with self.database.transaction() as conn:
            return bool((await conn.execute(statement)).rowcount)

    async def earlier(
        self, check: str, agent_id: str, *, before: date, since: date | None = None
    ) -> Earlier | None:
        """The check's latest alert before ``before`` (and on or after ``since``)."""
        a = alerts.c
        query = (
            select(a.day, a.suppressed)
            .where(a.kind == CHECK, a.check_name == check, a.agent_id == agent_id, a.day < before)
            .order_by(a.day.desc())
            .limit(1)
        )
        if since is not None:
            query = query.where(a.day >= since)
        async with self.database.transaction() as conn:
            row = (await conn.execute(query)).first()
        return Earlier(row.day, int(row.suppressed)) if row else None

    async def due(self, now: datetime, limit: int = 100) -> list[Due]:
        """Pending deliveries whose time has come and that nobody holds."""
        d, a = alert_deliveries.c, alerts.c
        query = (
            select(d.alert_id, d.channel, a.kind, a.snapshot, d.attempts, d.give_up_at)
            .join(alerts, a.id == d.alert_id)
            .where(d.status == "pending")
            .where(or_(d.next_attempt_at.is_(None), d.next_attempt_at <= now))
            .where(or_(d.claimed_until.is_(None), d.claimed_until <= now))
            .order_by(d.alert_id, d.channel)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [Due(*row) for row in rows]

    async def claim(self, due: Due, *, owner: str, now: datetime, until: datetime) -> bool:
        """Reserve a delivery to ``owner`` until ``until``; False when another holds it."""
        d = alert_deliveries.c
        statement = (
            update(alert_deliveries)
            .where(d.alert_id == due.alert_id, d.channel == due.channel, d.status == "pending")
            .where(or_(d.claimed_until.is_(None), d.claimed_until <= now))
            .values(claimed_by=owner, claimed_until=until)
        )
        async with self.database.transaction() as conn:
            return bool((await conn.execute(statement)).rowcount)

    async def delivered(self, due: Due, now: datetime) -> None:
        await self._finish(due, status="sent", sent_at=now, attempts=due.attempts + 1)

    async def failed(self, due: Due, reason: str, retry_at: datetime | None) -> None:
        """A failed send: tried again at ``retry_at``, or, when None, failed for good."""
        await self._finish(
            due,
            status="pending" if retry_at is not None else "failed",
            next_attempt_at=retry_at,
            last_error=reason[:100],
            attempts=due.attempts + 1,
        )

    async def _finish(self, due: Due, **values: object) -> None:
        d = alert_deliveries.c
        statement = (
            update(alert_deliveries)
            .where(d.alert_id == due.alert_id, d.channel == due.channel)
            .values(claimed_by=None, claimed_until=None, **values)
        )
        async with self.database.transaction() as conn:
            await conn.execute(statement)

    async def history(self, since: date, check: str | None = None) -> list[HistoryRow]:
        d, a = alert_deliveries.c, alerts.c
        query = (
            select(
                a.day,
                a.kind,
                a.check_name.label("check"),
                a.agent_id,
                d.channel,
                d.status,
                d.attempts,
                d.last_error,
                d.sent_at,
                a.suppressed,
            )
            .join(alert_deliveries, d.alert_id == a.id)
            .where(a.day >= since)
            .order_by(a.day.desc(), a.kind, a.check_name, a.agent_id, d.channel)
        )
        if check is not None:
            query = query.where(a.check_name == check)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [HistoryRow(**row._asdict()) for row in rows]
