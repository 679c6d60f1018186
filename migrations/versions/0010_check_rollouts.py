"""Each check's rollout (live or shadow), written by the worker when it starts, so the
API and the commands mark a shadow check's results, rates and failures without reading
the check files.

Revision ID: 0010
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "check_rollouts",
        sa.Column("agent_id", sa.String(200), primary_key=True),
        sa.Column("check_name", sa.String(64), primary_key=True),
        sa.Column("rollout", sa.String(8), nullable=False),
        sa.Column("updated_at", Time, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("check_rollouts")
