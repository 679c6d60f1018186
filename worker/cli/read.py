"""The commands that read the store: one turn's results, pass rates, a check's failures.
``worker/cli/main.py`` registers them."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from turncheck.worker.cli import exits, startup, tables
from turncheck.worker.cli.options import JsonOption, parse_since
from turncheck.worker.clock import utc_now

err = Console(stderr=True)


def results(
    turn_id: Annotated[str, typer.Argument(help="The turn's id.")],
    as_json: JsonOption = False,
) -> None:
    """Show the stored results of one turn (exit 1 when it has none)."""
    settings = startup.settings()
    found = startup.on_store(settings, lambda store: store.queries.results_for_turn(turn_id))
    if as_json:
        print(json.dumps([r.as_dict() for r in found], indent=2))
    elif found:
        Console().print(tables.results_table(found))
    else:
        err.print(f"no results for turn {turn_id}", highlight=False)
    if not found:
        raise typer.Exit(exits.REJECTED)


def pass_rates(
    check: Annotated[str | None, typer.Option(help="Only this check.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    since: Annotated[
        str, typer.Option(help="How far back: 7d, 12h, 30m, 2w or an ISO date.")
    ] = "7d",
    until: Annotated[
        str | None, typer.Option(help="Up to: 7d, 12h, 30m, 2w back, or an ISO date.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Show each check's pass rate and its counts.

    Counts are kept per hour of the turns' time: every hour that overlaps the window counts.
    """
    settings = startup.settings()
    now = utc_now()
    start = parse_since(since, now)
    end = parse_since(until, now) if until is not None else None
    rows = startup.on_store(
        settings,
        lambda store: store.queries.pass_rates(since=start, until=end, check=check, agent=agent),
    )
    if as_json:
        window = {"since": start.isoformat(), "until": end.isoformat() if end else None}
        print(json.dumps({**window, "rates": [r.as_dict() for r in rows]}, indent=2))
    else:
        Console().print(tables.pass_rate_table(rows, start))


def failures(
    check: Annotated[str, typer.Argument(help="The check's name.")],
    agent: Annotated[str | None, typer.Option(help="Only this agent id.")] = None,
    since: Annotated[
        str, typer.Option(help="How far back: 7d, 12h, 30m, 2w or an ISO date.")
    ] = "1d",
    until: Annotated[
        str | None, typer.Option(help="Up to: 7d, 12h, 30m, 2w back, or an ISO date.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10_000, help="At most this many.")] = 100,
    as_json: JsonOption = False,
) -> None:
    """List a check's results that did not pass (failed or errored), newest first.

    An alert links here; `turncheck results TURN_ID` shows every check of one turn.
    """
    settings = startup.settings()
    now = utc_now()
    start = parse_since(since, now)
    end = parse_since(until, now) if until is not None else None
    found = startup.on_store(
        settings,
        lambda store: store.queries.not_passed(
            check, agent=agent, since=start, until=end, limit=limit
        ),
    )
    if as_json:
        print(json.dumps([r.as_dict() for r in found], indent=2))
    else:
        Console().print(tables.not_passed_table(found, check, start))
