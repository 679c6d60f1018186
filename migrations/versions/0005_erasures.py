"""The erasure ledger: keyed hashes of erased persons, never their ids.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "erasures",
        sa.Column("person_key", sa.String(64), primary_key=True),
        sa.Column("requested_at", Time, nullable=False),
        sa.Column("erased_at", Time, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("erasures")
