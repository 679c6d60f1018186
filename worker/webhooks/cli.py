"""``turncheck webhooks …``: each endpoint's delivery state, and enabling one again."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from turncheck.worker.cli import exits, startup
from turncheck.worker.clock import utc_now
from turncheck.worker.store import Database, create_engine
from turncheck.worker.store.probe import database_errors
from turncheck.worker.store.webhook_admin import EndpointStatus, WebhookEndpoints

app = typer.Typer(
    help="Webhooks for response.check_failed: delivery state per endpoint.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
err = Console(stderr=True)
T = TypeVar("T")


def _with_endpoints(work: Callable[[WebhookEndpoints], Awaitable[T]]) -> T:
    settings = startup.settings()
    startup.reach(settings)
    startup.embedded_schema(settings)

    async def run() -> T:
        database = Database(create_engine(settings.database_url))
        try:
            return await work(WebhookEndpoints(database))
        finally:
            await database.close()

    with database_errors(settings.database_url):
        return asyncio.run(run())


def _as_json(row: EndpointStatus) -> dict[str, Any]:
    return {
        key: value.isoformat() if isinstance(value, datetime) else value
        for key, value in dataclasses.asdict(row).items()
    }


def _when(moment: datetime | None) -> str:
    return "" if moment is None else moment.strftime("%Y-%m-%d %H:%M:%S")


@app.command()
def status(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show every endpoint the workers have recorded: enabled or why not, the last event
    delivered (outbox id), events waiting, failures in a row, the last status or error
    and when it is tried next. Exit 1 when there is none."""
    rows = _with_endpoints(lambda endpoints: endpoints.status())
    if as_json:
        print(json.dumps([_as_json(row) for row in rows], indent=2))
    elif rows:
        table = Table("endpoint", "state", "cursor", "backlog", "attempts", "last", "next try")
        table.columns[1].no_wrap = True  # the reason, whole, matters more than the rest
        for r in rows:
            state = "enabled" if r.enabled else f"disabled: {r.disabled_reason}"
            last = r.last_error or ("" if r.last_status is None else f"HTTP {r.last_status}")
            table.add_row(
                r.name,
                state,
                str(r.cursor_id),
                str(r.backlog),
                str(r.attempts),
                last,
                _when(r.next_attempt_at),
            )
        Console().print(table)
    else:
        err.print("no webhook endpoints recorded yet (TURNCHECK_WEBHOOKS, then turncheck run)")
    if not rows:
        raise typer.Exit(exits.REJECTED)


@app.command()
def enable(name: Annotated[str, typer.Argument(help="The endpoint's name.")]) -> None:
    """Enable a disabled endpoint (after a 410) now: it resumes from its cursor with
    what the outbox still holds. Exit 1 when no endpoint has that name."""
    found = _with_endpoints(lambda endpoints: endpoints.enable(name, utc_now()))
    if not found:
        err.print(f"no webhook endpoint named {name!r}", highlight=False)
        raise typer.Exit(exits.REJECTED)
    err.print(f"webhook endpoint {name!r} enabled", highlight=False)
