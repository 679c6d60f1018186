"""The pages' addresses and times as every page writes them: one way to link a check or a
turn (each part quoted whole, so an id holding ``/`` or ``?`` stays one part), and one way
to show a moment in the page's zone."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

from turncheck.worker.web.guard import UI_PREFIX


def check_path(agent_id: str, check: str) -> str:
    return f"{UI_PREFIX}/checks/{quote(agent_id, safe='')}/{quote(check, safe='')}"


def turn_path(turn_id: str) -> str:
    return f"{UI_PREFIX}/turns/{quote(turn_id, safe='')}"


def shown_time(moment: datetime, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")
