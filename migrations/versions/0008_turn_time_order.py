"""A check's latest results are the newest turns', not the latest stored: the indexes that
read them newest first order by the turn's ``created_at``.

Every window, list and chart counts by the turn's time (``worker/store/latest.py``). The
two indexes that ordered by ``checked_at`` are replaced by indexes in the readers' order,
ties included (the write, then the position in it), so neither database sorts: a check's
full rows by agent, and an agent's writes. Nothing reads results by ``checked_at`` in
an agent's order any more, and an index no reader uses is only a cost on every write.

On PostgreSQL building an index holds writes to its table until it is built: run the
migration while the worker is stopped, or expect its writes to wait meanwhile.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_check_results_latest", "check_results")
    op.create_index(
        "ix_check_results_latest",
        "check_results",
        ["check_name", "agent_id", "turn_created_at", "write_id", "position"],
    )
    op.drop_index("ix_passed_results_latest", "passed_results")
    op.create_index(
        "ix_passed_results_latest", "passed_results", ["agent_id", "turn_created_at", "id"]
    )


def downgrade() -> None:
    op.drop_index("ix_passed_results_latest", "passed_results")
    op.create_index("ix_passed_results_latest", "passed_results", ["agent_id", "checked_at"])
    op.drop_index("ix_check_results_latest", "check_results")
    op.create_index(
        "ix_check_results_latest", "check_results", ["check_name", "agent_id", "checked_at"]
    )
