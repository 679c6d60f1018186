"""Judged results: rubric answers, judge tokens in rollups, pending judgements.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("check_results") as table:
        table.add_column(sa.Column("answers", sa.JSON, nullable=True))
    with op.batch_alter_table("pass_rate_rollups") as table:
        table.add_column(
            sa.Column("judge_input_tokens", sa.BigInteger, nullable=False, server_default="0")
        )
        table.add_column(
            sa.Column("judge_output_tokens", sa.BigInteger, nullable=False, server_default="0")
        )
    op.create_table(
        "judge_pending",
        sa.Column("turn_id", sa.String(200), primary_key=True),
        sa.Column("check_name", sa.String(64), primary_key=True),
        sa.Column("check_version", sa.String(64), primary_key=True),
        sa.Column("check_kind", sa.String(32), nullable=False),
        sa.Column("stage", sa.String(8), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("thread_id", sa.String(200), nullable=True),
        sa.Column("person_id", sa.String(200), nullable=True),
        sa.Column("agent_id", sa.String(200), nullable=False),
        sa.Column("agent_version", sa.String(64), nullable=False),
        sa.Column("turn_created_at", Time, nullable=False),
        sa.Column("expires_at", Time, nullable=False),
        sa.Column("enqueued_at", Time, nullable=False),
        sa.Column("deadline_at", Time, nullable=False),
    )
    op.create_index("ix_judge_pending_deadline_at", "judge_pending", ["deadline_at"])


def downgrade() -> None:
    op.drop_table("judge_pending")
    with op.batch_alter_table("pass_rate_rollups") as table:
        table.drop_column("judge_output_tokens")
        table.drop_column("judge_input_tokens")
    with op.batch_alter_table("check_results") as table:
        table.drop_column("answers")
