"""Results, pass-rate rollups and the event outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "check_results",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("turn_id", sa.String(200), nullable=False),
        sa.Column("check_name", sa.String(64), nullable=False),
        sa.Column("check_version", sa.String(64), nullable=False),
        sa.Column("check_kind", sa.String(32), nullable=False),
        sa.Column("stage", sa.String(8), nullable=False),
        sa.Column("mode", sa.String(16), nullable=False),
        sa.Column("verdict", sa.String(8), nullable=False),
        sa.Column("score", sa.Float, nullable=True),
        sa.Column("reason", sa.Text, nullable=True),
        sa.Column("spans", sa.JSON, nullable=False),
        sa.Column("usage", sa.JSON, nullable=True),
        sa.Column("thread_id", sa.String(200), nullable=True),
        sa.Column("person_id", sa.String(200), nullable=True),
        sa.Column("agent_id", sa.String(200), nullable=False),
        sa.Column("agent_version", sa.String(64), nullable=False),
        sa.Column("turn_created_at", Time, nullable=False),
        sa.Column("checked_at", Time, nullable=False),
        sa.Column("expires_at", Time, nullable=False),
        sa.UniqueConstraint(
            "turn_id", "check_name", "check_version", name="uq_check_results_turn_check"
        ),
    )
    op.create_index("ix_check_results_person_id", "check_results", ["person_id"])
    op.create_index("ix_check_results_expires_at", "check_results", ["expires_at"])
    op.create_table(
        "pass_rate_rollups",
        sa.Column("check_name", sa.String(64), primary_key=True),
        sa.Column("agent_id", sa.String(200), primary_key=True),
        sa.Column("agent_version", sa.String(64), primary_key=True),
        sa.Column("bucket_start", Time, primary_key=True),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("errored", sa.Integer, nullable=False),
    )
    op.create_table(
        "outbox",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("event_id", sa.String(40), nullable=False, unique=True),
        sa.Column("topic", sa.String(200), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created_at", Time, nullable=False),
        sa.Column("sent_at", Time, nullable=True),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("ix_outbox_sent_at", "outbox", ["sent_at"])


def downgrade() -> None:
    op.drop_table("outbox")
    op.drop_table("pass_rate_rollups")
    op.drop_table("check_results")
