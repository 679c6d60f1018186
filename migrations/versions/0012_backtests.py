"""Backtests started over the API: their options, progress, estimate and report.

A row is written by the process that accepted the backtest and runs it; any API
replica reads it. The draft's text is not kept, only its digest and its checks' names
(``worker/store/backtests.py``). ``claimed_until`` is the running process's lease: a
row still queued or running past it was left by a process that stopped, and is marked
failed ("interrupted").

Revision ID: 0012
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "backtests",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", Time, nullable=False),
        sa.Column("started_at", Time, nullable=True),
        sa.Column("finished_at", Time, nullable=True),
        sa.Column("claimed_by", sa.String(100), nullable=False),
        sa.Column("claimed_until", Time, nullable=True),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("estimate", sa.JSON(), nullable=True),
        sa.Column("progress", sa.JSON(), nullable=True),
        sa.Column("report", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
    )
    op.create_index("ix_backtests_created_at", "backtests", ["created_at"])
    op.create_index("ix_backtests_status", "backtests", ["status"])


def downgrade() -> None:
    op.drop_table("backtests")
