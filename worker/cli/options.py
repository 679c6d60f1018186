"""Options and arguments several commands share."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer

from turncheck.worker.errors import ConfigurationError
from turncheck.worker.runtime.moments import BadMoment, parse_moment

JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
SinceOption = Annotated[str, typer.Option(help="How far back: 7d, 12h, 30m, 2w or an ISO date.")]
UntilOption = Annotated[
    str | None, typer.Option(help="Up to: 7d, 12h, 30m, 2w back, or an ISO date.")
]


def parse_since(text: str, now: datetime, option: str = "--since") -> datetime:
    """``7d``, ``12h``, ``30m``, ``2w`` back from now, or an ISO date or time (read as the
    API reads its ``since``: ``worker/runtime/moments.py``); a refusal names ``option``."""
    try:
        return parse_moment(text, now)
    except BadMoment as exc:
        raise ConfigurationError(f"invalid {option} {text!r}: {exc}") from None


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
