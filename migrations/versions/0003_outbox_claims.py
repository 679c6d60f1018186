"""Outbox claims: a lease per row, backoff after a failed send, an index of unsent rows.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)
UNSENT = sa.text("sent_at IS NULL")


def upgrade() -> None:
    with op.batch_alter_table("outbox") as table:
        table.add_column(sa.Column("claimed_by", sa.String(100), nullable=True))
        table.add_column(sa.Column("claimed_until", Time, nullable=True))
        table.add_column(sa.Column("next_attempt_at", Time, nullable=True))
        table.add_column(sa.Column("last_error", sa.String(100), nullable=True))
    op.create_index(
        "ix_outbox_unsent", "outbox", ["id"], postgresql_where=UNSENT, sqlite_where=UNSENT
    )


def downgrade() -> None:
    op.drop_index("ix_outbox_unsent", "outbox")
    with op.batch_alter_table("outbox") as table:
        table.drop_column("last_error")
        table.drop_column("next_attempt_at")
        table.drop_column("claimed_until")
        table.drop_column("claimed_by")
