"""Fixtures shared by the suite: a fixed clock, and stores on SQLite and PostgreSQL.

Real services come from ``scripts/services.sh start``, which prints the
``TURNCHECK_TEST_*`` variables. Locally a test whose service is absent is
skipped; under CI (``CI`` set) it fails, so a green CI always used them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text

from tests.factories import FIXED_NOW
from turncheck.worker.store import SqlStore, create_engine
from turncheck.worker.store.migrate import migrate
from turncheck.worker.store.tables import metadata

EVENTS_TOPIC = "response.check_failed"


def service(variable: str) -> str:
    value = os.environ.get(variable)
    if value:
        return value
    message = f"{variable} is not set: run `bash scripts/services.sh start` and eval its output"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture
def now() -> object:
    return FIXED_NOW


_migrated: set[str] = set()


async def fresh_store(url: str, events_topic: str = EVENTS_TOPIC) -> SqlStore:
    if url not in _migrated:
        await asyncio.to_thread(migrate, url)
        _migrated.add(url)
    store = SqlStore(create_engine(url), events_topic=events_topic)
    if not url.startswith("sqlite"):
        async with store.engine.begin() as conn:
            names = ", ".join(table.name for table in metadata.sorted_tables)
            await conn.execute(text(f"TRUNCATE {names} RESTART IDENTITY"))
    return store


@pytest.fixture
def postgres_url() -> str:
    return service("TURNCHECK_TEST_DATABASE_URL")


@pytest.fixture
def kafka_bootstrap() -> str:
    return service("TURNCHECK_TEST_KAFKA_BOOTSTRAP")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path}/turncheck.db"
    return service("TURNCHECK_TEST_DATABASE_URL")


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[SqlStore]:
    s = await fresh_store(database_url)
    yield s
    await s.close()
