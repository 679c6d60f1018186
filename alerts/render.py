"""Render notices with the jinja2 templates shipped in ``alerts/templates/``, or with a
folder of the user's own that replaces any of them by name.

Names are ``{channel}_{alert|digest}.{part}.j2``: Slack has ``text`` (the notification)
and ``blocks.json`` (Block Kit, as a JSON list); mail has ``subject``, ``text`` and
``html``. HTML is autoescaped; Slack blocks are JSON, so values go through ``tojson``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import jinja2

from turncheck.alerts.chart import daily_chart_png, sparkline
from turncheck.alerts.notice import CheckAlert, DayRate, Notice
from turncheck.alerts.rendered import MailMessage, SlackMessage
from turncheck.alerts.state import pct
from turncheck.worker.errors import ConfigurationError

NAMES = tuple(
    f"{channel}_{kind}.{part}.j2"
    for kind in ("alert", "digest")
    for channel, parts in (
        ("slack", ("text", "blocks.json")),
        ("mail", ("subject", "text", "html")),
    )
    for part in parts
)


def mrkdwn(value: object) -> str:
    """Slack's three control characters, escaped as Slack asks."""
    return str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def trend_sparkline(trend: Sequence[DayRate]) -> str:
    return sparkline([day.rate for day in trend])


class Templates:
    def __init__(self, folder: Path | None = None, zone: ZoneInfo | None = None) -> None:
        loaders: list[jinja2.BaseLoader] = [jinja2.PackageLoader("turncheck.alerts", "templates")]
        if folder is not None:
            if not folder.is_dir():
                raise ConfigurationError(f"TURNCHECK_ALERT_TEMPLATES: {folder} is not a folder")
            loaders.insert(0, jinja2.FileSystemLoader(folder))
        self.env = jinja2.Environment(
            loader=jinja2.ChoiceLoader(loaders),
            autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",)),
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=False,
        )
        zone = zone or ZoneInfo("UTC")
        self.env.filters.update(
            pct=pct,
            mrkdwn=mrkdwn,
            sparkline=trend_sparkline,
            local=lambda moment: _local(moment, zone),
        )

    def _render(self, name: str, notice: Notice) -> str:
        context: dict[str, Any] = (
            {"alert": notice} if isinstance(notice, CheckAlert) else {"digest": notice}
        )
        try:
            return self.env.get_template(name).render(context)
        except jinja2.TemplateSyntaxError as exc:
            raise ConfigurationError(
                f"alert template {exc.filename or name}:{exc.lineno}: {exc.message}"
            ) from None
        except jinja2.TemplateError as exc:
            raise ConfigurationError(f"alert template {name}: {exc}") from None

    def slack(self, notice: Notice) -> SlackMessage:
        kind = _kind(notice)
        text = self._render(f"slack_{kind}.text.j2", notice).strip()
        source = self._render(f"slack_{kind}.blocks.json.j2", notice)
        try:
            blocks = json.loads(source)
        except json.JSONDecodeError as exc:
            raise ConfigurationError(
                f"alert template slack_{kind}.blocks.json.j2 renders invalid JSON at line "
                f"{exc.lineno}: {exc.msg}"
            ) from None
        if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
            raise ConfigurationError(
                f"alert template slack_{kind}.blocks.json.j2 must render a JSON list of blocks"
            )
        return SlackMessage(text=text, blocks=blocks)

    def mail(self, notice: Notice) -> MailMessage:
        kind = _kind(notice)
        chart = None
        if isinstance(notice, CheckAlert):
            chart = daily_chart_png([(d.day, d.rate) for d in notice.trend], notice.min_pass_rate)
        return MailMessage(
            subject=" ".join(self._render(f"mail_{kind}.subject.j2", notice).split()),
            text=self._render(f"mail_{kind}.text.j2", notice).strip() + "\n",
            html=self._render(f"mail_{kind}.html.j2", notice),
            chart_png=chart,
        )


def _kind(notice: Notice) -> str:
    return "alert" if isinstance(notice, CheckAlert) else "digest"


def _local(moment: datetime, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")
