"""Log lines on standard error: text for people, or one JSON object per line for collectors.

What is logged (ids, names, counts, never a turn's text, a secret or a person id) is up
to each module. Here, whatever a module or a library logs:

- libraries whose lines would carry URLs, SQL parameters or records (httpx, httpcore,
  SQLAlchemy, aiosqlite, slack-sdk, aiokafka's DEBUG) are held above them at any level,
  and so is Alembic's narration;
- every record passes ``redact_urls`` on its way out: a URL's query string, fragment and
  user-info (``https://user:pw@host/hook?token=…``) become ``***``, in the message, its
  arguments and its traceback. A safety net, not a licence to log URLs.
"""

from __future__ import annotations

import json
import logging
import re
import sys
from datetime import UTC, datetime
from typing import Literal

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

QUIET_LOGGERS = {
    # Alembic narrates each migration's setup ("Context impl SQLiteImpl.") at INFO, and
    # SQLite is migrated on most commands: only its warnings are worth a line.
    "alembic": logging.WARNING,
    # httpx logs every request's URL at INFO, query string (a webhook's token) included;
    # httpcore narrates each connection at DEBUG.
    "httpx": logging.WARNING,
    "httpcore": logging.WARNING,
    # The engine logs each statement with its parameters (person ids) once INFO is on.
    "sqlalchemy": logging.WARNING,
    # aiosqlite logs each statement it runs with its parameters (person ids, a label's
    # note) at DEBUG.
    "aiosqlite": logging.WARNING,
    # slack-sdk logs its request URLs and bodies at DEBUG.
    "slack_sdk": logging.WARNING,
    # aiokafka dumps every fetch response, records (turns, erasure requests) and all, at
    # DEBUG; its INFO lines (group membership, assignments) are worth keeping.
    "aiokafka": logging.INFO,
}

LogLevel = Literal["debug", "info", "warning", "error"]

_URL = re.compile(
    r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://)"
    # user-info ends at the authority's last "@", as urllib.parse.urlsplit reads it
    r"(?P<userinfo>[^/?#\s'\"<>]*@)?"
    r"(?P<rest>[^?#\s'\"<>]*)"
    r"(?P<query>\?[^#\s'\"<>]*)?"
    r"(?P<fragment>#[^\s'\"<>]*)?"
)


def _redact(match: re.Match[str]) -> str:
    userinfo = "***@" if match["userinfo"] else ""
    query = "?***" if match["query"] else ""
    fragment = "#***" if match["fragment"] else ""
    return f"{match['head']}{userinfo}{match['rest']}{query}{fragment}"


def redact_urls(text: str) -> str:
    """``text`` with the query string, fragment and user-info of every URL in it as ``***``."""
    return _URL.sub(_redact, text) if "://" in text else text


class RedactUrls(logging.Filter):
    """Rewrites a record's message (its arguments merged in) and traceback through
    ``redact_urls``, before any formatter reads them."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            # A message its arguments do not fit: the handler reports it, as without us.
            return True
        record.msg, record.args = redact_urls(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact_urls(record.exc_text)
        if record.stack_info:
            record.stack_info = redact_urls(record.stack_info)
        return True


class JsonFormatter(logging.Formatter):
    """``{"time", "level", "logger", "message"}``, plus ``exception`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        # ensure_ascii keeps every line one line of ASCII, whatever a message holds.
        return json.dumps(line)


def level_of(name: LogLevel | None, default: int) -> int:
    """The level ``TURNCHECK_LOG_LEVEL`` names, else the command's own ``default``."""
    return default if name is None else logging.getLevelNamesMapping()[name.upper()]


def configure_logging(log_format: Literal["text", "json"], level: int) -> None:
    """Send every log record through one handler on standard error, in ``log_format``,
    with URLs redacted."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    )
    handler.addFilter(RedactUrls())
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name, quiet_level in QUIET_LOGGERS.items():
        logging.getLogger(name).setLevel(quiet_level)
