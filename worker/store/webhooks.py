"""Webhook endpoints' delivery state, and the outbox rows each has yet to receive.

An endpoint's ``cursor`` is the last outbox row it acknowledged, as ``(xid, id)``;
rows are read in that order. On PostgreSQL only rows written by transactions older
than every transaction still open are read (``xid`` below the snapshot's xmin): those
can no longer change, so no row ever commits behind a cursor. A long transaction on
the server delays webhooks; it loses none. On SQLite ``xid`` is 0 and ids are
committed in order.

A replica sends to an endpoint only while it holds its lease (``claim``: one
conditional ``UPDATE``, so two replicas never both win it); every write that follows
checks ``claimed_by``, so a replica whose lease ran out changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import BigInteger, ColumnElement, and_, literal_column, or_, select, tuple_, update

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import outbox, webhook_endpoints

w = webhook_endpoints.c
# Rows at or past the oldest transaction still open may yet be joined by rows below them.
HORIZON = literal_column("(pg_snapshot_xmin(pg_current_snapshot())::text)::bigint", BigInteger())


@dataclass(frozen=True, slots=True)
class Claimed:
    name: str
    cursor: tuple[int, int]
    attempts: int


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    """One outbox row to deliver; ``payload`` is the event's JSON, as sent to Kafka."""

    position: tuple[int, int]
    event_id: str
    payload: str


def settled(database: Database) -> list[ColumnElement[bool]]:
    """Conditions true for outbox rows no open transaction can still join."""
    return [outbox.c.xid < HORIZON] if database.dialect == "postgresql" else []


def undelivered_by_any() -> ColumnElement[bool]:
    """True for an outbox row some enabled endpoint has not yet acknowledged."""
    ahead = tuple_(outbox.c.xid, outbox.c.id) > tuple_(w.cursor_xid, w.cursor_id)
    return select(webhook_endpoints.c.name).where(w.disabled_at.is_(None), ahead).exists()


class WebhookTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    def _settled(self) -> list[ColumnElement[bool]]:
        return settled(self.database)

    async def claim(
        self, name: str, claimant: str, now: datetime, lease_until: datetime
    ) -> Claimed | None:
        """Take the endpoint until ``lease_until`` if it is enabled, unleased (or its lease
        ran out) and not backing off; None otherwise."""
        statement = (
            update(webhook_endpoints)
            .where(
                w.name == name,
                w.disabled_at.is_(None),
                or_(w.claimed_until.is_(None), w.claimed_until <= now),
                or_(w.next_attempt_at.is_(None), w.next_attempt_at <= now),
            )
            .values(claimed_by=claimant, claimed_until=lease_until)
            .returning(w.cursor_xid, w.cursor_id, w.attempts)
        )
        async with self.database.transaction() as conn:
            row = (await conn.execute(statement)).first()
        return None if row is None else Claimed(name, (row[0], row[1]), row[2])

    async def events_after(self, cursor: tuple[int, int], limit: int) -> list[WebhookEvent]:
        """Up to ``limit`` settled outbox rows after ``cursor``, in delivery order."""
        query = (
            select(outbox.c.xid, outbox.c.id, outbox.c.event_id, outbox.c.payload)
            .where(tuple_(outbox.c.xid, outbox.c.id) > tuple_(*cursor), *self._settled())
            .order_by(outbox.c.xid, outbox.c.id)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [WebhookEvent((row[0], row[1]), row[2], row[3]) for row in rows]

    def _held(self, name: str, claimant: str) -> ColumnElement[bool]:
        return and_(w.name == name, w.claimed_by == claimant)

    async def advance(
        self, name: str, claimant: str, position: tuple[int, int], status: int, now: datetime
    ) -> bool:
        """Move the cursor to ``position`` after a 2xx; False when the lease was lost."""
        async with self.database.transaction() as conn:
            result = await conn.execute(
                update(webhook_endpoints)
                .where(self._held(name, claimant))
                .values(
                    cursor_xid=position[0],
                    cursor_id=position[1],
                    attempts=0,
                    next_attempt_at=None,
                    last_status=status,
                    last_error=None,
                    last_delivered_at=now,
                    updated_at=now,
                )
            )
        return bool(result.rowcount)

    async def fail(
        self,
        name: str,
        claimant: str,
        *,
        status: int | None,
        error: str,
        retry_at: datetime,
        now: datetime,
    ) -> None:
        """Count a failed attempt, back off until ``retry_at`` and give up the lease.
        ``error`` is a few safe words: a status, a kind of address, an error type."""
        async with self.database.transaction() as conn:
            await conn.execute(
                update(webhook_endpoints)
                .where(self._held(name, claimant))
                .values(
                    attempts=w.attempts + 1,
                    next_attempt_at=retry_at,
                    last_status=status,
                    last_error=error[:100],
                    claimed_by=None,
                    claimed_until=None,
                    updated_at=now,
                )
            )

    async def disable(
        self, name: str, claimant: str, *, status: int, reason: str, now: datetime
    ) -> None:
        """Stop sending to the endpoint until its configuration changes or ``enable``."""
        async with self.database.transaction() as conn:
            await conn.execute(
                update(webhook_endpoints)
                .where(self._held(name, claimant))
                .values(
                    disabled_at=now,
                    disabled_reason=reason[:100],
                    last_status=status,
                    claimed_by=None,
                    claimed_until=None,
                    updated_at=now,
                )
            )

    async def release(self, name: str, claimant: str) -> None:
        async with self.database.transaction() as conn:
            await conn.execute(
                update(webhook_endpoints)
                .where(self._held(name, claimant))
                .values(claimed_by=None, claimed_until=None)
            )
