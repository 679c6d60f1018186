"""Probe the database and the broker before a command uses them.

A command whose database or broker does not answer is refused at its start with
``ServiceUnavailable``: one line naming where (host:port or a file, never a
password) and why, instead of a traceback or a worker retrying forever. Each
probe gives up after ``PROBE_TIMEOUT_S``. SQLAlchemy, asyncpg, sqlite3, aiokafka
and socket errors are translated here and go no further.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import re
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
from aiokafka import AIOKafkaClient
from aiokafka.errors import KafkaError
from sqlalchemy import URL, make_url, text
from sqlalchemy.exc import ArgumentError, InvalidRequestError, SQLAlchemyError
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from turncheck.worker.errors import (
    ConfigurationError,
    ServiceUnavailable,
    StoreUnavailable,
    error_chain,
)

PROBE_TIMEOUT_S = 5.0
DEFAULT_PORTS = {"postgresql": 5432}
KAFKA_DEFAULT_PORT = 9092
DATABASE = "database"
KAFKA = "Kafka"


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
        raise ServiceUnavailable(DATABASE, location, cause or describe(exc)) from None


async def probe_broker(bootstrap: str, timeout_s: float = PROBE_TIMEOUT_S) -> None:
    """Return once a bootstrap server answers as a Kafka broker; raise ``ServiceUnavailable``
    naming each server's cause if none does within ``timeout_s``."""
    servers = _parse_bootstrap(bootstrap)
    location = ",".join(servers)
    client = AIOKafkaClient(
        bootstrap_servers=bootstrap,
        client_id="turncheck-preflight",
        request_timeout_ms=int(timeout_s * 1000),
    )
    try:
        with _quiet("aiokafka"):
            async with asyncio.timeout(timeout_s):
                await client.bootstrap()
        return
    except (KafkaError, OSError):
        pass  # aiokafka does not say why; ask each server over plain TCP below
    finally:
        await client.close()
    causes = await asyncio.gather(*(_tcp_cause(server, timeout_s) for server in servers))
    if len(servers) > 1:
        causes = [f"{server} {cause}" for server, cause in zip(servers, causes, strict=True)]
    raise ServiceUnavailable(KAFKA, location, "; ".join(causes))


def describe(exc: BaseException) -> str:
    """The cause in a few words, built from the error's type and errno. A driver's message
    may quote a URL, a user name or a value, so only SQLite's own sentences are used."""
    for error in error_chain(exc):
        if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
            return "authentication failed"
        if isinstance(error, asyncpg.InvalidCatalogNameError):
            return "database does not exist"
        if isinstance(error, asyncpg.PostgresError):
            return _words(type(error).__name__)
        if isinstance(error, socket.gaierror):
            return "unknown host"
        if isinstance(error, TimeoutError):
            return "no answer in time"
        if isinstance(error, OSError):
            number = error.errno or _first_errno(str(error))
            return os.strerror(number).lower() if number else _words(type(error).__name__)
        if isinstance(error, sqlite3.Error):
            return str(error)  # SQLite's own sentences ("unable to open database file")
    return _words(type(exc).__name__)


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


def _parse_bootstrap(bootstrap: str) -> list[str]:
    servers = []
    for item in (part.strip() for part in bootstrap.split(",")):
        try:
            parts = urlsplit(f"//{item}")
            host, port = parts.hostname, parts.port
        except ValueError:
            host = None
        if not host or parts.path or parts.username:
            raise ConfigurationError(
                f"invalid setting TURNCHECK_KAFKA_BOOTSTRAP: {item!r} is not host:port"
            )
        servers.append(f"{parts.netloc}" if port else f"{parts.netloc}:{KAFKA_DEFAULT_PORT}")
    return servers


async def _tcp_cause(server: str, timeout_s: float) -> str:
    parts = urlsplit(f"//{server}")
    try:
        async with asyncio.timeout(timeout_s):
            _, writer = await asyncio.open_connection(parts.hostname, parts.port)
    except TimeoutError:
        return f"no answer within {timeout_s:g} s"
    except OSError as exc:
        return describe(exc)
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return "accepts connections but does not answer as a Kafka broker"


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """aiokafka logs every failed connection at ERROR; the probe reports it once, itself."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


def _first_errno(message: str) -> int | None:
    """asyncio joins the failures of every address of a host into one OSError without errno:
    "Multiple exceptions: [Errno 111] Connect call failed ..."."""
    found = re.search(r"\[Errno (\d+)\]", message)
    return int(found[1]) if found else None


def _words(name: str) -> str:
    """``InsufficientPrivilegeError`` → "insufficient privilege"."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", name.removesuffix("Error")).lower()
    return words if " " in words else f"{words} error"
