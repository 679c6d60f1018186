"""The outbox table: events written with their results, waiting to be sent.

Publishers share the table through leases. ``claim`` hands a publisher sendable
rows and reserves them to it until ``lease_until``; no other claimant's claim
returns them before then, whether the holder sends them, fails them or dies. A
row is sendable to a claimant when it is unsent, not backing off after a failed
send (``next_attempt_at`` null or past), and unreserved, its lease run out, or
reserved to that same claimant: a replica restarted under its stable name
(``runtime/claimant.py``) takes back at once what it held when it died. So one
claimant's name must be held by one publisher at a time.

On PostgreSQL a claim locks its rows with ``FOR UPDATE SKIP LOCKED``, so
publishers claiming at once take disjoint rows without waiting on each other.
SQLite has no row locks: there a claim is one ``UPDATE`` statement, which holds
the database's single write lock from its first read to its last write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import (
    ARRAY,
    BigInteger,
    ColumnElement,
    and_,
    any_,
    bindparam,
    delete,
    literal,
    or_,
    select,
    update,
)

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import UTCDateTime, outbox
from turncheck.worker.store.views import PendingEvent
from turncheck.worker.store.webhooks import undelivered_by_any

_CLAIMED = (outbox.c.id, outbox.c.topic, outbox.c.key, outbox.c.payload, outbox.c.attempts)


@dataclass(frozen=True, slots=True)
class FailedSend:
    """A send the broker refused: the row is tried again at ``retry_at``.

    ``error`` is the exception's type name, never its message (which may quote a payload).
    """

    id: int
    retry_at: datetime
    error: str


def _sendable(claimant: str, now: datetime) -> ColumnElement[bool]:
    c = outbox.c
    return and_(
        c.sent_at.is_(None),
        or_(c.claimed_until.is_(None), c.claimed_until <= now, c.claimed_by == claimant),
        or_(c.next_attempt_at.is_(None), c.next_attempt_at <= now),
    )


class OutboxTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    def _among(self, ids: Sequence[int]) -> ColumnElement[bool]:
        # On PostgreSQL one array parameter, not one parameter per id: the statement's
        # text stays the same for any number of ids, so asyncpg prepares it once.
        if self.database.dialect == "postgresql":
            return outbox.c.id == any_(literal(list(ids), ARRAY(BigInteger())))
        return outbox.c.id.in_(ids)

    async def pending_events(self, limit: int) -> list[PendingEvent]:
        """Unsent rows, oldest first, claimed or not: for looking, not for sending."""
        query = select(*_CLAIMED).where(outbox.c.sent_at.is_(None)).order_by(outbox.c.id)
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query.limit(limit))).all()
        return [PendingEvent(*row) for row in rows]

    async def claim(
        self, claimant: str, now: datetime, lease_until: datetime, limit: int
    ) -> list[PendingEvent]:
        """Reserve up to ``limit`` sendable rows, oldest first, to ``claimant`` until
        ``lease_until``, and return them; rows still reserved to ``claimant`` are among
        them, with a new lease. One short transaction; sending happens outside it."""
        sendable = _sendable(claimant, now)
        oldest = select(outbox.c.id).where(sendable).order_by(outbox.c.id).limit(limit)
        reserve = update(outbox).values(claimed_by=claimant, claimed_until=lease_until)
        async with self.database.transaction() as conn:
            if self.database.dialect == "postgresql":
                # Locked by a statement of its own, not in `UPDATE … WHERE id IN (SELECT …
                # SKIP LOCKED)`: a plan may scan such a subquery twice, skipping other rows.
                locked = await conn.execute(oldest.with_for_update(skip_locked=True))
                ids = list(locked.scalars())
                if not ids:
                    return []
                chosen = self._among(ids)
            else:
                chosen = outbox.c.id.in_(oldest)
            rows = (await conn.execute(reserve.where(chosen).returning(*_CLAIMED))).all()
        return sorted((PendingEvent(*row) for row in rows), key=lambda event: event.id)

    async def mark_sent(self, ids: Sequence[int], now: datetime) -> None:
        """Record that the broker acknowledged these rows. Idempotent."""
        if ids:
            async with self.database.transaction() as conn:
                await conn.execute(
                    update(outbox)
                    .where(self._among(ids), outbox.c.sent_at.is_(None))
                    .values(sent_at=now)
                )

    async def mark_failed(self, claimant: str, failures: Sequence[FailedSend]) -> None:
        """Count a failed attempt on each row and hold it back until its ``retry_at``.

        Only rows still reserved to ``claimant``: a row whose lease ran out belongs to
        whoever claimed it since, and its backoff is theirs to set.
        """
        if not failures:
            return
        statement = (
            update(outbox)
            .where(
                outbox.c.id == bindparam("row_id"),
                outbox.c.claimed_by == claimant,
                outbox.c.sent_at.is_(None),
            )
            .values(
                attempts=outbox.c.attempts + 1,
                next_attempt_at=bindparam("retry_at", type_=UTCDateTime),
                last_error=bindparam("error"),
                claimed_by=None,
                claimed_until=None,
            )
        )
        values = [
            {"row_id": f.id, "retry_at": f.retry_at, "error": f.error[:100]} for f in failures
        ]
        async with self.database.transaction() as conn:
            await conn.execute(statement, values)

    async def release(self, claimant: str, ids: Sequence[int]) -> None:
        """End ``claimant``'s lease on rows it will not send, so any publisher may send them now."""
        if ids:
            async with self.database.transaction() as conn:
                await conn.execute(
                    update(outbox)
                    .where(
                        self._among(ids),
                        outbox.c.claimed_by == claimant,
                        outbox.c.sent_at.is_(None),
                    )
                    .values(claimed_by=None, claimed_until=None)
                )

    async def purge_sent(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` rows sent before ``before`` that every enabled webhook
        endpoint has received; return how many went.

        Bounded so that one call is one short transaction; call again while it returns ``limit``.
        """
        oldest = (
            select(outbox.c.id)
            .where(outbox.c.sent_at < before, ~undelivered_by_any())
            .order_by(outbox.c.sent_at)
            .limit(limit)
        )
        async with self.database.transaction() as conn:
            result = await conn.execute(delete(outbox).where(outbox.c.id.in_(oldest)))
        return int(result.rowcount)
