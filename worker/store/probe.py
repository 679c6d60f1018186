"""Probe the database before a command uses it, and translate what it raises.

A command whose database does not answer is refused at its start with
``ServiceUnavailable``: one line naming where (host:port or a file, never a
password) and why, instead of a traceback or a worker retrying forever. The probe
gives up after ``PROBE_TIMEOUT_S``. SQLAlchemy, asyncpg and sqlite3 errors are
translated here and go no further.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import URL, make_url, text
from sqlalchemy.exc import ArgumentError, InvalidRequestError, SQLAlchemyError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from turncheck.worker.errors import (
    ConfigurationError,
    ServiceUnavailable,
    StoreUnavailable,
    error_chain,
    os_cause,
    type_words,
)
from turncheck.worker.settings import PROBE_TIMEOUT_S

DEFAULT_PORTS = {"postgresql": 5432}
DATABASE = "database"


async def probe_database(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Return once the database answers ``SELECT 1``; raise ``ServiceUnavailable`` if it does
    not within ``timeout_s``, ``ConfigurationError`` if the URL cannot name a database."""
    parsed = _parse_database_url(url)
    with database_errors(url, timeout_s):
        if parsed.get_backend_name() == "sqlite":
            _open_sqlite(parsed.database)
            return
        try:
            engine = create_async_engine(parsed, poolclass=NullPool)
        except (ArgumentError, ImportError, InvalidRequestError):  # no such dialect or driver
            raise ConfigurationError(
                f"invalid setting TURNCHECK_DATABASE_URL: {parsed.drivername!r} is not an "
                "installed asyncio driver (use postgresql+asyncpg:// or sqlite+aiosqlite://)"
            ) from None
        try:
            async with asyncio.timeout(timeout_s), engine.connect() as connection:
                await connection.execute(text("SELECT 1"))
        finally:
            await engine.dispose()


@contextlib.contextmanager
def database_errors(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> Iterator[None]:
    """Translate what the database raises inside the block into ``ServiceUnavailable``."""
    try:
        yield
    except (SQLAlchemyError, OSError, sqlite3.Error, StoreUnavailable) as exc:
        cause = f"no answer within {timeout_s:g} s" if isinstance(exc, TimeoutError) else None
        location = database_location(_parse_database_url(url))
        raise ServiceUnavailable(DATABASE, location, cause or cause_of(exc)) from None


def cause_of(exc: BaseException) -> str:
    """The cause in a few words, built from the error's type and errno. A driver's message
    may quote a URL, a user name or a value, so only SQLite's own sentences are used."""
    # Imported here: every command probes the database, few of them fail.
    import asyncpg

    for error in error_chain(exc):
        if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
            return "authentication failed"
        if isinstance(error, asyncpg.InvalidCatalogNameError):
            return "database does not exist"
        if isinstance(error, asyncpg.PostgresError):
            return type_words(type(error).__name__)
        if (cause := os_cause(error)) is not None:
            return cause
        if isinstance(error, sqlite3.Error):
            return str(error)  # SQLite's own sentences ("unable to open database file")
    return type_words(type(exc).__name__)


def database_location(url: URL) -> str:
    """host:port for a server, the file for SQLite; never the user or the password."""
    backend = url.get_backend_name()
    if backend == "sqlite":
        return url.database or ":memory:"
    port = url.port or DEFAULT_PORTS.get(backend)
    host = url.host or "localhost"
    return f"{host}:{port}" if port else host


def _parse_database_url(url: str) -> URL:
    try:
        return make_url(url)
    except ArgumentError:
        raise ConfigurationError(
            "invalid setting TURNCHECK_DATABASE_URL: not a database URL "
            "(e.g. postgresql+asyncpg://user:password@host/db)"
        ) from None


def _open_sqlite(path: str | None) -> None:
    """Create the file's folder as the store would, then read the file's header."""
    if not path or path == ":memory:":
        return
    folder = Path(path).parent
    if folder.exists() and not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a directory")  # mkdir would say "exists"
    folder.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA schema_version")
