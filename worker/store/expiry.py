"""The statements of the retention purge: expired rows, a bounded chunk per
transaction, and the persons whose results were stored lately (for the erasure sweep)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, Table, delete, select, tuple_

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_results, judge_pending, labels, passed_results

EXPIRING: dict[str, tuple[Table, ColumnElement[int] | None]] = {
    "results": (check_results, None),
    "passed": (passed_results, passed_results.c.passed),
    "pending_judgements": (judge_pending, None),
    # A label carries its result's expires_at: both go in the same purge.
    "labels": (labels, None),
}
"""What expires, by name: its table, and what one row holds (None: one result; a write
of passed results holds ``passed`` of them)."""


class ExpiryTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def delete_expired(self, what: str, now: datetime, limit: int) -> tuple[int, int]:
        """Delete up to ``limit`` rows of ``what`` expired before ``now``, by primary key,
        in one transaction; the rows deleted and the results they held."""
        table, holds = EXPIRING[what]
        key = tuple_(*table.primary_key.columns)
        chunk = select(*table.primary_key.columns).where(table.c.expires_at < now)
        statement = delete(table).where(key.in_(chunk.limit(limit)))
        async with self.database.transaction() as conn:
            if holds is None:
                rows = int((await conn.execute(statement)).rowcount)
                return rows, rows
            counts = [n for (n,) in await conn.execute(statement.returning(holds))]
        return len(counts), sum(counts)

    async def persons_checked_since(self, since: datetime) -> set[str]:
        """The persons of results (both shapes) stored at or after ``since``."""
        persons: set[str] = set()
        async with self.database.transaction() as conn:
            for table in (check_results, passed_results):
                recent = select(table.c.person_id).where(
                    table.c.checked_at >= since, table.c.person_id.is_not(None)
                )
                persons |= {row[0] for row in await conn.execute(recent.distinct())}
        return persons
