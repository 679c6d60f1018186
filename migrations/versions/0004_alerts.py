"""Alerts: one row per check, agent and day; its deliveries per channel; an index for a
check's latest results.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)
Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_index(
        "ix_check_results_latest", "check_results", ["check_name", "agent_id", "checked_at"]
    )
    op.create_table(
        "alerts",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("check_name", sa.String(64), nullable=False),
        sa.Column("agent_id", sa.String(200), nullable=False),
        sa.Column("day", sa.Date, nullable=False),
        sa.Column("created_at", Time, nullable=False),
        sa.Column("snapshot", sa.Text, nullable=False),
        sa.Column("suppressed", sa.Integer, nullable=False, server_default="0"),
        sa.Column("suppressed_slot", sa.BigInteger, nullable=True),
        sa.UniqueConstraint("kind", "check_name", "agent_id", "day", name="uq_alerts_check_day"),
    )
    op.create_table(
        "alert_deliveries",
        sa.Column(
            "alert_id",
            Id,
            sa.ForeignKey("alerts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("channel", sa.String(8), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("next_attempt_at", Time, nullable=True),
        sa.Column("give_up_at", Time, nullable=False),
        sa.Column("claimed_by", sa.String(100), nullable=True),
        sa.Column("claimed_until", Time, nullable=True),
        sa.Column("last_error", sa.String(100), nullable=True),
        sa.Column("sent_at", Time, nullable=True),
    )
    op.create_index("ix_alert_deliveries_status", "alert_deliveries", ["status"])


def downgrade() -> None:
    op.drop_table("alert_deliveries")
    op.drop_table("alerts")
    op.drop_index("ix_check_results_latest", "check_results")
