"""Query parameters shared by the routes: moments, verdict lists, and the 422 they raise."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi.exceptions import RequestValidationError

VERDICTS = ("passed", "failed", "errored")


def invalid(name: str, message: str) -> RequestValidationError:
    """A 422 naming the query parameter, in the shape FastAPI's own validation uses."""
    return RequestValidationError([{"loc": ("query", name), "msg": message, "type": "value_error"}])


def aware(moment: datetime | None) -> datetime | None:
    """A time without a zone is read as UTC, as the README says."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def window(since: datetime | None, until: datetime | None) -> None:
    if since is not None and until is not None and until <= since:
        raise invalid("until", "must be after since")


def verdicts(text: str) -> tuple[str, ...]:
    """``failed,errored`` → ("failed", "errored"); a name that is not a verdict is a 422."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    unknown = [name for name in names if name not in VERDICTS]
    if unknown or not names:
        raise invalid("verdict", "a comma-separated list of passed, failed, errored")
    return names
