"""Fixtures shared by the suite: a fixed clock, and stores on SQLite and PostgreSQL.

Real services come from ``scripts/services.sh start``, which prints the
``TURNCHECK_TEST_*`` variables. Locally a test whose service is absent is
skipped, and so is one whose Hyperscan or native extension is not installed;
under CI (``CI`` set) it fails (``missing``), so a green CI always used them.
"""

from __future__ import annotations

import asyncio
import os
import socket
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, NoReturn

import asyncpg
import pytest
from hypothesis import settings
from sqlalchemy import make_url, text

import tests.fuzzing  # noqa: F401  (registers the hypothesis profiles)
from tests.factories import FIXED_NOW
from turncheck.worker.checks.gates.engine import hyperscan
from turncheck.worker.store import Store
from turncheck.worker.store.migrate import migrate
from turncheck.worker.store.tables import metadata

EVENTS_TOPIC = "response.check_failed"

TEST_RETENTION_DAYS = "36500"
"""The suite's turns are dated late November 2026 (``FIXED_NOW``), and a turn already past
its retention window when it arrives is neither stored nor counted. Commands and workers
the tests start on the real clock keep them a century, so the suite does not stop
passing 30 days after that date; a test about retention sets its own."""
os.environ.setdefault("TURNCHECK_RETENTION_DAYS", TEST_RETENTION_DAYS)

# Bounded and the same on every run; `--hypothesis-profile=many` (loaded after this) tries more.
settings.load_profile("ci")


def missing(message: str) -> NoReturn:
    """Skip the test for want of ``message``'s service or package; under CI, fail it."""
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def service(variable: str) -> str:
    value = os.environ.get(variable)
    if value:
        return value
    missing(f"{variable} is not set: run `bash scripts/services.sh start` and eval its output")


@pytest.fixture
def hyperscan_installed() -> None:
    """For tests of the gates' Hyperscan engine (``hyperscan``, a dependency where its wheels exist)."""
    if hyperscan is None:
        missing("hyperscan is not installed: `pip install -e .` installs it where its wheels exist")


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def now() -> object:
    return FIXED_NOW


_migrated: set[str] = set()


async def fresh_store(url: str, events_topic: str = EVENTS_TOPIC) -> Store:
    if url not in _migrated:
        await asyncio.to_thread(migrate, url)
        _migrated.add(url)
    store = Store.open(url, events_topic=events_topic)
    if not url.startswith("sqlite"):
        async with store.database.engine.begin() as conn:
            names = ", ".join(table.name for table in metadata.sorted_tables)
            await conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY"))
    return store


def _run_aside(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run a coroutine to its end on a loop of its own, whether or not one is running here."""
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, coroutine).result()


async def _admin(server: str, statement: str) -> None:
    url = make_url(server)
    conn = await asyncpg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        database=url.database,
    )
    try:
        await conn.execute(statement)
    finally:
        await conn.close()


async def _drop(server: str, name: str) -> None:
    """Drop a database, its connections with it. FORCE cannot end a superuser's backend,
    such as an autovacuum worker that happens to be on it: that is waited out."""
    for attempt in range(20):
        try:
            await _admin(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except asyncpg.InsufficientPrivilegeError:
            if attempt == 19:
                raise
            await asyncio.sleep(0.5)


@asynccontextmanager
async def scratch_database(server: str, prefix: str) -> AsyncIterator[str]:
    """A database of its own on ``server``'s PostgreSQL, dropped afterwards (benchmarks)."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    await _admin(server, f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        await _drop(server, name)


@pytest.fixture(scope="session")
def run_database_url() -> Iterator[str]:
    """A database of this test run's own on the server of ``TURNCHECK_TEST_DATABASE_URL``,
    dropped when the run ends: two runs, or a run and the README's own data, never
    truncate each other's tables."""
    server = service("TURNCHECK_TEST_DATABASE_URL")
    name = f"turncheck_test_{uuid.uuid4().hex[:12]}"
    _run_aside(_admin(server, f'CREATE DATABASE "{name}"'))
    yield make_url(server).set(database=name).render_as_string(hide_password=False)
    _run_aside(_drop(server, name))


@pytest.fixture
def postgres_url(run_database_url: str) -> str:
    return run_database_url


@pytest.fixture
def kafka_bootstrap() -> str:
    return service("TURNCHECK_TEST_KAFKA_BOOTSTRAP")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path}/turncheck.db"
    url: str = request.getfixturevalue("run_database_url")
    return url


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[Store]:
    s = await fresh_store(database_url)
    yield s
    await s.close()
