"""What a command does before its work, in this order: read the settings, refuse a bad
argument, then make sure the database (and the broker) answers, and for a command that
stores turns, that erasures made with a key are not stored over without it.

Each step raises a ``TurncheckError`` that ``worker/cli/exits.py`` prints as one line: a
setting or an argument (exit 2) is refused before anything touches a service (exit 3).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from sqlalchemy import make_url

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.runtime.logs import configure_logging, level_of
from turncheck.worker.settings import Settings, load_settings
from turncheck.worker.store import Store
from turncheck.worker.store.probe import database_errors, probe_database
from turncheck.worker.store.schema_revision import at_head

# Imported by the step that needs them: the broker's client (aiokafka), Alembic and the
# erasure ledger cost a read command a third of a second it mostly does not spend on them.

T = TypeVar("T")


def settings(log_level: int = logging.WARNING) -> Settings:
    """The settings, and log lines in their format from here on: from ``log_level``, or
    from the level ``TURNCHECK_LOG_LEVEL`` names."""
    loaded = load_settings()
    configure_logging(loaded.log_format, level_of(loaded.log_level, log_level))
    return loaded


def require_readable(file: Path) -> None:
    """A turns file, or ``-`` for standard input, that can be opened for reading."""
    if str(file) == "-":
        return
    try:
        with file.open("rb"):
            pass
    except FileNotFoundError:
        raise ConfigurationError(f"no such file: {file}") from None
    except IsADirectoryError:
        raise ConfigurationError(f"not a file: {file} is a folder") from None
    except OSError as exc:
        why = (exc.strerror or type(exc).__name__).lower()
        raise ConfigurationError(f"cannot read {file}: {why}") from None


def reach(settings: Settings, *, broker: bool = False) -> None:
    """Return once the database answers and, with ``broker``, the broker if one is set."""

    async def probe() -> None:
        await probe_database(settings.database_url)
        if broker and settings.kafka_bootstrap:
            from turncheck.worker.kafka.probe import probe_broker

            await probe_broker(settings.kafka_bootstrap)

    asyncio.run(probe())


def migrate(settings: Settings) -> None:
    """Bring the database to the newest schema (idempotent)."""
    from turncheck.worker.store.migrate import migrate as run_migrations

    with database_errors(settings.database_url):
        run_migrations(settings.database_url)


def on_store(settings: Settings, work: Callable[[Store], Awaitable[T]]) -> T:
    """``work`` on an open store, once the database answers (and, if embedded, is set
    up); the store is closed after, and a database error becomes one line."""
    reach(settings)
    embedded_schema(settings)

    async def run() -> T:
        store = Store.open(settings.database_url, events_topic=settings.topic_events)
        try:
            return await work(store)
        finally:
            await store.close()

    with database_errors(settings.database_url):
        return asyncio.run(run())


def erasures_held(settings: Settings) -> None:
    """Refuse to store turns without ``TURNCHECK_ERASURE_KEY`` once anyone has been erased
    (``ErasureKeyMissing``): without the key their turns cannot be recognised, and would
    be stored and counted again. Run once the schema is in place."""
    if settings.erasure_key is not None:
        return
    from turncheck.worker.retention.erasure import KeylessLedger

    async def check() -> None:
        store = Store.open(settings.database_url, events_topic=settings.topic_events)
        try:
            await KeylessLedger(store.database).refuse_if_held()
        finally:
            await store.close()

    with database_errors(settings.database_url):
        asyncio.run(check())


def embedded_schema(settings: Settings) -> None:
    """The embedded SQLite store sets itself up (a store already at the newest schema is
    left as it is, without starting Alembic); a server database is migrated on purpose."""
    if settings.embedded and not at_head(make_url(settings.database_url).database or ""):
        migrate(settings)
