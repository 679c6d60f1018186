"""What a backtest reads of the store: the newest stored verdict of checks by name on
given turns, across both shapes of results (``worker/store/passed.py``). Reads only.

"Newest" is the latest write of the turn (``passed_results.id``, which full rows point
at as ``write_id``), then the later position in it: a redelivery with a new check
version, or a judged result, is written after the turn's first results.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy import inspect, make_url, select
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.store.database import Database, create_engine
from turncheck.worker.store.passed import entries_of
from turncheck.worker.store.tables import check_results, passed_results

IDS_PER_QUERY = 500
"""Turn ids per ``IN (...)``: well under SQLite's and asyncpg's limits on parameters."""

Verdicts = dict[tuple[str, str], str]
"""(turn id, check name) → the newest stored verdict: passed, failed or errored."""


async def open_results(url: str) -> Database | None:
    """The database at ``url`` if it holds the results tables; None if it does not, or if
    it is an SQLite file that is not there (it is not created). The caller closes it."""
    if _no_sqlite_file(url):
        return None
    database = Database(create_engine(url))
    try:
        async with database.transaction() as conn:
            held = await conn.run_sync(lambda sync: inspect(sync).has_table(passed_results.name))
    except BaseException:
        await database.close()
        raise
    if not held:
        await database.close()
        return None
    return database


def _no_sqlite_file(url: str) -> bool:
    """An SQLite URL whose file is not there (or in memory): opening would make one."""
    if not url.startswith("sqlite"):
        return False
    path = make_url(url).database
    return not path or path == ":memory:" or not Path(path).exists()


async def newest_verdicts(
    database: Database, turn_ids: Sequence[str], names: Iterable[str]
) -> Verdicts:
    """The newest stored verdict of each check of ``names`` on each of ``turn_ids`` that
    has one; a pair without any stored result is left out."""
    wanted = sorted(set(names))
    found: dict[tuple[str, str], tuple[tuple[int, int], str]] = {}
    if not wanted:
        return {}
    async with database.transaction() as conn:
        for start in range(0, len(turn_ids), IDS_PER_QUERY):
            chunk = list(turn_ids[start : start + IDS_PER_QUERY])
            await _full_rows(conn, chunk, wanted, found)
            await _passed_rows(conn, chunk, wanted, found)
    return {key: verdict for key, (_, verdict) in found.items()}


def _keep(
    found: dict[tuple[str, str], tuple[tuple[int, int], str]],
    key: tuple[str, str],
    order: tuple[int, int],
    verdict: str,
) -> None:
    held = found.get(key)
    if held is None or held[0] < order:
        found[key] = (order, verdict)


async def _full_rows(
    conn: AsyncConnection,
    turn_ids: list[str],
    names: list[str],
    found: dict[tuple[str, str], tuple[tuple[int, int], str]],
) -> None:
    c = check_results.c
    query = select(c.turn_id, c.check_name, c.write_id, c.position, c.verdict).where(
        c.turn_id.in_(turn_ids), c.check_name.in_(names)
    )
    for turn_id, name, write_id, position, verdict in await conn.execute(query):
        _keep(found, (turn_id, name), (write_id, position), verdict)


async def _passed_rows(
    conn: AsyncConnection,
    turn_ids: list[str],
    names: list[str],
    found: dict[tuple[str, str], tuple[tuple[int, int], str]],
) -> None:
    p = passed_results.c
    query = select(p.id, p.turn_id, p.checks).where(p.turn_id.in_(turn_ids))
    for write_id, turn_id, checks in await conn.execute(query):
        for name in names:
            for _, position in entries_of(checks, name):
                _keep(found, (turn_id, name), (write_id, position), "passed")
