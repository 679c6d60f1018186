"""What a channel sends: a message already rendered from its templates."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ChannelName = Literal["slack", "mail"]
CHANNEL_NAMES: tuple[ChannelName, ...] = ("slack", "mail")


@dataclass(frozen=True, slots=True)
class SlackMessage:
    text: str
    """The notification's plain text: shown where blocks are not (phone alerts, search)."""
    blocks: list[dict[str, Any]] = field(default_factory=list)
    """Block Kit blocks."""


@dataclass(frozen=True, slots=True)
class MailMessage:
    subject: str
    text: str
    html: str
    chart_png: bytes | None = None
    """An inline image the HTML refers to as ``cid:chart`` (``CHART_CID``)."""


CHART_CID = "chart"
