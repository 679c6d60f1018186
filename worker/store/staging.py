"""PostgreSQL: a batch's rows sent with COPY into a staging table, then moved into their
table by one ``INSERT ... SELECT ... ON CONFLICT`` that keeps the statements' semantics.

COPY has no ``ON CONFLICT`` and no ``RETURNING``, and the writer needs both (a
redelivered turn must store nothing twice, and it must learn what was new). So each
staged table has a temporary twin of its written columns (``ON COMMIT DELETE ROWS``:
empty at the start of every transaction), made once per connection when the pool opens
it, and a batch is two round trips per table: the COPY (asyncpg's binary
``copy_records_to_table``, no SQL to parse, no parameter per cell) and the move. Both
run in the writer's transaction, so the rows commit or roll back with everything else
of the batch.

The COPY goes around SQLAlchemy to the driver connection: its errors are translated
here into the ones SQLAlchemy raises for the same failure, so ``Database.transaction``
tells an outage from a refusal as it does for any statement, and a turn the database
refuses is dead-lettered with the same reason either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Table, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection

from turncheck.worker.store.tables import UTCDateTime, check_results, outbox, passed_results

STAGED: dict[str, tuple[Table, tuple[str, ...]]] = {
    "passed_results": (
        passed_results,
        (
            "turn_id",
            "part",
            "thread_id",
            "person_id",
            "agent_id",
            "agent_version",
            "turn_created_at",
            "checked_at",
            "expires_at",
            "checks",
            "passed",
        ),
    ),
    "check_results": (
        check_results,
        tuple(c.name for c in check_results.columns if c.name != "id"),
    ),
    "outbox": (outbox, ("event_id", "topic", "key", "payload", "created_at", "attempts")),
}
"""The tables written through a staging twin, with the columns a write gives them (the
others take their defaults: ids, ``outbox.xid``)."""


def staging_name(table: str) -> str:
    return f"turncheck_staging_{table}"


def _ddl(table: Table, columns: Sequence[str]) -> str:
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    typed = ", ".join(f"{name} {table.c[name].type.compile(dialect)}" for name in columns)
    # ``ordinal``: the rows go in in the order they were given, as a statement's would.
    return (
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {staging_name(table.name)} "
        f"(ordinal bigserial, {typed}) ON COMMIT DELETE ROWS"
    )


STAGING_DDL = "; ".join(_ddl(table, columns) for table, columns in STAGED.values())
"""The column types come from ``tables.py``, not from the database: a connection opened
before the migrations ran (``turncheck migrate`` itself) must not fail for want of them."""


async def create_staging(driver: Any) -> None:
    """Make the staging tables on a new asyncpg connection: once, outside any transaction,
    so they live as long as the connection (the pool's connect event calls this)."""
    await driver.execute(STAGING_DDL)


Record = tuple[Any, ...]


def recorder(table: str) -> Callable[[Mapping[str, Any]], Record]:
    """A row (as the statements take it) as a record for ``copy_in``: its values in the
    staging table's column order, JSON as SQLAlchemy's ``JSON`` sends it (``None`` as the
    JSON ``null``), and a naive time refused as ``UTCDateTime`` refuses it."""
    source, columns = STAGED[table]
    values = itemgetter(*columns)
    times = [i for i, name in enumerate(columns) if isinstance(source.c[name].type, UTCDateTime)]
    documents = [i for i, name in enumerate(columns) if isinstance(source.c[name].type, JSON)]

    def record(row: Mapping[str, Any]) -> Record:
        got: Record = values(row)
        for i in times:
            moment = got[i]
            if moment is not None and moment.tzinfo is None:
                raise ValueError("naive datetime given to the store")
        if documents:
            listed = list(got)
            for i in documents:
                listed[i] = json.dumps(listed[i])
            return tuple(listed)
        return got

    return record


async def copy_in(
    conn: AsyncConnection,
    table: str,
    records: Iterable[Record],
    *,
    conflict: str,
    returning: Sequence[str] = (),
) -> list[tuple[Any, ...]]:
    """Insert ``records`` (tuples in ``STAGED[table]``'s column order) into ``table`` in
    their order (the order they take their ids in), skipping those ``ON CONFLICT
    (conflict)`` finds there; the ``returning`` columns of the rows that went in."""
    _, columns = STAGED[table]
    raw = await conn.get_raw_connection()
    driver: Any = raw.driver_connection
    if not driver.is_in_transaction():
        # SQLAlchemy's asyncpg adapter sends BEGIN with the first statement it runs; a COPY
        # sent before that would commit on its own.
        await conn.exec_driver_sql("SELECT 1")
    staging = staging_name(table)
    try:
        await driver.copy_records_to_table(staging, records=records, columns=list(columns))
    except Exception as exc:
        translated, gone = _translated(conn, raw, exc)
        if gone:
            await conn.invalidate(translated)
        raise translated from exc
    listed = ", ".join(columns)
    # Moved in one statement that empties the staging table too: a turn written again in
    # the same transaction (its next part) is staged afresh, and the commit has nothing
    # left to empty.
    move = (
        f"WITH staged AS (DELETE FROM {staging} RETURNING ordinal, {listed}) "
        f"INSERT INTO {table} ({listed}) SELECT {listed} FROM staged ORDER BY ordinal"
        f" ON CONFLICT ({conflict}) DO NOTHING"
        + (f" RETURNING {', '.join(returning)}" if returning else "")
    )
    moved = await conn.execute(text(move))
    return [tuple(row) for row in moved] if returning else []


def _translated(conn: AsyncConnection, raw: Any, exc: Exception) -> tuple[BaseException, bool]:
    """The error SQLAlchemy raises when a statement fails as this COPY did (a DBAPIError
    around its adapter's own error), and whether the connection is gone."""
    adapter = raw.dbapi_connection
    try:
        adapter._handle_exception(exc)
    except Exception as dbapi_error:  # the adapter always raises: its translation
        translated: BaseException = dbapi_error
    else:  # pragma: no cover - _handle_exception never returns
        translated = exc
    dialect = conn.dialect
    gone = bool(dialect.is_disconnect(translated, adapter, None))  # type: ignore[arg-type]
    base = dialect.loaded_dbapi.Error
    if not isinstance(translated, base):
        return translated, gone  # OSError and the like: Database.transaction knows them
    wrapped = DBAPIError.instance(
        None, None, translated, base, hide_parameters=True, connection_invalidated=gone
    )
    return wrapped, gone
