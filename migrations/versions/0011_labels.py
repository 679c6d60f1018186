"""Labels: a person's verdict (false alarm or confirmed) on a stored failed result.

Revision ID: 0011
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "labels",
        sa.Column("turn_id", sa.String(200), primary_key=True),
        sa.Column("check_name", sa.String(64), primary_key=True),
        sa.Column("check_version", sa.String(64), nullable=False),
        sa.Column("agent_id", sa.String(200), nullable=False),
        sa.Column("label", sa.String(16), nullable=False),
        sa.Column("note", sa.Text, nullable=True),
        sa.Column("person_id", sa.String(200), nullable=True),
        sa.Column("labelled_at", Time, nullable=False),
        sa.Column("expires_at", Time, nullable=False),
    )
    op.create_index("ix_labels_check_name", "labels", ["check_name"])
    op.create_index("ix_labels_person_id", "labels", ["person_id"])
    op.create_index("ix_labels_expires_at", "labels", ["expires_at"])


def downgrade() -> None:
    op.drop_table("labels")
