"""Probes of the database and the broker, and the causes they name."""

from __future__ import annotations

import logging
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import make_url
from sqlalchemy.exc import DBAPIError

from turncheck.worker.errors import ConfigurationError, ServiceUnavailable, StoreUnavailable
from turncheck.worker.kafka.probe import probe_broker
from turncheck.worker.store.probe import (
    cause_of,
    database_errors,
    database_location,
    probe_database,
)


@pytest.fixture
def not_kafka() -> Iterator[int]:
    """A port that accepts connections and says nothing, as a database's port would."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield listener.getsockname()[1]


def _wrapped(error: BaseException) -> DBAPIError:
    """What SQLAlchemy raises for an asyncpg error at connect: a wrapper around a wrapper."""
    try:
        raise RuntimeError("adapted") from error
    except RuntimeError as adapted:
        return DBAPIError("SELECT 1", None, adapted)


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (_wrapped(asyncpg.InvalidPasswordError("for user x")), "authentication failed"),
        (_wrapped(asyncpg.InvalidCatalogNameError('"nope"')), "database does not exist"),
        (_wrapped(asyncpg.InsufficientPrivilegeError("no")), "insufficient privilege"),
        (ConnectionRefusedError(111, "Connect call failed"), "connection refused"),
        (
            OSError("Multiple exceptions: [Errno 111] Connect call failed ('::1', 1)"),
            "connection refused",
        ),
        (socket.gaierror(-2, "Name or service not known"), "unknown host"),
        (TimeoutError(), "no answer in time"),
        (sqlite3.OperationalError("unable to open database file"), "unable to open database file"),
        (ConnectionError("server at h:1 rejected SSL upgrade"), "connection error"),
    ],
)
def test_a_cause_is_named_from_the_error_type_not_its_message(
    error: BaseException, cause: str
) -> None:
    assert cause_of(error) == cause


def test_a_location_names_host_and_port_never_the_password() -> None:
    url = make_url("postgresql+asyncpg://user:s3cret@db.example:6543/turncheck")
    assert database_location(url) == "db.example:6543"
    assert database_location(make_url("postgresql+asyncpg://u:p@db.example/x")) == "db.example:5432"
    assert database_location(make_url("sqlite+aiosqlite:///./x/y.db")) == "./x/y.db"


async def test_a_closed_database_port_is_connection_refused(closed_port: int) -> None:
    with pytest.raises(ServiceUnavailable) as caught:
        await probe_database(f"postgresql+asyncpg://u:s3cret@127.0.0.1:{closed_port}/db")
    assert str(caught.value) == (
        f"database at 127.0.0.1:{closed_port} is unavailable: connection refused"
    )


async def test_a_database_that_does_not_answer_gives_up_after_the_timeout(not_kafka: int) -> None:
    with pytest.raises(ServiceUnavailable, match=r"no answer within 0\.2 s"):
        await probe_database(f"postgresql+asyncpg://u:p@127.0.0.1:{not_kafka}/db", timeout_s=0.2)


async def test_a_sqlite_file_under_a_file_is_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ServiceUnavailable, match="not a directory"):
        await probe_database(f"sqlite+aiosqlite:///{tmp_path}/file/x.db")


async def test_a_sqlite_file_that_is_not_a_database_is_named(tmp_path: Path) -> None:
    (tmp_path / "x.db").write_text("hello, not a database" * 10)
    with pytest.raises(ServiceUnavailable, match="file is not a database"):
        await probe_database(f"sqlite+aiosqlite:///{tmp_path}/x.db")


async def test_a_new_sqlite_file_is_fine_and_its_folder_is_made(tmp_path: Path) -> None:
    await probe_database(f"sqlite+aiosqlite:///{tmp_path}/new/x.db")
    assert (tmp_path / "new").is_dir()


@pytest.mark.parametrize(
    "url", ["not a url", "postgresql://u:p@127.0.0.1/x", "nosuchdialect+x://h/db"]
)
async def test_a_database_url_that_cannot_work_is_a_configuration_error(url: str) -> None:
    with pytest.raises(ConfigurationError, match="TURNCHECK_DATABASE_URL"):
        await probe_database(url)


def test_a_store_outage_after_the_probe_names_the_database_and_its_cause() -> None:
    with (
        pytest.raises(ServiceUnavailable, match=r"h:5432 is unavailable: connection refused"),
        database_errors("postgresql+asyncpg://u:p@h/db"),
    ):
        try:
            raise ConnectionRefusedError(111, "refused")
        except ConnectionRefusedError as exc:
            raise StoreUnavailable(type(exc).__name__) from exc


async def test_a_closed_broker_port_is_connection_refused_and_logs_nothing(
    closed_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG), pytest.raises(ServiceUnavailable) as caught:
        await probe_broker(f"127.0.0.1:{closed_port}", timeout_s=2)
    assert (
        str(caught.value) == f"Kafka at 127.0.0.1:{closed_port} is unavailable: connection refused"
    )
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert logging.getLogger("aiokafka").level == logging.NOTSET


async def test_a_port_that_is_not_kafka_is_named_so(not_kafka: int) -> None:
    with pytest.raises(ServiceUnavailable, match="does not answer as a Kafka broker"):
        await probe_broker(f"127.0.0.1:{not_kafka}", timeout_s=0.5)


async def test_each_bootstrap_server_gets_its_own_cause(closed_port: int) -> None:
    with pytest.raises(ServiceUnavailable) as caught:
        await probe_broker(f"nohost.invalid:9092,127.0.0.1:{closed_port}", timeout_s=2)
    assert caught.value.cause == (
        f"nohost.invalid:9092 unknown host; 127.0.0.1:{closed_port} connection refused"
    )


@pytest.mark.parametrize("bootstrap", ["host:abc", "host:99999", "a:1,,b:2", "user@host:1"])
async def test_a_bootstrap_that_is_not_host_port_is_a_configuration_error(bootstrap: str) -> None:
    with pytest.raises(ConfigurationError, match="TURNCHECK_KAFKA_BOOTSTRAP"):
        await probe_broker(bootstrap)


async def test_the_real_services_pass_their_probes(postgres_url: str, kafka_bootstrap: str) -> None:
    await probe_database(postgres_url)
    await probe_broker(kafka_bootstrap)
