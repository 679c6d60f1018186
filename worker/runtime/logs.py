"""Log lines on standard error: text for people, or one JSON object per line for collectors.

Only the format is chosen here; what is logged (ids, names, counts, never a turn's text)
is up to each module.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Literal

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

# Alembic narrates each migration's setup ("Context impl SQLiteImpl.", "Will assume
# transactional DDL.") at INFO, and SQLite is migrated on most commands: only its
# warnings are worth a line.
QUIET_LOGGERS = {"alembic": logging.WARNING}


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message"}``, plus ``exception`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        # ensure_ascii keeps every line one line of ASCII, whatever a message holds.
        return json.dumps(line)


def configure_logging(log_format: Literal["text", "json"], level: int) -> None:
    """Send every log record through one handler on standard error, in ``log_format``."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name, quiet_level in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(quiet_level)
