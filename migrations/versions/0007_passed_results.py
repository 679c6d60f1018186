"""Passed results that say nothing more move into one row per turn and write.

Upgrade: each write of a turn already stored (its results with one ``checked_at``)
becomes a ``passed_results`` row whose id is the write's first result id, so writes
keep the order they were stored in, holding the write's passed results that have no
reason, score, spans, usage or answers; those rows leave ``check_results``, and the
others point at the write (``write_id``) with their place in it (``position``).

Downgrade: the passed results go back to rows of their own, appended after the rows
already there (a turn's results come back complete, its passed ones listed last).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

import json
from collections.abc import Sequence
from itertools import groupby
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)
Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TURNS_PER_CHUNK = 500

TURN = ("turn_id", "thread_id", "person_id", "agent_id", "agent_version", "turn_created_at")
CHECK = ("check_name", "check_version", "check_kind", "stage", "mode")

results = sa.table(
    "check_results",
    sa.column("id", Id),
    *(sa.column(name, sa.String) for name in (*TURN[:-1], *CHECK, "verdict", "reason")),
    sa.column("turn_created_at", Time),
    sa.column("checked_at", Time),
    sa.column("expires_at", Time),
    sa.column("score", sa.Float),
    sa.column("spans", sa.JSON),
    sa.column("usage", sa.JSON),
    sa.column("answers", sa.JSON),
    sa.column("write_id", Id),
    sa.column("position", sa.Integer),
)
passed = sa.table(
    "passed_results",
    sa.column("id", Id),
    sa.column("part", sa.Integer),
    *(sa.column(name, sa.String) for name in TURN[:-1]),
    sa.column("turn_created_at", Time),
    sa.column("checked_at", Time),
    sa.column("expires_at", Time),
    sa.column("checks", sa.Text),
    sa.column("passed", sa.Integer),
)


def upgrade() -> None:
    op.create_table(
        "passed_results",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("turn_id", sa.String(200), nullable=False),
        sa.Column("part", sa.Integer, nullable=False),
        sa.Column("thread_id", sa.String(200), nullable=True),
        sa.Column("person_id", sa.String(200), nullable=True),
        sa.Column("agent_id", sa.String(200), nullable=False),
        sa.Column("agent_version", sa.String(64), nullable=False),
        sa.Column("turn_created_at", Time, nullable=False),
        sa.Column("checked_at", Time, nullable=False),
        sa.Column("expires_at", Time, nullable=False),
        sa.Column("checks", sa.Text, nullable=False),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.UniqueConstraint("turn_id", "part", name="uq_passed_results_turn_part"),
    )
    op.create_index("ix_passed_results_person_id", "passed_results", ["person_id"])
    op.create_index("ix_passed_results_expires_at", "passed_results", ["expires_at"])
    op.create_index("ix_passed_results_latest", "passed_results", ["agent_id", "checked_at"])
    with op.batch_alter_table("check_results") as table:
        table.add_column(sa.Column("write_id", Id, nullable=True))
        table.add_column(sa.Column("position", sa.Integer, nullable=True))
    bind = op.get_bind()
    last = ""
    while True:
        turn_ids = [
            turn_id
            for (turn_id,) in bind.execute(
                sa.select(results.c.turn_id)
                .where(results.c.turn_id > last)
                .distinct()
                .order_by(results.c.turn_id)
                .limit(TURNS_PER_CHUNK)
            )
        ]
        if not turn_ids:
            break
        _move_turns(bind, turn_ids)
        last = turn_ids[-1]
    with op.batch_alter_table("check_results") as table:
        table.alter_column("write_id", existing_type=Id, nullable=False)
        table.alter_column("position", existing_type=sa.Integer, nullable=False)
    if bind.dialect.name == "postgresql":
        # Ids were given explicitly: new writes must come after every one of them.
        bind.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('passed_results', 'id'), "
                "(SELECT COALESCE(max(id), 0) + 1 FROM passed_results), false)"
            )
        )


def _move_turns(bind: sa.Connection, turn_ids: Sequence[str]) -> None:
    rows = (
        bind.execute(
            sa.select(results)
            .where(results.c.turn_id.in_(turn_ids))
            .order_by(results.c.turn_id, results.c.id)
        )
        .mappings()
        .all()
    )
    writes: list[dict[str, Any]] = []
    placed: list[dict[str, Any]] = []
    moved: list[int] = []
    for _, of_turn in groupby(rows, key=lambda row: row["turn_id"]):
        by_write: dict[Any, list[Any]] = {}
        for row in of_turn:
            by_write.setdefault(row["checked_at"], []).append(row)
        for part, write in enumerate(by_write.values()):
            write_id = write[0]["id"]
            entries = []
            for position, row in enumerate(write):
                if _compact(row):
                    entries.append([*(row[name] for name in CHECK), position])
                    moved.append(row["id"])
                else:
                    placed.append({"row_id": row["id"], "w": write_id, "p": position})
            writes.append(
                {
                    **{name: write[0][name] for name in TURN},
                    "id": write_id,
                    "part": part,
                    "checked_at": write[0]["checked_at"],
                    "expires_at": write[0]["expires_at"],
                    "checks": json.dumps(entries, separators=(",", ":")),
                    "passed": len(entries),
                }
            )
    bind.execute(sa.insert(passed), writes)
    if placed:
        bind.execute(
            sa.update(results)
            .where(results.c.id == sa.bindparam("row_id"))
            .values(write_id=sa.bindparam("w"), position=sa.bindparam("p")),
            placed,
        )
    for start in range(0, len(moved), 1000):
        bind.execute(sa.delete(results).where(results.c.id.in_(moved[start : start + 1000])))


def _compact(row: Any) -> bool:
    return (
        row["verdict"] == "passed"
        and row["reason"] is None
        and row["score"] is None
        and not row["spans"]
        and row["usage"] is None
        and row["answers"] is None
    )


def downgrade() -> None:
    bind = op.get_bind()
    last = 0
    while True:
        writes = (
            bind.execute(
                sa.select(passed).where(passed.c.id > last).order_by(passed.c.id).limit(1000)
            )
            .mappings()
            .all()
        )
        if not writes:
            break
        rows = [
            {
                **{name: write[name] for name in TURN},
                **dict(zip(CHECK, entry[:5], strict=True)),
                "verdict": "passed",
                "spans": [],
                "checked_at": write["checked_at"],
                "expires_at": write["expires_at"],
                "write_id": write["id"],
                "position": entry[5],
            }
            for write in writes
            for entry in json.loads(write["checks"])
        ]
        if rows:
            bind.execute(sa.insert(results), rows)
        last = writes[-1]["id"]
    op.drop_table("passed_results")
    with op.batch_alter_table("check_results") as table:
        table.drop_column("position")
        table.drop_column("write_id")
