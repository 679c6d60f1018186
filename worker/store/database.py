"""The connection to the database, and the one place its errors are translated.

``StoreUnavailable`` means the database is out of reach (connection refused or
lost, pool exhausted), or PostgreSQL rolled the transaction back to break a deadlock
(``WriteConflict``): the caller waits and tries again. Any other error is the
statement's own (a value the column refuses) and is raised as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from turncheck.worker.errors import StoreUnavailable, WriteConflict
from turncheck.worker.store.staging import create_staging

RETRIED_SQLSTATES = {"40P01": "deadlock detected", "40001": "serialization failure"}
"""Errors PostgreSQL ends a transaction with so that another may go on: the loser is
tried again as after an outage (two writers of one turn, an erasure beside a judged
result), never dead-lettered."""


def create_engine(url: str) -> AsyncEngine:
    """``hide_parameters``: no value of a turn's row ever reaches a log or an error message.
    A PostgreSQL connection gets the writer's staging tables when it opens (``staging``)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_async_engine(url, connect_args={"timeout": 30}, hide_parameters=True)

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    engine = create_async_engine(url, pool_pre_ping=True, hide_parameters=True)

    @event.listens_for(engine.sync_engine, "connect")
    def _staging(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.run_async(create_staging)

    return engine


class Database:
    """An engine, the dialect's INSERT (for ON CONFLICT) and translated transactions."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self.insert: Callable[..., Any] = (
            postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        )

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncConnection]:
        try:
            async with self.engine.begin() as conn:
                yield conn
        except (OperationalError, InterfaceError, PoolTimeout, OSError, ConnectionError) as exc:
            raise StoreUnavailable(type(exc).__name__) from exc
        except DBAPIError as exc:
            if exc.connection_invalidated:
                raise StoreUnavailable(type(exc).__name__) from exc
            state = getattr(exc.orig, "sqlstate", None)
            if state in RETRIED_SQLSTATES:
                raise WriteConflict(RETRIED_SQLSTATES[state]) from exc
            raise

    async def close(self) -> None:
        await self.engine.dispose()
