"""turncheck's errors, one root.

    TurncheckError
    ├── CheckDefinitionError  a check file is wrong: refused at start (file, line, check, field)
    ├── ConfigurationError    a setting or a command-line argument is wrong: refused at start
    ├── JudgeConfigError      the judge settings are wrong: refused at start (judge/config.py)
    ├── InvalidTurn           a message is not a valid turn: it goes to the dead-letter topic
    ├── ServiceUnavailable    the database or the broker does not answer a command at its start
    └── StoreUnavailable      the database is out of reach: consuming pauses, nothing committed

Foreign errors (SQLAlchemy, asyncpg, aiokafka, pydantic) are translated where they enter.
Each error's message is safe to print: it names settings, fields, hosts and causes, never
a password or a turn's text. The command line's exit codes are in ``worker/exits.py``.
"""

from __future__ import annotations


class TurncheckError(Exception):
    pass


class CheckDefinitionError(TurncheckError):
    def __init__(
        self, file: str, line: int | None, check: str | None, field: str | None, message: str
    ) -> None:
        self.file, self.line, self.check, self.field, self.message = (
            file,
            line,
            check,
            field,
            message,
        )
        where = f"{file}:{line}" if line is not None else file
        parts = [where]
        if check is not None:
            parts.append(f"check {check!r}")
        if field is not None:
            parts.append(f"field {field!r}")
        super().__init__(": ".join([*parts, message]))


class ConfigurationError(TurncheckError):
    """The message names the setting (``TURNCHECK_*``) or the argument at fault."""


class InvalidTurn(TurncheckError):
    """The reason is safe to put in a header: it names fields, never their values."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class ServiceUnavailable(TurncheckError):
    """``location`` is host:port or a file, never a URL with its password; ``cause`` is a few
    words built from the foreign error's type, e.g. "connection refused"."""

    def __init__(self, service: str, location: str, cause: str) -> None:
        self.service, self.location, self.cause = service, location, cause
        super().__init__(f"{service} at {location} is unavailable: {cause}")


class StoreUnavailable(TurncheckError):
    pass
