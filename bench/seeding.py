"""A large results table seeded in the database itself, as the store keeps it: a
``passed_results`` row per turn, full rows for the ~7% that did not pass, hourly
rollups; RESULTS results over 30 checks of one agent and 14 days before now. Shared by
the benches that read it (alerts.py, pages.py). PostgreSQL only (generate_series)."""

from __future__ import annotations

from sqlalchemy import text

from turncheck.worker.store import Database

CHECKS = 30
AGENT = "support-bot"

# Result n is check n % 30 of turn n / 30, stored with the turn's write: its failed and
# errored results as full rows, its passed ones in the write's passed_results row.
SERIES = """
SELECT n, n / :checks AS turn, n % :checks AS position,
    CASE WHEN n % 17 = 0 THEN 'failed' WHEN n % 101 = 0 THEN 'errored' ELSE 'passed' END
        AS verdict,
    now() - ((n / :checks) * :checks * interval '14 days' / :total) AS at
FROM generate_series(0, :total - 1) AS n
"""
SEED_PASSED = f"""
INSERT INTO passed_results (id, turn_id, part, agent_id, agent_version, turn_created_at,
    checked_at, expires_at, checks, passed)
SELECT turn + 1, 't-' || turn, 0, :agent, '7', min(at), min(at), min(at) + interval '30 days',
    '[' || coalesce(string_agg('["check-' || position || '","v1","pattern","output","block",'
        || position || ']', ',' ORDER BY n) FILTER (WHERE verdict = 'passed'), '') || ']',
    count(*) FILTER (WHERE verdict = 'passed')
FROM ({SERIES}) AS rows GROUP BY turn
"""
SEED_FULL = f"""
INSERT INTO check_results (turn_id, write_id, position, check_name, check_version,
    check_kind, stage, mode, verdict, reason, spans, agent_id, agent_version,
    turn_created_at, checked_at, expires_at)
SELECT 't-' || turn, turn + 1, position, 'check-' || position, 'v1', 'pattern', 'output',
    'block', verdict, NULL, '[]', :agent, '7', at, at, at + interval '30 days'
FROM ({SERIES}) AS rows WHERE verdict <> 'passed'
"""
SEED_ROLLUPS = f"""
INSERT INTO pass_rate_rollups (check_name, agent_id, agent_version, check_version,
    bucket_start, passed, failed, errored)
SELECT 'check-' || position, :agent, '7', 'v1', date_trunc('hour', at),
    count(*) FILTER (WHERE verdict = 'passed'), count(*) FILTER (WHERE verdict = 'failed'),
    count(*) FILTER (WHERE verdict = 'errored')
FROM ({SERIES}) AS rows GROUP BY 1, 2, 3, 4, 5
"""
# The same results a row each, as before migration 0007: the floor's table.
SEED_ROW_EACH = f"""
CREATE TABLE row_each (check_name text, agent_id text, verdict text, turn_created_at timestamptz);
INSERT INTO row_each SELECT 'check-' || position, :agent, verdict, at FROM ({SERIES}) AS rows;
CREATE INDEX ix_row_each_latest ON row_each (check_name, agent_id, turn_created_at)
"""


async def seed(database: Database, total: int, *, row_each: bool = False) -> None:
    """``total`` results as above (and the same a row each in ``row_each``, if asked)."""
    async with database.transaction() as conn:
        params = {"checks": CHECKS, "agent": AGENT, "total": total}
        seeds = (SEED_PASSED, SEED_FULL, SEED_ROLLUPS)
        if row_each:
            seeds += tuple(SEED_ROW_EACH.split(";"))
        for statement in seeds:
            await conn.execute(text(statement), params)
        await conn.execute(text("ANALYZE"))
