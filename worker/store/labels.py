"""The statements of labels: a person's verdict on a stored failed result.

One label per (turn, check): setting one again replaces it. It is set on the newest
result of the check on the turn (the latest write), records that result's check version,
and copies the result's ``expires_at`` and ``person_id``, so the purge and erasure
delete it with its result. Only a failed result takes a label (``NotLabellable``).

What labels do to pass rates is in ``label_rates.py``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.schemas.label import LabelName
from turncheck.worker.errors import NoStoredResult, NotLabellable
from turncheck.worker.pipeline.records import ResultKey
from turncheck.worker.store.database import Database
from turncheck.worker.store.passed import expand
from turncheck.worker.store.tables import check_results, labels, passed_results
from turncheck.worker.store.views import StoredResult

CHUNK = 500
"""Ids per IN list: well under every driver's limit on bound parameters."""

LabelKey = tuple[str, str]
"""(turn_id, check name)."""


def key_of(item: StoredResult | StoredLabel) -> ResultKey:
    """Which result a label was set on, or is this result."""
    return (item.turn_id, item.check, item.check_version)


@dataclass(frozen=True, slots=True)
class StoredLabel:
    turn_id: str
    check: str
    check_version: str
    agent_id: str
    label: LabelName
    note: str | None
    labelled_at: datetime

    @classmethod
    def from_row(cls, row: Any) -> StoredLabel:
        return cls(
            turn_id=row["turn_id"],
            check=row["check_name"],
            check_version=row["check_version"],
            agent_id=row["agent_id"],
            label=cast(LabelName, row["label"]),
            note=row["note"],
            labelled_at=row["labelled_at"],
        )


class LabelTable:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def set(
        self, turn_id: str, check: str, label: LabelName, note: str | None, *, now: datetime
    ) -> StoredLabel:
        """Label the newest result of ``check`` on the turn, replacing any label it had.
        ``NoStoredResult`` when there is none, ``NotLabellable`` when it did not fail."""
        async with self.database.transaction() as conn:
            newest = await _newest_result(conn, turn_id, check)
            if newest is None:
                raise NoStoredResult(turn_id, check)
            if newest.verdict != "failed":
                raise NotLabellable(turn_id, check, newest.verdict)
            values = {
                "turn_id": turn_id,
                "check_name": check,
                "check_version": newest.check_version,
                "agent_id": newest.agent_id,
                "label": label,
                "note": note,
                "person_id": newest.person_id,
                "labelled_at": now,
                "expires_at": newest.expires_at,
            }
            statement = self.database.insert(labels).values(**values)
            await conn.execute(
                statement.on_conflict_do_update(
                    index_elements=["turn_id", "check_name"],
                    set_={k: v for k, v in values.items() if k not in ("turn_id", "check_name")},
                )
            )
        return StoredLabel.from_row(values)

    async def clear(self, turn_id: str, check: str) -> bool:
        """Remove the label of ``check`` on the turn; whether there was one.
        ``NoStoredResult`` when the turn has no result of the check at all."""
        lb = labels.c
        async with self.database.transaction() as conn:
            gone = await conn.execute(
                delete(labels).where(lb.turn_id == turn_id, lb.check_name == check)
            )
            if gone.rowcount:
                return True
            if await _newest_result(conn, turn_id, check) is None:
                raise NoStoredResult(turn_id, check)
        return False

    async def of_turn(self, turn_id: str) -> dict[ResultKey, StoredLabel]:
        """The turn's labels by ``key_of``: a result shows the label set on it alone."""
        query = select(labels).where(labels.c.turn_id == turn_id)
        async with self.database.transaction() as conn:
            found = [StoredLabel.from_row(row) for row in (await conn.execute(query)).mappings()]
        return {key_of(label): label for label in found}

    async def of_results(self, results: Sequence[StoredResult]) -> dict[ResultKey, StoredLabel]:
        """The label set on each of these results, for those that have one, by
        (turn_id, check, check_version): ``key_of(result)``."""
        keys = sorted({(r.turn_id, r.check) for r in results})
        return {key_of(label): label for label in await self._of_keys(keys)}

    async def labels_for_checks(self, names: Collection[str]) -> dict[LabelKey, LabelName]:
        """Every stored label of these checks: (turn_id, check) → label. What a backtest
        replays as its labelled turns when it is given no ``--labels FILE``."""
        query = select(labels.c.turn_id, labels.c.check_name, labels.c.label)
        query = query.where(labels.c.check_name.in_(sorted(set(names))))
        async with self.database.transaction() as conn:
            rows = (await conn.execute(query)).all()
        return {(turn_id, check): cast(LabelName, label) for turn_id, check, label in rows}

    async def export(
        self,
        *,
        check: str | None = None,
        agent: str | None = None,
        label: LabelName | None = None,
    ) -> list[StoredLabel]:
        """The labels, oldest label first (then turn and check, so the order is stable)."""
        lb = labels.c
        query = select(labels).order_by(lb.labelled_at, lb.turn_id, lb.check_name)
        if check is not None:
            query = query.where(lb.check_name == check)
        if agent is not None:
            query = query.where(lb.agent_id == agent)
        if label is not None:
            query = query.where(lb.label == label)
        async with self.database.transaction() as conn:
            return [StoredLabel.from_row(row) for row in (await conn.execute(query)).mappings()]

    async def _of_keys(self, keys: list[LabelKey]) -> list[StoredLabel]:
        lb = labels.c
        found: list[StoredLabel] = []
        async with self.database.transaction() as conn:
            by_check: dict[str, list[str]] = {}
            for turn_id, check in keys:
                by_check.setdefault(check, []).append(turn_id)
            for check, turn_ids in by_check.items():
                for start in range(0, len(turn_ids), CHUNK):
                    query = select(labels).where(
                        lb.check_name == check, lb.turn_id.in_(turn_ids[start : start + CHUNK])
                    )
                    found += [
                        StoredLabel.from_row(row) for row in (await conn.execute(query)).mappings()
                    ]
        return found


async def _newest_result(conn: AsyncConnection, turn_id: str, check: str) -> StoredResult | None:
    """The result of ``check`` on the turn of its latest write, in both shapes. Its full
    rows are locked (PostgreSQL) until the transaction ends, so an erasure that deletes
    them waits for the label, then deletes it too."""
    r = check_results.c
    full = (
        select(check_results).where(r.turn_id == turn_id, r.check_name == check).with_for_update()
    )
    found = [StoredResult.from_row(row) for row in (await conn.execute(full)).mappings()]
    # A turn has a few writes; ``expand`` keeps the entries of this check alone.
    writes = select(passed_results).where(passed_results.c.turn_id == turn_id)
    for row in (await conn.execute(writes)).mappings():
        found += expand(row, only=check)
    return max(found, key=lambda result: (result.write_id, result.position), default=None)
