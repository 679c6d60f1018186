"""Query parameters shared by the routes: moments, verdict lists, text the store can
hold, and the 422 they raise."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import Request
from fastapi.exceptions import RequestValidationError

from turncheck.worker.runtime.moments import BadMoment, parse_moment

VERDICTS = ("passed", "failed", "errored")
MOMENT = "7d, 12h, 30m, 2w back from now, or an ISO date or time (no zone: UTC)"
"""How ``since`` and ``until`` are written, as in the CLI's ``--since``/``--until``."""


def invalid(name: str, message: str, where: str = "query") -> RequestValidationError:
    """A 422 naming the parameter, in the shape FastAPI's own validation uses."""
    return RequestValidationError([{"loc": (where, name), "msg": message, "type": "value_error"}])


def moment(name: str, text: str | None, now: datetime) -> datetime | None:
    """A ``since`` or ``until`` as an aware time (``worker/runtime/moments.py``); one that
    names no time, or none the store can hold, is a 422 naming ``name``."""
    if text is None:
        return None
    try:
        return parse_moment(text, now).astimezone(UTC)
    except BadMoment as exc:
        raise invalid(name, str(exc)) from None


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


async def storable_text(request: Request) -> None:
    """A 422 for a NUL in any path or query value: PostgreSQL text cannot hold one, so the
    store could not even compare it, and no id, name or version stored contains one (the
    contract refuses them, ``schemas/turn.py``)."""
    for where, pairs in (
        ("path", request.path_params.items()),
        ("query", request.query_params.multi_items()),
    ):
        for name, value in pairs:
            if isinstance(value, str) and "\x00" in value:
                raise invalid(name, "must not contain a NUL character", where)
