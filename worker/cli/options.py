"""Options and arguments several commands share."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Annotated

import typer

from turncheck.worker.errors import ConfigurationError

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
SinceOption = Annotated[str, typer.Option(help="How far back: 7d, 12h, 30m, 2w or an ISO date.")]
UntilOption = Annotated[
    str | None, typer.Option(help="Up to: 7d, 12h, 30m, 2w back, or an ISO date.")
]

SINCE_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime, option: str = "--since") -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or time; a refusal
    names ``option``."""
    match = re.fullmatch(r"(\d+)([mhdw])", text.strip())
    try:
        if match:
            return now - timedelta(**{SINCE_UNITS[match[2]]: int(match[1])})
        moment = datetime.fromisoformat(text)
    except OverflowError:
        raise ConfigurationError(f"invalid {option} {text!r}: goes back past the year 1") from None
    except ValueError:
        raise ConfigurationError(
            f"invalid {option} {text!r}: use 7d, 12h, 30m, 2w or an ISO date"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo)


def parse_window(since: str, until: str | None, now: datetime) -> tuple[datetime, datetime | None]:
    """``--since`` and ``--until`` as times; an ``--until`` not after ``--since`` is a
    usage error naming both, since the window would hold nothing."""
    start = parse_since(since, now)
    if until is None:
        return start, None
    end = parse_since(until, now, "--until")
    if end <= start:
        raise ConfigurationError(
            f"invalid --until {until!r}: it is not after --since {since!r}, "
            "so the window holds nothing"
        )
    return start, end
