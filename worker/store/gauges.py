"""What the database says about the whole deployment, read when /metrics is scraped.

Every replica shares these tables, so the figures are the deployment's, not one
process's: scrape one replica for them (or drop the duplicates in the query).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import alert_deliveries, judge_pending, outbox, pass_rate_rollups

VERDICTS = ("passed", "failed", "errored")


@dataclass(frozen=True, slots=True)
class Gauges:
    outbox_backlog: int
    """Events written and not yet acknowledged by the broker."""
    judge_pending: int
    """Sampled judgements stored as pending: queued, in flight, or left by a stopped worker."""
    results: dict[tuple[str, str], int] = field(default_factory=dict)
    """(check, verdict) → results counted in the pass-rate rollups, all time."""
    deliveries: dict[tuple[str, str], int] = field(default_factory=dict)
    """(channel, status) → alert deliveries."""


async def read_gauges(database: Database) -> Gauges:
    """One read-only transaction; a few aggregate queries over small or indexed tables."""
    r, d = pass_rate_rollups.c, alert_deliveries.c
    backlog = select(func.count()).select_from(outbox).where(outbox.c.sent_at.is_(None))
    pending = select(func.count()).select_from(judge_pending)
    results = select(r.check_name, *(func.sum(r[v]).label(v) for v in VERDICTS)).group_by(
        r.check_name
    )
    deliveries = select(d.channel, d.status, func.count().label("n")).group_by(d.channel, d.status)
    async with database.transaction() as conn:
        outbox_backlog = int((await conn.execute(backlog)).scalar_one())
        judge_count = int((await conn.execute(pending)).scalar_one())
        by_check = (await conn.execute(results)).mappings().all()
        by_channel = (await conn.execute(deliveries)).all()
    return Gauges(
        outbox_backlog=outbox_backlog,
        judge_pending=judge_count,
        results={
            (row["check_name"], verdict): int(row[verdict] or 0)
            for row in by_check
            for verdict in VERDICTS
        },
        deliveries={(channel, status): int(n) for channel, status, n in by_channel},
    )
