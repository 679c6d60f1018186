"""What a command does before its work, in this order: read the settings, refuse a bad
argument, then make sure the database (and the broker) answers.

Each step raises a ``TurncheckError`` that ``worker/exits.py`` prints as one line: a
setting or an argument (exit 2) is refused before anything touches a service (exit 3).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeVar

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.logs import configure_logging
from turncheck.worker.preflight import database_errors, probe_broker, probe_database
from turncheck.worker.settings import Settings, load_settings
from turncheck.worker.store import Store
from turncheck.worker.store.migrate import migrate as run_migrations

T = TypeVar("T")

SINCE_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def settings(log_level: int = logging.WARNING) -> Settings:
    """The settings, and log lines in their format from here on."""
    loaded = load_settings()
    configure_logging(loaded.log_format, log_level)
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


def parse_since(text: str, now: datetime) -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or time."""
    match = re.fullmatch(r"(\d+)([mhdw])", text.strip())
    try:
        if match:
            return now - timedelta(**{SINCE_UNITS[match[2]]: int(match[1])})
        moment = datetime.fromisoformat(text)
    except OverflowError:
        raise ConfigurationError(f"invalid --since {text!r}: goes back past the year 1") from None
    except ValueError:
        raise ConfigurationError(
            f"invalid --since {text!r}: use 7d, 12h, 30m, 2w or an ISO date"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo)


def reach(settings: Settings, *, broker: bool = False) -> None:
    """Return once the database answers and, with ``broker``, the broker if one is set."""

    async def probe() -> None:
        await probe_database(settings.database_url)
        if broker and settings.kafka_bootstrap:
            await probe_broker(settings.kafka_bootstrap)

    asyncio.run(probe())


def migrate(settings: Settings) -> None:
    """Bring the database to the newest schema (idempotent)."""
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


def embedded_schema(settings: Settings) -> None:
    """The embedded SQLite store sets itself up; a server database is migrated on purpose."""
    if settings.embedded:
        migrate(settings)
