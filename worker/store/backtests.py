"""The ``backtests`` table: backtests started over the API, their progress and report.

The process that accepts a backtest writes its row and runs it (``claimed_by``, a name
of its own for each process), renewing a lease (``claimed_until``) while the row is
queued or running. Every write of that process is guarded by its name and by the row
still being active, so a row another replica marked interrupted stays failed. Any
replica reads every row. Nothing here holds text of a turn or of the draft: the
options keep the draft's digest and its checks' names, the report names checks,
reasons, turn ids and the thread ids of its example turns.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, select, update

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import backtests

BacktestStatus = Literal["queued", "running", "done", "failed"]
ACTIVE = ("queued", "running")
INTERRUPTED = "interrupted: the process running it stopped"
"""The error of a backtest left queued or running by a process that stopped."""

b = backtests.c


@dataclass(frozen=True, slots=True)
class BacktestRow:
    id: str
    status: BacktestStatus
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    options: Mapping[str, Any]
    estimate: Mapping[str, Any] | None
    progress: Mapping[str, Any] | None
    report: Mapping[str, Any] | None
    error: str | None


_COLUMNS = (
    b.id,
    b.status,
    b.created_at,
    b.started_at,
    b.finished_at,
    b.options,
    b.estimate,
    b.progress,
    b.report,
    b.error,
)


def _row(found: Any) -> BacktestRow:
    return BacktestRow(**{"report": None, **found._mapping})


class BacktestTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def add(
        self,
        backtest_id: str,
        options: Mapping[str, Any],
        *,
        owner: str,
        now: datetime,
        lease_until: datetime,
    ) -> None:
        """A new backtest, queued, held by ``owner`` until ``lease_until``."""
        async with self.database.transaction() as conn:
            await conn.execute(
                backtests.insert().values(
                    id=backtest_id,
                    status="queued",
                    created_at=now,
                    claimed_by=owner,
                    claimed_until=lease_until,
                    options=dict(options),
                )
            )

    async def start(self, backtest_id: str, *, owner: str, now: datetime) -> bool:
        """Queued → running; False when the row is no longer ``owner``'s queued one."""
        return await self._update(backtest_id, owner, ("queued",), status="running", started_at=now)

    async def record(
        self,
        backtest_id: str,
        *,
        owner: str,
        progress: Mapping[str, Any] | None = None,
        estimate: Mapping[str, Any] | None = None,
    ) -> bool:
        """Write the progress or the estimate of an active backtest."""
        values: dict[str, Any] = {}
        if progress is not None:
            values["progress"] = dict(progress)
        if estimate is not None:
            values["estimate"] = dict(estimate)
        return await self._update(backtest_id, owner, ACTIVE, **values)

    async def finish(
        self,
        backtest_id: str,
        *,
        owner: str,
        now: datetime,
        report: Mapping[str, Any] | None = None,
        error: str | None = None,
        progress: Mapping[str, Any] | None = None,
    ) -> bool:
        """Done with ``report``, or failed with ``error`` (a fixed reason, never a message
        that could quote a turn)."""
        values: dict[str, Any] = {"finished_at": now, "claimed_until": None}
        if error is None:
            values.update(status="done", report=dict(report or {}))
        else:
            values.update(status="failed", error=error[:200])
        if progress is not None:
            values["progress"] = dict(progress)
        return await self._update(backtest_id, owner, ACTIVE, **values)

    async def renew(self, *, owner: str, lease_until: datetime) -> int:
        """Extend the lease of every active backtest ``owner`` holds."""
        async with self.database.transaction() as conn:
            done = await conn.execute(
                update(backtests)
                .where(b.claimed_by == owner, b.status.in_(ACTIVE))
                .values(claimed_until=lease_until)
            )
        return done.rowcount or 0

    async def interrupt_stale(self, now: datetime) -> int:
        """Mark failed every backtest queued or running whose lease ended before ``now``:
        the process holding it stopped without finishing it."""
        async with self.database.transaction() as conn:
            done = await conn.execute(
                update(backtests)
                .where(b.status.in_(ACTIVE), b.claimed_until < now)
                .values(status="failed", error=INTERRUPTED, finished_at=now, claimed_until=None)
            )
        return done.rowcount or 0

    async def purge(self, finished_before: datetime) -> int:
        """Delete the backtests that finished before ``finished_before``."""
        async with self.database.transaction() as conn:
            done = await conn.execute(
                delete(backtests).where(b.status.not_in(ACTIVE), b.finished_at < finished_before)
            )
        return done.rowcount or 0

    async def get(self, backtest_id: str) -> BacktestRow | None:
        async with self.database.transaction() as conn:
            found = (await conn.execute(select(*_COLUMNS).where(b.id == backtest_id))).first()
        return _row(found) if found is not None else None

    async def recent(self, limit: int) -> list[BacktestRow]:
        """The newest backtests first, without their reports (a report may be large)."""
        listed = [column for column in _COLUMNS if column is not b.report]
        query = select(*listed).order_by(b.created_at.desc(), b.id.desc()).limit(limit)
        async with self.database.transaction() as conn:
            return [_row(found) for found in await conn.execute(query)]

    async def _update(
        self, backtest_id: str, owner: str, statuses: tuple[str, ...], **values: Any
    ) -> bool:
        async with self.database.transaction() as conn:
            done = await conn.execute(
                update(backtests)
                .where(b.id == backtest_id, b.claimed_by == owner, b.status.in_(statuses))
                .values(**values)
            )
        return bool(done.rowcount)
