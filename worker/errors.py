"""turncheck's errors, one root.

    TurncheckError
    ├── CheckDefinitionError  a check file is wrong: refused at start (file, line, check, field)
    ├── InvalidTurn           a message is not a valid turn: it goes to the dead-letter topic
    └── StoreUnavailable      the database is out of reach: consuming pauses, nothing committed

Foreign errors (SQLAlchemy, aiokafka, pydantic) are translated where they enter.
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


class InvalidTurn(TurncheckError):
    """The reason is safe to put in a header: it names fields, never their values."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class StoreUnavailable(TurncheckError):
    pass
