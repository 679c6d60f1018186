"""``turncheck alerts …``: evaluate and send now, preview a message, read the history."""

from __future__ import annotations

import dataclasses
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import typer
from rich.console import Console
from rich.table import Table

from turncheck.worker.cli import exits, startup
from turncheck.worker.clock import utc_now
from turncheck.worker.errors import ConfigurationError
from turncheck.worker.store import Store
from turncheck.worker.store.alerts import AlertStore, HistoryRow
from turncheck.worker.store.rollouts import Dated

if TYPE_CHECKING:
    from turncheck.alerts.delivery import RoundReport
    from turncheck.alerts.notice import Notice

# The alerter, its channels (Slack, mail) and the checks are imported by the commands that
# send or render: `alerts history` only reads the store, and they cost it a second.

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
    from turncheck.alerts.setup import SETTINGS_OF, alert_setup, build_alerter
    from turncheck.worker.checks import load_checks

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
    html: Annotated[
        bool,
        typer.Option(
            "--html", help="Only the mail's HTML, as a page a browser opens, chart included."
        ),
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="With --html: write the page to this file.")
    ] = None,
) -> None:
    """Render a check's alert, or the digest, as it would be sent now; send nothing and
    store nothing. For a check, standard error says whether an alert would be raised, in
    the words of the message."""
    from turncheck.alerts.setup import preview_alerter, templates
    from turncheck.worker.checks import load_checks

    settings = startup.settings()
    if (check is not None) == digest:
        raise ConfigurationError("alerts preview needs --check NAME or --digest, not both")
    if out is not None and not html:
        raise ConfigurationError("alerts preview --out needs --html")
    if html and channel == "slack":
        raise ConfigurationError("alerts preview --html shows the mail: leave out --channel slack")
    if out is not None and not out.parent.is_dir():
        raise ConfigurationError(f"invalid --out {str(out)!r}: no folder {str(out.parent)!r}")
    checks = load_checks(settings.checks)
    rendering = templates(settings)

    async def work(store: Store) -> Notice:
        alerter = preview_alerter(settings, checks, store.database, utc_now)
        if check is None:
            return await alerter.digest_notice()
        watched = alerter.find(check, agent)
        notice = await alerter.preview(watched)
        state = notice.state
        outcome = "an alert would be raised" if state.below else "no alert would be raised now"
        if watched.shadow:
            live = "; live, an alert would be raised" if state.below else ""
            outcome = f"shadow check: no alert is raised (rollout: shadow){live}"
        verdict = f"{check} for {notice.agent_id}: {state.summary}; {outcome}"
        err.print(verdict, markup=False, highlight=False, soft_wrap=True)
        return notice

    notice = startup.on_store(settings, work)
    if html:
        page = rendering.mail(notice).standalone_html()
        if out is None:
            sys.stdout.write(page if page.endswith("\n") else page + "\n")
            return
        try:
            out.write_text(page, encoding="utf-8")
        except OSError as exc:
            why = (exc.strerror or type(exc).__name__).lower()
            raise ConfigurationError(f"cannot write {out}: {why}") from None
        err.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)
        return
    console = Console(highlight=False, soft_wrap=True)
    if channel in ("slack", "both"):
        message = rendering.slack(notice)
        console.rule("Slack")
        console.print(message.text, markup=False)
        console.print(json.dumps(message.blocks, indent=2, ensure_ascii=False), markup=False)
    if channel in ("mail", "both"):
        mail = rendering.mail(notice)
        console.rule("Mail")
        console.print(f"Subject: {mail.subject}", markup=False)
        console.print(mail.text, markup=False)
        if mail.chart_png:
            console.print(f"[inline chart: {len(mail.chart_png)} bytes of PNG]", markup=False)


@app.command()
def history(
    days: Annotated[int, typer.Option(min=1, help="How many days back.")] = 14,
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Alerts and digests per day: sent, failed or pending per channel, and how many
    more times each check was found below its threshold that day (suppressed). Shadow
    checks, which raise no alert, are named on standard error."""
    settings = startup.settings()
    since = utc_now().date() - timedelta(days=days - 1)

    async def work(store: Store) -> tuple[list[HistoryRow], dict[tuple[str, str], Dated]]:
        return await AlertStore(store.database).history(since, check), await store.rollouts.dates()

    rows, rollouts = startup.on_store(settings, work)
    # A shadow check has no alert to list: say so rather than leave it silently missing.
    shadow = sorted(
        (name, agent, at)
        for (agent, name), (rollout, at) in rollouts.items()
        if rollout == "shadow" and check in (None, name)
    )
    if shadow:
        named = ", ".join(f"{c} for {a} (since {at:%Y-%m-%d})" for c, a, at in shadow)
        err.print(
            f"shadow checks, which raise no alert: {named}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
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
