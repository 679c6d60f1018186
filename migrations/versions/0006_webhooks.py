"""Webhooks: an endpoint's cursor, lease and backoff; the writing transaction on outbox rows.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    # On PostgreSQL the id of the transaction writing the row (xid8, epoch included, so it
    # never wraps): webhooks read only below every transaction still open. SQLite: 0.
    postgres = op.get_bind().dialect.name == "postgresql"
    default = sa.text("(pg_current_xact_id()::text)::bigint" if postgres else "0")
    with op.batch_alter_table("outbox") as table:
        table.add_column(sa.Column("xid", sa.BigInteger(), nullable=False, server_default=default))
    op.create_index("ix_outbox_xid_id", "outbox", ["xid", "id"])
    op.create_table(
        "webhook_endpoints",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("config_digest", sa.String(16), nullable=False),
        sa.Column("cursor_xid", sa.BigInteger(), nullable=False),
        sa.Column("cursor_id", sa.BigInteger(), nullable=False),
        sa.Column("claimed_by", sa.String(100), nullable=True),
        sa.Column("claimed_until", Time, nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt_at", Time, nullable=True),
        sa.Column("last_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(100), nullable=True),
        sa.Column("last_delivered_at", Time, nullable=True),
        sa.Column("disabled_at", Time, nullable=True),
        sa.Column("disabled_reason", sa.String(100), nullable=True),
        sa.Column("updated_at", Time, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("webhook_endpoints")
    op.drop_index("ix_outbox_xid_id", "outbox")
    with op.batch_alter_table("outbox") as table:
        table.drop_column("xid")
