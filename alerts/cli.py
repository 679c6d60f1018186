"""``turncheck alerts …``: evaluate and send now, preview a message, read the history."""

from __future__ import annotations

import dataclasses
import json
from datetime import timedelta
from typing import Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from turncheck.alerts.delivery import RoundReport
from turncheck.alerts.notice import Notice
from turncheck.alerts.setup import (
    SETTINGS_OF,
    alert_setup,
    build_alerter,
    preview_alerter,
    templates,
)
from turncheck.worker.checks import load_checks
from turncheck.worker.cli import exits, startup
from turncheck.worker.clock import utc_now
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertStore, HistoryRow

app = typer.Typer(
    help="Daily alerts when a check's pass rate drops.", no_args_is_help=True, rich_markup_mode=None
)
err = Console(stderr=True)


@app.command("run-once")
def run_once(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Evaluate every check now and send what is due; exit 1 when a send failed.

    An alert already raised today is not sent again: it is counted as suppressed. The
    daily digest is left to the schedule of `turncheck run`.
    """
    settings = startup.settings()
    setup = alert_setup(settings, load_checks(settings.checks))
    if setup is None:
        raise ConfigurationError(
            f"no alert channel is configured: set {SETTINGS_OF['slack']}; or {SETTINGS_OF['mail']}"
        )

    async def work(store: Store) -> RoundReport:
        return await build_alerter(setup, settings, store.database, utc_now).run_once()

    report = startup.on_store(settings, work)
    if as_json:
        print(json.dumps(dataclasses.asdict(report)))
    else:
        raised = ", ".join(report.raised) or "none"
        err.print(
            f"alerts raised: {raised}; suppressed (already sent today): {report.suppressed}; "
            f"sends: {report.sent} done, {report.failed} failed",
            highlight=False,
        )
    if report.failed:
        raise typer.Exit(exits.REJECTED)


@app.command()
def preview(
    check: Annotated[str | None, typer.Option(help="The check's name.")] = None,
    digest: Annotated[bool, typer.Option("--digest", help="The daily digest instead.")] = False,
    agent: Annotated[str | None, typer.Option(help="The agent, when several have it.")] = None,
    channel: Annotated[
        Literal["slack", "mail", "both"], typer.Option(help="Which message to show.")
    ] = "both",
    html: Annotated[bool, typer.Option("--html", help="Show the mail's HTML part.")] = False,
) -> None:
    """Render a check's alert, or the digest, as it would be sent now; send nothing and
    store nothing."""
    settings = startup.settings()
    if (check is not None) == digest:
        raise ConfigurationError("alerts preview needs --check NAME or --digest, not both")
    checks = load_checks(settings.checks)
    rendering = templates(settings)

    async def work(store: Store) -> Notice:
        alerter = preview_alerter(settings, checks, store.database, utc_now)
        if check is None:
            return await alerter.digest_notice()
        notice, crossed = await alerter.preview(alerter.find(check, agent))
        state = (
            "below the threshold: an alert would be raised"
            if crossed
            else "not below the threshold (or too few results): no alert would be raised now"
        )
        err.print(f"{check} for {notice.agent_id}: {state}", highlight=False)
        return notice

    notice = startup.on_store(settings, work)
    out = Console(highlight=False, soft_wrap=True)
    if channel in ("slack", "both"):
        message = rendering.slack(notice)
        out.rule("Slack")
        out.print(message.text, markup=False)
        out.print(json.dumps(message.blocks, indent=2, ensure_ascii=False), markup=False)
    if channel in ("mail", "both"):
        mail = rendering.mail(notice)
        out.rule("Mail")
        out.print(f"Subject: {mail.subject}", markup=False)
        out.print(mail.html if html else mail.text, markup=False)
        if mail.chart_png:
            out.print(f"[inline chart: {len(mail.chart_png)} bytes of PNG]", markup=False)


@app.command()
def history(
    days: Annotated[int, typer.Option(min=1, help="How many days back.")] = 14,
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Alerts and digests per day: sent, failed or pending per channel, and how many
    more times each check was found below its threshold that day (suppressed)."""
    settings = startup.settings()
    since = utc_now().date() - timedelta(days=days - 1)

    async def work(store: Store) -> list[HistoryRow]:
        return await AlertStore(store.database).history(since, check)

    rows = startup.on_store(settings, work)
    if as_json:
        print(json.dumps([row.as_dict() for row in rows], indent=2))
        return
    table = Table(title=f"alerts since {since.isoformat()}")
    columns = ("day", "kind", "check", "agent", "channel", "status", "attempts", "last error")
    for column in (*columns, "sent at", "suppressed"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            row.day.isoformat(),
            row.kind,
            row.check or "-",
            row.agent_id or "-",
            row.channel,
            row.status,
            str(row.attempts),
            row.last_error or "",
            f"{row.sent_at:%H:%M:%S}" if row.sent_at else "",
            str(row.suppressed),
        )
    Console().print(table)
