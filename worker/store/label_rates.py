"""Labels in pass rates: a check's precision, and its rates with false alarms left out.

The rollups count raw verdicts and no label changes them. Beside them, the labels of the
failed results whose turns were created in the hours the rollups count for a window
(by the turn's ``created_at``, widened to whole hours as ``Queries.pass_rates`` does)
are counted per check and agent, and per bucket; ``with_labels`` puts both together.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from sqlalchemy import select

from turncheck.worker.store.database import Database
from turncheck.worker.store.rates import Split
from turncheck.worker.store.rows import ROLLUP_BUCKET, bucket_of
from turncheck.worker.store.tables import check_results, labels
from turncheck.worker.store.views import PassRate


@dataclass(frozen=True, slots=True)
class LabelCounts:
    """Labelled failures of one check and agent (and bucket) in a window."""

    false_alarms: int = 0
    confirmed: int = 0


CountKey = tuple[datetime | None, str, str, str | None, str | None]
"""(bucket start or None for the whole window, check, agent, check version and agent
version when rates are split by them, else None)."""


async def label_counts(
    database: Database,
    *,
    since: datetime | None,
    until: datetime | None,
    check: str | None = None,
    agent: str | None = None,
    agent_version: str | None = None,
    bucket: timedelta | None = None,
    split: Split = Split.NONE,
) -> dict[CountKey, LabelCounts]:
    """Labelled failures per check and agent (and per hour or UTC day with ``bucket``)
    of the turns whose ``created_at`` falls in the hours the rollups count for
    [since, until): the same hours ``Queries.pass_rates`` sums."""
    r, lb = check_results.c, labels.c
    query = select(
        r.turn_created_at, lb.check_name, lb.agent_id, lb.label, r.check_version, r.agent_version
    )
    query = query.select_from(labels).join(
        check_results,
        (r.turn_id == lb.turn_id)
        & (r.check_name == lb.check_name)
        & (r.check_version == lb.check_version),
    )
    if since is not None:
        query = query.where(r.turn_created_at >= bucket_of(since))
    end = _hours_until(until)
    if end is not None:
        query = query.where(r.turn_created_at < end)
    if check is not None:
        query = query.where(lb.check_name == check)
    if agent is not None:
        query = query.where(lb.agent_id == agent)
    if agent_version is not None:
        query = query.where(r.agent_version == agent_version)
    async with database.transaction() as conn:
        rows = (await conn.execute(query)).all()
    sums: dict[CountKey, list[int]] = {}
    for created_at, name, agent_id, label, check_version, version in rows:
        start: datetime | None = None
        if bucket is not None:
            start = bucket_of(created_at)
            if bucket != ROLLUP_BUCKET:
                start = start.replace(hour=0)
        key = (
            start,
            name,
            agent_id,
            check_version if split.by_check_version else None,
            version if split.by_agent_version else None,
        )
        counts = sums.setdefault(key, [0, 0])
        counts[0 if label == "false_alarm" else 1] += 1
    return {key: LabelCounts(*counts) for key, counts in sums.items()}


def with_labels(
    rate: PassRate, counts: LabelCounts | None, *, exclude_false_alarms: bool
) -> PassRate:
    """The rate with its labelled failures; with ``exclude_false_alarms``, each failure
    labelled a false alarm counts as passed instead: the turn still counts once."""
    if counts is None:
        return rate
    # A label outlives no result and marks one that was counted failed, so the failures
    # always hold it; min() keeps a rate sane should the rollups have been edited by hand.
    false_alarms = min(counts.false_alarms, rate.failed)
    moved = false_alarms if exclude_false_alarms else 0
    return replace(
        rate,
        passed=rate.passed + moved,
        failed=rate.failed - moved,
        false_alarms=false_alarms,
        confirmed=counts.confirmed,
    )


def labelled_rates(
    rates: Iterable[PassRate], counts: dict[CountKey, LabelCounts], *, exclude_false_alarms: bool
) -> list[PassRate]:
    """``with_labels`` for rates over the whole window."""
    return [
        with_labels(
            rate,
            counts.get(_key(None, rate)),
            exclude_false_alarms=exclude_false_alarms,
        )
        for rate in rates
    ]


def labelled_buckets(
    rates: Iterable[tuple[datetime, PassRate]],
    counts: dict[CountKey, LabelCounts],
    *,
    exclude_false_alarms: bool,
) -> list[tuple[datetime, PassRate]]:
    """``with_labels`` for rates per bucket."""
    return [
        (
            start,
            with_labels(
                rate,
                counts.get(_key(start, rate)),
                exclude_false_alarms=exclude_false_alarms,
            ),
        )
        for start, rate in rates
    ]


def _key(start: datetime | None, rate: PassRate) -> CountKey:
    return (start, rate.check, rate.agent_id, rate.check_version, rate.agent_version)


def _hours_until(until: datetime | None) -> datetime | None:
    """The end of the last hour the rollups count for a window ending at ``until``: an
    hour counts whole when it starts before ``until``. None: no bound."""
    if until is None:
        return None
    start = bucket_of(until)
    if start == until:
        return until
    try:
        return start + ROLLUP_BUCKET
    except OverflowError:
        return None
