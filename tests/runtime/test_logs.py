"""Log lines as text or as one JSON object each."""

from __future__ import annotations

import json
import logging
import sys

from turncheck.worker.runtime.logs import JsonFormatter


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
