"""What a turn's writes hold, read by the writers of its next part, and the lock they
take turns on (why a lock, and why this one: ``turn_writes``)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.pipeline.records import ResultKey
from turncheck.worker.store.passed import decode
from turncheck.worker.store.tables import check_results, passed_results

CHUNK_IDS = 500
"""Turn ids per IN list: well under every driver's limit on bound parameters."""


async def lock_claims(conn: AsyncConnection, turn_ids: Sequence[str]) -> None:
    """PostgreSQL: hold these turns' part 0 until the transaction ends, in turn id order.
    A statement of its own: the next one reads what the lock's last holder committed."""
    p = passed_results.c
    for chunk in _chunks(sorted(set(turn_ids))):
        claims = (
            select(p.id)
            .where(p.turn_id.in_(chunk), p.part == 0)
            .order_by(p.turn_id)
            .with_for_update()
        )
        await conn.execute(claims)


async def stored_keys(
    conn: AsyncConnection, turn_ids: Sequence[str]
) -> tuple[set[ResultKey], dict[str, int]]:
    """The keys of these turns' stored results, in both shapes, and each turn's last part."""
    p, r = passed_results.c, check_results.c
    keys: set[ResultKey] = set()
    last_part: dict[str, int] = {}
    for chunk in _chunks(sorted(set(turn_ids))):
        parts = select(p.turn_id, p.part, p.checks).where(p.turn_id.in_(chunk))
        for turn_id, part, checks in await conn.execute(parts):
            last_part[turn_id] = max(part, last_part.get(turn_id, part))
            keys.update((turn_id, check.name, check.version) for check, _ in decode(checks))
        full = select(r.turn_id, r.check_name, r.check_version).where(r.turn_id.in_(chunk))
        keys.update((turn_id, name, version) for turn_id, name, version in await conn.execute(full))
    return keys, last_part


def _chunks(turn_ids: list[str]) -> list[list[str]]:
    return [turn_ids[start : start + CHUNK_IDS] for start in range(0, len(turn_ids), CHUNK_IDS)]
