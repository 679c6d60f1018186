"""Options and arguments several commands share."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Annotated

import typer

from turncheck.worker.errors import ConfigurationError

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]

SINCE_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime) -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or time."""
    match = re.fullmatch(r"(\d+)([mhdw])", text.strip())
    try:
        if match:
            return now - timedelta(**{SINCE_UNITS[match[2]]: int(match[1])})
        moment = datetime.fromisoformat(text)
    except OverflowError:
        raise ConfigurationError(f"invalid --since {text!r}: goes back past the year 1") from None
    except ValueError:
        raise ConfigurationError(
            f"invalid --since {text!r}: use 7d, 12h, 30m, 2w or an ISO date"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=now.tzinfo)
