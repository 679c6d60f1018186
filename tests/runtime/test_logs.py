"""Log lines as text or as one JSON object each, with no URL's query string or credentials."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from typing import Literal

import httpx
import pytest

from tests.webhooks.receiver import receiving
from turncheck.worker.runtime.logs import (
    QUIET_LOGGERS,
    JsonFormatter,
    configure_logging,
    redact_urls,
)


def _record(message: str, *args: object, exc_info: bool = False) -> logging.LogRecord:
    info = sys.exc_info() if exc_info else None
    return logging.LogRecord("turncheck.worker.x", logging.INFO, __file__, 1, message, args, info)


def test_a_json_line_has_time_level_logger_and_message() -> None:
    line = JsonFormatter().format(_record("batch stored turns=%d", 3))
    parsed = json.loads(line)
    assert parsed.keys() == {"time", "level", "logger", "message"}
    assert (parsed["level"], parsed["logger"], parsed["message"]) == (
        "INFO",
        "turncheck.worker.x",
        "batch stored turns=3",
    )
    assert parsed["time"].endswith("+00:00")


def test_an_exception_stays_inside_its_one_line() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        line = JsonFormatter().format(_record("failed", exc_info=True))
    assert "\n" not in line
    assert "ValueError: boom" in json.loads(line)["exception"]


@pytest.fixture
def logging_restored() -> Iterator[None]:
    """configure_logging replaces the root logger's handlers: give them back afterwards."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    yield
    root.handlers[:], root.level = handlers, level
    for name, old in quiet.items():
        logging.getLogger(name).setLevel(old)


@pytest.mark.parametrize(
    ("logged", "shown"),
    [
        (
            "POST https://hooks.example.com/in?token=CANARY1&x=2 204",
            "POST https://hooks.example.com/in?*** 204",
        ),
        (
            "url=https://ops:CANARY2@hooks.example.com:8443/in",
            "url=https://***@hooks.example.com:8443/in",
        ),
        (
            "'postgresql+asyncpg://app:CANARY3@db:5432/turncheck?sslmode=require'",
            "'postgresql+asyncpg://***@db:5432/turncheck?***'",
        ),
        ("http://a:b@c@127.0.0.1/x#access_token=CANARY4", "http://***@127.0.0.1/x#***"),
        (
            "batch stored turns=3 route=/v1/persons/{person_id}",
            "batch stored turns=3 route=/v1/persons/{person_id}",
        ),
    ],
)
def test_a_logged_url_keeps_its_host_and_path_but_not_its_query_or_credentials(
    logged: str, shown: str
) -> None:
    """Query strings, fragments and user-info of URLs are replaced; the rest of a line stays."""
    assert redact_urls(logged) == shown


@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_a_library_logging_urls_at_debug_shows_no_token_or_password(
    log_format: Literal["text", "json"],
    logging_restored: None,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """httpx and httpcore turned up to DEBUG by hand, a real request to a loopback server
    whose URL carries a token and a password, and its failure logged with its traceback:
    neither appears in any line."""
    configure_logging(log_format, logging.DEBUG)
    logging.getLogger("httpx").setLevel(logging.DEBUG)
    logging.getLogger("httpcore").setLevel(logging.DEBUG)
    async with receiving() as receiver:
        url = receiver.url.replace("http://", "http://ops:CANARYPW@") + "?token=CANARYTOKEN"
        async with httpx.AsyncClient() as client:
            response = await client.get(url)  # the receiver takes POST only: 405
            try:
                response.raise_for_status()
            except httpx.HTTPStatusError:
                logging.getLogger("turncheck.worker.x").exception("failed url=%s", url)
    logged = capsys.readouterr().err
    assert "HTTP Request: GET http://***@127.0.0.1" in logged  # httpx's own line, redacted
    assert "HTTPStatusError" in logged
    assert "CANARY" not in logged


def test_a_library_held_quiet_stays_quiet_when_the_level_is_debug(logging_restored: None) -> None:
    """At DEBUG, httpx's request lines and SQLAlchemy's statements with their parameters are
    still not written."""
    configure_logging("text", logging.DEBUG)
    assert logging.getLogger("turncheck.worker.x").isEnabledFor(logging.DEBUG)
    assert not logging.getLogger("httpx").isEnabledFor(logging.INFO)
    assert not logging.getLogger("sqlalchemy.engine.Engine").isEnabledFor(logging.INFO)
    assert not logging.getLogger("aiokafka.conn").isEnabledFor(logging.DEBUG)


def test_a_message_its_arguments_do_not_fit_does_not_raise_where_it_is_logged(
    logging_restored: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log call whose arguments do not fit its message is reported by logging, as it
    would be without the redaction, and the caller goes on."""
    configure_logging("text", logging.INFO)
    logging.getLogger("turncheck.worker.x").info("turns=%d", "many")
    logging.getLogger("turncheck.worker.x").info("next http://h/x?token=CANARY")
    logged = capsys.readouterr().err
    assert "--- Logging error ---" in logged
    assert "next http://h/x?***" in logged and "CANARY" not in logged
