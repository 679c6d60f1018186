"""What alerts read of the stored results: a check's latest verdicts, and its hourly
counts for the trend. Both are by the turn's ``created_at``: the window and the chart
beside it count the same turns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from sqlalchemy import func, select

from turncheck.worker.store.database import Database
from turncheck.worker.store.latest import Order, passed_writes
from turncheck.worker.store.rows import bucket_of
from turncheck.worker.store.tables import check_results, pass_rate_rollups


class Standing(StrEnum):
    BELOW = "below"
    OK = "ok"
    TOO_FEW = "too_few"
    """Fewer results than ``min_results``: the rate says too little either way."""


@dataclass(frozen=True, slots=True)
class WindowCounts:
    """The verdicts of a check's latest results. ``not_judged`` are errored by the worker
    (a deploy, a full judge backlog), ``errored`` by the check; both count as not passed."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_judged: int = 0
    oldest_at: datetime | None = None
    """The ``created_at`` of the oldest turn among these results: where the failing turns
    begin, for ``turncheck failures --since`` and the API's ``since``."""

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.not_judged

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    def standing(self, min_pass_rate: float, min_results: int) -> Standing:
        """Too few results (fewer than ``min_results``, or none), else below the threshold
        when too few of them passed (errored and not judged count as not passed), else
        ok: the one rule of the alerts and of the pages that show where a check stands."""
        rate = self.pass_rate
        if rate is None or self.total < min_results:
            return Standing.TOO_FEW
        return Standing.BELOW if rate < min_pass_rate else Standing.OK


class Readings:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def latest_counts(
        self, check: str, agent_id: str, latest: int, not_judged: Sequence[str]
    ) -> WindowCounts:
        """Verdicts of the check's ``latest`` results, those of the newest turns by their
        ``created_at``, passed ones of both shapes included (``worker/store/latest.py``)."""
        r = check_results.c
        full = (
            select(r.verdict, r.reason, r.turn_created_at, r.write_id, r.position)
            .where(r.check_name == check, r.agent_id == agent_id)
            .order_by(r.turn_created_at.desc(), r.write_id.desc(), r.position.desc())
            .limit(latest)
        )
        window: list[tuple[Order, str]] = []
        async with self.database.transaction() as conn:
            for verdict, reason, created_at, write_id, position in await conn.execute(full):
                bucket = "not_judged" if verdict == "errored" and reason in not_judged else verdict
                window.append(((created_at, write_id, position), bucket))
            writes = await passed_writes(
                conn,
                check,
                agent_id,
                limit=latest,
                not_before=window[-1][0][0] if len(window) == latest else None,
                columns=(),
            )
            # A write holds one result of a check, and the check has no full row in it:
            # (turn_created_at, write) places the result among the full rows.
            window += [((row["turn_created_at"], row["id"], 0), "passed") for row in writes]
        window.sort(reverse=True)
        del window[latest:]
        counts = Counter(bucket for _, bucket in window)
        return WindowCounts(
            passed=counts["passed"],
            failed=counts["failed"],
            errored=counts["errored"],
            not_judged=counts["not_judged"],
            oldest_at=window[-1][0][0] if window else None,
        )

    async def hourly_counts(
        self, check: str, agent_id: str, since: datetime
    ) -> list[tuple[datetime, int, int]]:
        """(hour of the turns' ``created_at``, passed, total) from the rollups, every agent
        version together."""
        r = pass_rate_rollups.c
        total = func.sum(r.passed + r.failed + r.errored)
        query = (
            select(r.bucket_start, func.sum(r.passed), total)
            .where(r.check_name == check, r.agent_id == agent_id, r.bucket_start >= since)
            .group_by(r.bucket_start)
            .order_by(r.bucket_start)
        )
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return [(start, int(passed or 0), int(n or 0)) for start, passed, n in rows]

    async def check_versions(
        self, check: str, agent_id: str, since: datetime | None
    ) -> tuple[str, ...]:
        """The check versions counted in the rollups from the hour of ``since`` on, oldest
        first: what an alert's window mixes. By whole hours, as every rate is; an alert
        reads it once, when it is raised, so the window's own rows are not read again."""
        if since is None:
            return ()
        r = pass_rate_rollups.c
        first = func.min(r.bucket_start)
        query = (
            select(r.check_version, first)
            .where(
                r.check_name == check, r.agent_id == agent_id, r.bucket_start >= bucket_of(since)
            )
            .group_by(r.check_version)
            .order_by(first, r.check_version)
        )
        async with self.database.transaction() as conn:
            return tuple(version for version, _ in await conn.execute(query))
