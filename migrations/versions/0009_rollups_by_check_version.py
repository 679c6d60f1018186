"""Pass-rate rollups by check version: ``check_version`` joins their key.

A rate can then be split by check version and say when it mixes versions. The rows
counted before are kept under the check version ``unknown``: they cannot be rebuilt
from the stored results, which the purge and erasures delete while the counts stay
(a rollup outlives its results by design), so a rebuild would lose counts. Their
counts carry over unchanged; ``unknown`` says honestly that their version was not kept.
A downgrade adds the versions of a check, agent, agent version and hour back together.

The table is copied (renamed aside, created anew, filled, the old one dropped): the
primary key changes, which SQLite cannot alter in place. Rollups are a few rows per
check and hour, so the copy is short; the worker's writes wait for it on PostgreSQL.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

UNKNOWN_VERSION = "unknown"
"""The check version of the counts kept before rollups had one."""

Time = sa.DateTime(timezone=True)
ASIDE = "pass_rate_rollups_old"
COUNTS = "passed, failed, errored, judge_input_tokens, judge_output_tokens"


def _create(with_check_version: bool) -> None:
    key = [
        sa.Column("check_name", sa.String(64), primary_key=True),
        sa.Column("agent_id", sa.String(200), primary_key=True),
        sa.Column("agent_version", sa.String(64), primary_key=True),
    ]
    if with_check_version:
        key.append(sa.Column("check_version", sa.String(64), primary_key=True))
    op.create_table(
        "pass_rate_rollups",
        *key,
        sa.Column("bucket_start", Time, primary_key=True),
        sa.Column("passed", sa.Integer, nullable=False),
        sa.Column("failed", sa.Integer, nullable=False),
        sa.Column("errored", sa.Integer, nullable=False),
        sa.Column("judge_input_tokens", sa.BigInteger, nullable=False, server_default="0"),
        sa.Column("judge_output_tokens", sa.BigInteger, nullable=False, server_default="0"),
    )


def _set_aside() -> None:
    op.rename_table("pass_rate_rollups", ASIDE)
    if op.get_bind().dialect.name == "postgresql":
        # The key's name stays with the renamed table; the new table's key needs it.
        op.drop_constraint("pass_rate_rollups_pkey", ASIDE, type_="primary")


def upgrade() -> None:
    _set_aside()
    _create(with_check_version=True)
    op.execute(
        "INSERT INTO pass_rate_rollups (check_name, agent_id, agent_version, check_version, "
        f"bucket_start, {COUNTS}) SELECT check_name, agent_id, agent_version, "
        f"'{UNKNOWN_VERSION}', bucket_start, {COUNTS} FROM {ASIDE}"
    )
    op.drop_table(ASIDE)


def downgrade() -> None:
    _set_aside()
    _create(with_check_version=False)
    sums = ", ".join(f"SUM({name.strip()})" for name in COUNTS.split(","))
    op.execute(
        "INSERT INTO pass_rate_rollups (check_name, agent_id, agent_version, bucket_start, "
        f"{COUNTS}) SELECT check_name, agent_id, agent_version, bucket_start, {sums} "
        f"FROM {ASIDE} GROUP BY check_name, agent_id, agent_version, bucket_start"
    )
    op.drop_table(ASIDE)
