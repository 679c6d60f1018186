"""Each check's rollout, as the worker that last started with it said: written once at
start (``record``), read by the API and the commands to mark shadow checks (``read``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from turncheck.schemas.checkbase import Rollout
from turncheck.worker.store.database import Database
from turncheck.worker.store.tables import check_rollouts

LIVE: Rollout = "live"
SHADOW: Rollout = "shadow"

Dated = tuple[Rollout, datetime]
"""A check's rollout and since when it has been so."""


@dataclass(frozen=True, slots=True)
class KnownRollouts:
    """What the table says; a check it does not name is live (it ran before rollouts
    were recorded, or no worker started with it)."""

    shadow: frozenset[tuple[str, str]] = field(default_factory=frozenset)
    """(agent, check name) of the shadow checks."""

    def of(self, agent_id: str, check: str) -> Rollout:
        return SHADOW if (agent_id, check) in self.shadow else LIVE


class Rollouts:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def record(self, rollouts: Mapping[tuple[str, str], Rollout], now: datetime) -> None:
        """Upsert each (agent, check name) → rollout; idempotent. ``updated_at`` moves
        only when the rollout changes, so it says since when a check is shadow or live.
        Checks left out keep their row: their stored results keep their marking."""
        if not rollouts:
            return
        statement = self.database.insert(check_rollouts)
        statement = statement.on_conflict_do_update(
            index_elements=["agent_id", "check_name"],
            set_={
                "rollout": statement.excluded.rollout,
                "updated_at": statement.excluded.updated_at,
            },
            where=check_rollouts.c.rollout != statement.excluded.rollout,
        )
        rows = [
            {"agent_id": agent, "check_name": check, "rollout": rollout, "updated_at": now}
            for (agent, check), rollout in sorted(rollouts.items())
        ]
        async with self.database.transaction() as conn:
            await conn.execute(statement, rows)

    async def read(self) -> KnownRollouts:
        query = select(check_rollouts.c.agent_id, check_rollouts.c.check_name).where(
            check_rollouts.c.rollout == SHADOW
        )
        async with self.database.transaction() as conn:
            found = (await conn.execute(query)).all()
        return KnownRollouts(frozenset((agent, check) for agent, check in found))

    async def dates(self) -> dict[tuple[str, str], Dated]:
        """Every recorded check: (agent, check name) → (its rollout, since when)."""
        async with self.database.transaction() as conn:
            found = (await conn.execute(select(check_rollouts))).mappings().all()
        return {(r["agent_id"], r["check_name"]): (r["rollout"], r["updated_at"]) for r in found}
