"""What configuration and operators do to webhook endpoints: record the configured ones,
enable one again, and read every endpoint's state. Delivery itself: ``webhooks.py``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select, tuple_, update

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import outbox, webhook_endpoints
from turncheck.worker.store.webhooks import settled, w

REMOVED = "removed from the configuration"
DISABLED_IN_CONFIG = "disabled in the configuration"


@dataclass(frozen=True, slots=True)
class Configured:
    name: str
    digest: str
    enabled: bool


@dataclass(frozen=True, slots=True)
class EndpointStatus:
    name: str
    enabled: bool
    disabled_reason: str | None
    disabled_at: datetime | None
    cursor_id: int
    backlog: int
    attempts: int
    last_status: int | None
    last_error: str | None
    last_delivered_at: datetime | None
    next_attempt_at: datetime | None
    claimed_until: datetime | None


class WebhookEndpoints:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def sync(self, endpoints: Sequence[Configured], now: datetime) -> None:
        """Record the configured endpoints. A new one starts after the newest outbox row
        (no history); one whose URL or ``enabled`` changed is enabled (or disabled) anew;
        one no longer configured here is disabled until a replica configures it again."""
        newest = select(outbox.c.xid, outbox.c.id).order_by(outbox.c.xid.desc(), outbox.c.id.desc())
        async with self.database.transaction() as conn:
            top = (await conn.execute(newest.where(*settled(self.database)).limit(1))).first()
            start = (top[0], top[1]) if top else (0, 0)
            known = {
                row.name: row
                for row in await conn.execute(
                    select(w.name, w.config_digest, w.disabled_reason).with_for_update()
                )
            }
            for e in endpoints:
                off = None if e.enabled else DISABLED_IN_CONFIG
                row = known.get(e.name)
                if row is None:
                    # Another replica starting now may record it first: then theirs stands.
                    await conn.execute(
                        self.database.insert(webhook_endpoints)
                        .on_conflict_do_nothing(index_elements=["name"])
                        .values(
                            name=e.name,
                            config_digest=e.digest,
                            cursor_xid=start[0],
                            cursor_id=start[1],
                            updated_at=now,
                            disabled_reason=off,
                            disabled_at=None if e.enabled else now,
                        )
                    )
                elif row.config_digest != e.digest or (
                    e.enabled and row.disabled_reason == REMOVED
                ):
                    await conn.execute(
                        update(webhook_endpoints)
                        .where(w.name == e.name)
                        .values(
                            config_digest=e.digest,
                            disabled_reason=off,
                            attempts=0,
                            disabled_at=None if e.enabled else now,
                            next_attempt_at=None,
                            updated_at=now,
                        )
                    )
            gone = set(known) - {e.name for e in endpoints}
            if gone:
                await conn.execute(
                    update(webhook_endpoints)
                    .where(w.name.in_(gone), w.disabled_at.is_(None))
                    .values(disabled_at=now, disabled_reason=REMOVED, updated_at=now)
                )

    async def enable(self, name: str, now: datetime) -> bool:
        """Enable a disabled endpoint at once, from its cursor; False: no such endpoint."""
        async with self.database.transaction() as conn:
            result = await conn.execute(
                update(webhook_endpoints)
                .where(w.name == name)
                .values(
                    disabled_at=None,
                    disabled_reason=None,
                    attempts=0,
                    next_attempt_at=None,
                    updated_at=now,
                )
            )
        return bool(result.rowcount)

    async def status(self) -> list[EndpointStatus]:
        """Every endpoint known to the database, by name, with its backlog."""
        backlog = (
            select(func.count())
            .select_from(outbox)
            .where(tuple_(outbox.c.xid, outbox.c.id) > tuple_(w.cursor_xid, w.cursor_id))
            .scalar_subquery()
        )
        query = select(webhook_endpoints, backlog.label("backlog")).order_by(w.name)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [
            EndpointStatus(
                r.name,
                r.disabled_at is None,
                r.disabled_reason,
                r.disabled_at,
                r.cursor_id,
                r.backlog,
                r.attempts,
                r.last_status,
                r.last_error,
                r.last_delivered_at,
                r.next_attempt_at,
                r.claimed_until,
            )
            for r in rows
        ]
