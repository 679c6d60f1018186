"""What a channel sends: a message already rendered from its templates."""

from __future__ import annotations

import base64
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

    def standalone_html(self) -> str:
        """The HTML as a page of its own, for a browser rather than a mail: the chart
        embedded as a ``data:`` URI where the mail refers to its ``cid:`` part, so the page
        shows everything with nothing else fetched."""
        if self.chart_png is None:
            return self.html
        embedded = "data:image/png;base64," + base64.b64encode(self.chart_png).decode("ascii")
        return self.html.replace(f"cid:{CHART_CID}", embedded)


CHART_CID = "chart"
